package semantictool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"testing"

	"github.com/langhost/langhost/host/registry"
)

// TestShippedSemanticBlocks runs the semantic blocks of the shipped
// python.yaml and typescript.yaml through the plugin against the real
// servers (go.yaml is covered by TestGoThroughPlugin).
func TestShippedSemanticBlocks(t *testing.T) {
	tests := []struct {
		server, fixture, tool string
		input                 map[string]any
		want                  string
	}{
		{"pyright-langserver", "pypkg", "python.find_references", map[string]any{"symbol": "greet"},
			`[{zoo/keeper.py 9 12}]`},
		{"typescript-language-server", "tsproj", "typescript.find_references", map[string]any{"symbol": "Shape", "kind": "interface"},
			`[{src/calc.ts 1 15} {src/calc.ts 5 35} {src/circle.ts 1 15} {src/circle.ts 3 32} {src/square.ts 1 15} {src/square.ts 3 32}]`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			builtintest.RequireTools(t, tt.server)
			h := newHost(t, "../../plugins/semantic/testdata/"+tt.fixture)
			res, err := h.Registry.Call(context.Background(), tt.tool, registry.Call{WorkspaceCode: true, Input: tt.input})
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				References []struct {
					File         string
					Line, Column int
				}
			}
			if err := json.Unmarshal(res.Data, &out); err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(out.References); got != tt.want {
				t.Errorf("references = %s, want %s", got, tt.want)
			}
		})
	}
}
