package roslynagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/langhost/langhost/internal/lsptest/csharpls"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/roslynagent"
)

var shapes = roslyntest.Shapes()

func open(t *testing.T, a *roslynagent.Agent, command string) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"command": command, "dialect": "roslyn", "rootMarkers": []string{"*.sln"},
		"args": []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", t.TempDir()}})
	root, err := filepath.Abs(shapes)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Open(context.Background(), pluginapi.OpenRequest{Root: root, Language: "csharp", Config: cfg}, nil); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = a.Shutdown(context.Background()) })
}

func invoke(a *roslynagent.Agent, op string, input string) (json.RawMessage, error) {
	return a.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: op, Input: json.RawMessage(input)}, nil)
}

// TestProjectOperationsNeedNoServer: where no C# server is installed the
// project operations answer from the .sln and .csproj files, and the
// semantic operations say what is missing, every time they are asked.
func TestProjectOperationsNeedNoServer(t *testing.T) {
	a := roslynagent.New(nil)
	open(t, a, "no-such-roslyn-language-server")
	out, err := invoke(a, "list_projects", `{}`)
	if err != nil {
		t.Fatalf("list_projects: %v", err)
	}
	var ws struct{ Projects []struct{ Name string } }
	if err := json.Unmarshal(out, &ws); err != nil || len(ws.Projects) != 2 {
		t.Errorf("list_projects = %s (%v)", out, err)
	}
	for range 2 {
		if _, err := invoke(a, "find_symbol", `{"query":"IShape"}`); failure.CodeOf(err) != failure.Precondition {
			t.Errorf("find_symbol without a server: %v, want precondition_failed", err)
		}
	}
	st, err := a.Status(context.Background())
	if err != nil || !st.Ready {
		t.Errorf("Status = %+v, %v", st, err)
	}
}

// TestSemanticOperationsThroughServer runs both kinds through one agent,
// the language server being real csharp-ls on testdata/zoo.
func TestSemanticOperationsThroughServer(t *testing.T) {
	csharpls.Require(t)
	a := roslynagent.New(nil)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(csharpls.Zoo())); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"command": "csharp-ls", "dialect": "csharp-ls", "rootMarkers": []string{"*.sln"}, "readyTimeout": "3m"})
	if err := a.Open(context.Background(), pluginapi.OpenRequest{Root: root, Language: "csharp", Config: cfg}, nil); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = a.Shutdown(context.Background()) })
	st, _ := a.Status(context.Background())
	if st.ServerPID != 0 {
		t.Errorf("the server started on Open: %+v", st)
	}
	out, err := invoke(a, "find_implementations", `{"symbol":"IAnimal","kind":"interface"}`)
	if err != nil {
		t.Fatalf("find_implementations: %v", err)
	}
	var impls struct{ Implementations []struct{ File string } }
	if err := json.Unmarshal(out, &impls); err != nil || len(impls.Implementations) != 4 {
		t.Errorf("find_implementations = %s", out)
	}
	st, _ = a.Status(context.Background())
	if st.ServerPID == 0 {
		t.Errorf("no server after a semantic operation: %+v", st)
	}
	out, err = invoke(a, "load_status", `{}`)
	var ls struct {
		Server   string `json:"server"`
		Complete bool   `json:"complete"`
	}
	if err != nil || json.Unmarshal(out, &ls) != nil || ls.Server != "csharp-ls" || !ls.Complete {
		t.Errorf("load_status = %s, %v", out, err)
	}
	if _, err := invoke(a, "source_files", `{"project":"src/Zoo.Core/Zoo.Core.csproj"}`); err != nil {
		t.Errorf("source_files: %v", err)
	}
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(a, "list_projects", `{}`); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("after Shutdown: %v, want precondition_failed", err)
	}
}

func TestOpenChecksConfigAndRoot(t *testing.T) {
	a := roslynagent.New(nil)
	tests := []struct {
		name string
		req  pluginapi.OpenRequest
	}{
		{"no command", pluginapi.OpenRequest{Root: t.TempDir(), Language: "csharp", Config: json.RawMessage(`{}`)}},
		{"relative root", pluginapi.OpenRequest{Root: "ws", Language: "csharp", Config: json.RawMessage(`{"command":"x"}`)}},
		{"missing root", pluginapi.OpenRequest{Root: filepath.Join(t.TempDir(), "gone"), Language: "csharp", Config: json.RawMessage(`{"command":"x"}`)}},
	}
	for _, tt := range tests {
		if err := a.Open(context.Background(), tt.req, nil); err == nil {
			t.Errorf("%s: Open succeeded", tt.name)
		}
	}
}

func TestDescribe(t *testing.T) {
	d, err := roslynagent.New(nil).Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, op := range d.Operations {
		names = append(names, op.Name)
	}
	for _, want := range []string{"find_references", "rename", "find_subclasses", "find_overrides", "find_usages", "method_overloads", "load_status", "list_projects", "project_info", "project_references", "package_references", "source_files", "namespaces"} {
		if !slices.Contains(names, want) {
			t.Errorf("Describe lacks %s: %v", want, names)
		}
	}
}
