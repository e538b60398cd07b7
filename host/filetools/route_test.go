package filetools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) { builtintest.Main(m) }

// The workspace tools route a write by the file's language: a Go file
// through go.edit_file (gopls checks it in memory), a Java file through its
// gate tool (jdtls is not installed here, javac is), a text file unchecked.
func TestWriteRouting(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH")
	}
	if _, err := exec.LookPath("javac"); err != nil {
		t.Fatal("javac is not installed: install openjdk-17-jdk-headless")
	}
	if _, err := exec.LookPath("jdtls"); err == nil {
		t.Fatal("jdtls is installed: this test needs a language without its server; change the Java case")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/m\n\ngo 1.22\n",
		"calc.go":   "package m\n\nfunc Add(a, b int) int { return a + b }\n",
		"App.java":  "class App { int add(int a, int b) { return a + b; } }\n",
		"notes.txt": "old\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = dir
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if !h.Registry.Has("go.edit_file") {
		t.Fatalf("go.edit_file is not registered: %v", h.Specs.Problems)
	}

	tests := []struct {
		name, tool, file string
		input            map[string]any
		code             failure.Code
		gate             string
	}{
		{"go error rejected by gopls", "replace_in_file", "calc.go",
			map[string]any{"path": "calc.go", "edits": []any{map[string]any{"old_text": "a + b", "new_text": "a + c"}}},
			failure.DiagnosticRegression, ""},
		{"go edit accepted", "replace_in_file", "calc.go",
			map[string]any{"path": "calc.go", "edits": []any{map[string]any{"old_text": "a + b", "new_text": "b + a"}}}, "", "go.edit_file"},
		{"go file created", "write_file", "sub/new.go",
			map[string]any{"path": "sub/new.go", "content": "package sub\n\nfunc One() int { return 1 }\n"}, "", "go.edit_file"},
		{"java error rejected by javac", "write_file", "App.java",
			map[string]any{"path": "App.java", "content": "class App { int add(int a, int b) { return a + c; } }\n"}, failure.DiagnosticRegression, ""},
		{"java edit accepted", "write_file", "App.java",
			map[string]any{"path": "App.java", "content": "class App { int add(int a, int b) { return b + a; } }\n"}, "", "java.compile"},
		{"text unchecked", "write_file", "notes.txt", map[string]any{"path": "notes.txt", "content": "new\n"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, filepath.FromSlash(tt.file))
			before, _ := os.ReadFile(p)
			n := len(records(t, dir))
			res, err := h.Registry.Call(context.Background(), "workspace."+tt.tool, registry.Call{WorkspaceCode: true, Input: tt.input, Confirmed: true})
			after, _ := os.ReadFile(p)
			if tt.code != "" {
				if failure.CodeOf(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				if !bytes.Equal(after, before) {
					t.Errorf("a rejected edit changed %s: %q", tt.file, after)
				}
				if len(records(t, dir)) != n {
					t.Errorf("a rejected edit was recorded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			if err := json.Unmarshal(res.Data, &out); err != nil {
				t.Fatal(err)
			}
			if out["gate"] != tt.gate {
				t.Errorf("gate = %v, want %q (%s)", out["gate"], tt.gate, res.Data)
			}
			if bytes.Equal(after, before) {
				t.Errorf("%s was not written (%s)", tt.file, res.Data)
			}
			if len(records(t, dir)) != n+1 {
				t.Errorf("the write was not recorded (%s)", res.Data)
			}
		})
	}
}

func records(t *testing.T, dir string) []*txnlog.Record {
	t.Helper()
	recs, err := txnlog.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// An agent over MCP (the official SDK's client) has a breaking write
// rolled back with diagnostic_regression, a good one accepted, and undoes
// it.
func TestWriteOverMCP(t *testing.T) {
	dir := t.TempDir()
	add := filepath.Join(dir, "add.c")
	const good = "int add(int a, int b) { return a + b; }\n"
	if err := os.WriteFile(add, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = dir
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv, err := mcpserver.New(h, mcpserver.Options{Profile: mcpserver.ProfileEdit, Allow: []string{"workspace.*"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	callTool := func(name string, args map[string]any) (map[string]any, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(b, &out)
		return out, res.IsError
	}

	out, isErr := callTool("workspace_write_file", map[string]any{"path": "add.c", "content": "int add(int a, int b) { return a + c; }\n"})
	if code, _ := out["error"].(map[string]any)["code"].(string); !isErr || code != "diagnostic_regression" {
		t.Fatalf("breaking write: isError %v, %v", isErr, out)
	}
	if got, _ := os.ReadFile(add); string(got) != good {
		t.Fatalf("a rejected write changed add.c: %q", got)
	}
	out, isErr = callTool("workspace_replace_in_file", map[string]any{"path": "add.c", "edits": []any{map[string]any{"old_text": "a + b", "new_text": "b + a"}}})
	id, _ := out["transaction_id"].(string)
	if isErr || id == "" {
		t.Fatalf("good write: isError %v, %v", isErr, out)
	}
	if _, isErr = callTool("workspace_undo", map[string]any{"id": id}); isErr {
		t.Fatal("undo failed")
	}
	if got, _ := os.ReadFile(add); string(got) != good {
		t.Fatalf("undo left %q", got)
	}
}
