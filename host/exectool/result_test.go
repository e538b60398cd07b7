package exectool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
)

func TestWorkspacePath(t *testing.T) {
	root := filepath.FromSlash("/ws")
	dir := filepath.FromSlash("/ws/sub")
	tests := []struct{ in, want string }{
		{"", ""},
		{"a.go", "sub/a.go"},               // relative to the tool's directory
		{"./a.go", "sub/a.go"},             // the ./ form go and gcc print
		{"../b.go", "b.go"},                // up from the tool's directory, still inside
		{"/ws/sub/a.go", "sub/a.go"},       // absolute inside
		{`src\Main.cs`, "sub/src/Main.cs"}, // Windows separators
		{`C:\src\App\Program.cs`, "C:/src/App/Program.cs"}, // a Windows absolute path stays whole
		{"file:///ws/x.ts", "x.ts"},                        // a URI
		{"/elsewhere/c.h", "/elsewhere/c.h"},               // outside the workspace: absolute
		{"../../etc/passwd", "/etc/passwd"},                // a relative path leading out is not made to look inside
	}
	for _, tt := range tests {
		if got := workspacePath(root, dir, tt.in); got != tt.want {
			t.Errorf("workspacePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

const shapeSpec = `language: {id: shape}
tools:
  lint:
    command: sh
    # One problem in each path form, one of them twice, as tools print them.
    args: ["-c", "echo \"./a.c:1:1: warning: w\"; echo \"$PWD/a.c:1:1: warning: w\"; echo 'a.c:2:1: error: e'; printf '%s\\n' 'sub\\b.c:3:1: error: f'; echo \"$PWD/sub/b.c:3:1: error: f\""]
    outputParsers:
      diagnostics:
        type: diagnostics
        pattern: '^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning): (?P<message>.*)$'
  test:
    command: sh
    args: ["-c", "echo '2 passed, 1 failed, 3 skipped'; echo 'FAIL t_sub at sub/t.c:9: want 1'"]
    outputParsers:
      tests: {type: regex, pattern: '(\d+) passed, (\d+) failed, (\d+) skipped', groups: [passed, failed, skipped]}
      failures: {type: regex, pattern: '^FAIL (\S+) at (\S+):(\d+): (.*)$', groups: [name, file, line, message], mode: all}
  check:
    command: sh
    args: ["-c", "echo 'would reformat ./b.c'; echo \"would reformat $PWD/a.c\"; echo 'would reformat b.c'"]
    outputParsers:
      files: {type: regex, pattern: '^would reformat (?P<path>.+)$', mode: all}
  clean:
    command: "true"
    outputParsers:
      files: {type: lineMatch, pattern: ".c"}
`

func shapeRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	set := spec.Load([]spec.Source{{Name: "test", FS: fstest.MapFS{"shape.yaml": {Data: []byte(shapeSpec)}}}})
	if len(set.Problems) > 0 {
		t.Fatalf("spec problems: %v", set.Problems[0])
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, set, Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return reg
}

func call(t *testing.T, reg *registry.Registry, id string) *registry.Result {
	t.Helper()
	res, err := reg.Call(context.Background(), id, registry.Call{WorkspaceCode: true, Input: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestResultShape: every path form becomes one workspace path, the same
// problem printed twice is one diagnostic, counts are always there, and
// tests and files take the one shape.
func TestResultShape(t *testing.T) {
	reg := shapeRegistry(t)

	lint := call(t, reg, "shape.lint")
	want := `[{"path":"a.c","line":1,"column":1,"severity":"warning","message":"w"},` +
		`{"path":"a.c","line":2,"column":1,"severity":"error","message":"e"},` +
		`{"path":"sub/b.c","line":3,"column":1,"severity":"error","message":"f"}]`
	if got := jsonOf(t, lint.Diagnostics); got != want {
		t.Errorf("diagnostics\n got %s\nwant %s", got, want)
	}
	if got := jsonOf(t, lint.Counts); got != `{"error":2,"warning":1,"info":0,"hint":0}` {
		t.Errorf("counts = %s", got)
	}
	if lint.Tests != nil || lint.Files != nil {
		t.Errorf("a lint result has tests %v or files %v", lint.Tests, lint.Files)
	}

	test := call(t, reg, "shape.test")
	if got := jsonOf(t, test.Tests); got != `{"passed":2,"failed":1,"skipped":3,"failures":[{"name":"t_sub","file":"sub/t.c","line":9,"message":"want 1"}]}` {
		t.Errorf("tests = %s", got)
	}

	if got := jsonOf(t, call(t, reg, "shape.check").Files); got != `["a.c","b.c"]` {
		t.Errorf("files = %s", got)
	}
	// A clean run still says so: files [] and zero counts, never null.
	var clean map[string]json.RawMessage
	if err := json.Unmarshal([]byte(jsonOf(t, call(t, reg, "shape.clean"))), &clean); err != nil {
		t.Fatal(err)
	}
	if got := string(clean["files"]); got != `[]` {
		t.Errorf("files of a clean check = %s, want []", got)
	}
	if got := string(clean["counts"]); got != `{"error":0,"warning":0,"info":0,"hint":0}` {
		t.Errorf("counts of a clean run = %s", got)
	}
	if got := string(clean["diagnostics"]); got != `[]` {
		t.Errorf("diagnostics of a clean run = %s", got)
	}
}
