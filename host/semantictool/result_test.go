package semantictool_test

import (
	"context"
	"testing"

	"github.com/langhost/langhost/host/registry"
)

// TestPluginDiagnostics: the diagnostics an operation reports are the
// result's, counted, and an output that only mentions the word inside a
// string reports none (the host decodes only outputs holding the key).
func TestPluginDiagnostics(t *testing.T) {
	plugin := buildPlugin(t, "github.com/langhost/langhost/plugins/pluginapi/internal/testagent/testplugin")
	h := hostWithSpec(t, `language: {id: lines, name: Lines}
semantic:
  command: lines-server
  plugin: `+plugin+"\n")
	diag := map[string]any{"path": "a.txt", "line": 2, "column": 1, "severity": "error", "message": "bad", "source": "lines"}
	other := map[string]any{"path": "a.txt", "line": 3, "column": 1, "severity": "error", "message": "worse", "source": "lines"}
	cases := []struct {
		name   string
		input  map[string]any
		errors int
	}{
		{"reported", map[string]any{"diagnostics": []any{diag, other}}, 2},
		{"nested only", map[string]any{"page": map[string]any{"diagnostics": []any{diag}}}, 0},
		{"in a string", map[string]any{"snippet": `"diagnostics": [{"severity": "error"}]`, "references": []any{}}, 0},
		{"none", map[string]any{"references": []any{map[string]any{"file": "a.txt", "line": 1}}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := h.Registry.Call(context.Background(), "lines.echo", registry.Call{WorkspaceCode: true, Input: c.input})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != c.errors || res.Counts.Error != c.errors {
				t.Errorf("diagnostics %v, counts %+v; want %d errors", res.Diagnostics, res.Counts, c.errors)
			}
		})
	}
}
