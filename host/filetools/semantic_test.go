package filetools_test

import (
	"context"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/filetools"
	"github.com/langhost/langhost/plugins/builtin"
)

// TestSemanticTool: the calls a caller may send to the daemon are the
// writes of files an installed language server checks, whatever else the
// input holds; everything else runs where it was called.
func TestSemanticTool(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH")
	}
	if _, err := exec.LookPath("jdtls"); err == nil {
		t.Fatal("jdtls is installed: this test needs a language without its server; change the Java case")
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = t.TempDir()
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	tests := []struct {
		name, tool string
		input      map[string]any
		want       string
	}{
		{"go write", "workspace.write_file", map[string]any{"path": "a/b.go", "content": "x"}, "go.edit_file"},
		{"go replace", "workspace.replace_in_file", map[string]any{"path": "./b.GO"}, "go.edit_file"},
		{"java without its server", "workspace.write_file", map[string]any{"path": "App.java"}, ""},
		{"text file", "workspace.write_file", map[string]any{"path": "notes.txt"}, ""},
		{"no extension", "workspace.write_file", map[string]any{"path": "Makefile"}, ""},
		{"outside the workspace", "workspace.write_file", map[string]any{"path": "../b.go"}, ""},
		{"absolute", "workspace.write_file", map[string]any{"path": "/etc/b.go"}, ""},
		{"in .git", "workspace.write_file", map[string]any{"path": ".git/hooks/b.go"}, ""},
		{"in .langhost", "workspace.write_file", map[string]any{"path": ".langhost/b.go"}, ""},
		{"NUL", "workspace.write_file", map[string]any{"path": "b\x00.go"}, ""},
		{"path not a string", "workspace.write_file", map[string]any{"path": []any{"b.go"}}, ""},
		{"no input", "workspace.write_file", nil, ""},
		{"read", "workspace.read_file", map[string]any{"path": "b.go"}, ""},
		{"undo", "workspace.undo", map[string]any{"path": "b.go"}, ""},
		{"a semantic tool itself", "go.edit_file", map[string]any{"path": "b.go"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := filetools.SemanticTool(h.Specs, h.Registry, tt.tool, tt.input); got != tt.want {
				t.Errorf("SemanticTool(%s, %v) = %q, want %q", tt.tool, tt.input, got, tt.want)
			}
		})
	}
}
