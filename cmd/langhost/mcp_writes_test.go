package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Go module of two packages: greet.Hello is declared in one file and
// called from another.
const (
	greetGo = "package greet\n\n// Hello greets.\nfunc Hello() string { return \"hi\" }\n"
	useGo   = "package main\n\nimport \"example.com/broken/greet\"\n\nfunc main() { println(greet.Hello()) }\n"
)

func renameWorkspace(t *testing.T) mcpFixture {
	t.Helper()
	requireGopls(t)
	f := goWorkspace(t)
	if err := os.Mkdir(filepath.Join(f.workspace, "greet"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.workspace, "greet", "greet.go"), greetGo)
	write(t, filepath.Join(f.workspace, "main.go"), useGo)
	return f
}

func readWS(t *testing.T, f mcpFixture, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.workspace, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cli runs the langhost binary in the fixture's environment.
func (f mcpFixture) cli(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := f.command(t)
	cmd.Args = append([]string{cmd.Args[0]}, append(args, "--workspace", f.workspace)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestMCPWritesClientApproval: with a default server, a real MCP client
// renames a symbol across two files (its own approval being the user's
// confirmation), the rename is recorded, and langhost undo restores both
// files. The server writes nothing on stderr meanwhile.
func TestMCPWritesClientApproval(t *testing.T) {
	f := renameWorkspace(t)
	cs, stderr := startStdio(t, f, nil)

	tools := listTools(t, cs)
	for name, want := range map[string]struct{ readOnly, destructive, idempotent bool }{
		"go_rename_symbol":     {false, true, false},
		"go_edit_file":         {false, true, false},
		"go_rename":            {false, true, false},
		"workspace_write_file": {false, true, false},
		"go_find_references":   {true, false, true},
		"go_build":             {false, false, true},
	} {
		tool := tools[name]
		if tool == nil {
			t.Errorf("%s is not served", name)
			continue
		}
		a := tool.Annotations
		if a.ReadOnlyHint != want.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != want.destructive || a.IdempotentHint != want.idempotent {
			t.Errorf("%s: readOnly %v destructive %v idempotent %v, want %+v", name, a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, want)
		}
	}
	for _, hidden := range []string{"go_fmt", "go_mod_tidy"} {
		if tools[hidden] != nil {
			t.Errorf("%s writes in place, without undo, and is served without --allow", hidden)
		}
	}

	res, st := callTool(t, cs, "go_rename_symbol", map[string]any{"file": "greet/greet.go", "symbol": "Hello", "new_name": "Greet"})
	if res.IsError || st["applied"] != true || st["transaction_id"] == nil {
		t.Fatalf("rename: isError=%v applied=%v\n%s", res.IsError, st["applied"], resultText(res))
	}
	if got := readWS(t, f, "greet/greet.go"); !strings.Contains(got, "func Greet()") {
		t.Errorf("greet.go after rename:\n%s", got)
	}
	if got := readWS(t, f, "main.go"); !strings.Contains(got, "greet.Greet()") {
		t.Errorf("main.go after rename:\n%s", got)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("stderr of a normal session is not empty:\n%s", s)
	}

	if out, err := f.cli(t, "undo"); err != nil {
		t.Fatalf("langhost undo: %v\n%s", err, out)
	}
	if got := readWS(t, f, "greet/greet.go"); got != greetGo {
		t.Errorf("greet.go after undo:\n%s", got)
	}
	if got := readWS(t, f, "main.go"); got != useGo {
		t.Errorf("main.go after undo:\n%s", got)
	}
}

// TestMCPWritesAllowMode: a server started with --writes allow writes only
// with the tools it is told to allow, and a refusal names the flags that
// lift it. An untrusted workspace's tools.allow allows nothing.
func TestMCPWritesAllowMode(t *testing.T) {
	f := renameWorkspace(t)
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "tools:\n  allow: [\"*\"]\n")
	cs, _ := startStdio(t, f, nil, "--writes", "allow")

	tools := listTools(t, cs)
	if tools["go_fmt"] != nil || tools["workspace_write_file"] != nil {
		t.Error("tools needing confirmation are served in --writes allow without --allow (the workspace's tools.allow counted?)")
	}
	rename := map[string]any{"file": "greet/greet.go", "symbol": "Hello", "new_name": "Greet"}
	res, st := callTool(t, cs, "go_rename_symbol", rename)
	e, _ := st["error"].(map[string]any)
	if !res.IsError || e["code"] != "precondition_failed" || !strings.Contains(e["message"].(string), "--allow go.rename_symbol") ||
		!strings.Contains(e["message"].(string), "--writes client") {
		t.Fatalf("rename in --writes allow: isError=%v error=%v", res.IsError, e)
	}
	rename["dry_run"] = true
	if res, st := callTool(t, cs, "go_rename_symbol", rename); res.IsError || st["applied"] == true {
		t.Errorf("dry run refused or applied: %s", resultText(res))
	}
	if got := readWS(t, f, "greet/greet.go"); got != greetGo {
		t.Errorf("greet.go changed:\n%s", got)
	}

	// A preview of go_rename may not be applied either.
	res, st = callTool(t, cs, "go_rename", map[string]any{"file": "greet/greet.go", "line": 4, "column": 6, "new_name": "Greet"})
	id, _ := st["preview_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("preview: %s", resultText(res))
	}
	res, st = callTool(t, cs, "langhost_apply", map[string]any{"preview_id": id})
	if e, _ := st["error"].(map[string]any); !res.IsError || !strings.Contains(e["message"].(string), "--allow go.rename") {
		t.Errorf("apply in --writes allow: %s", resultText(res))
	}
	if got := readWS(t, f, "main.go"); got != useGo {
		t.Errorf("main.go changed:\n%s", got)
	}
}

// TestMCPWritesAllowed: --writes allow with --allow lets that tool write.
func TestMCPWritesAllowed(t *testing.T) {
	f := renameWorkspace(t)
	cs, _ := startStdio(t, f, nil, "--writes", "allow", "--allow", "go.rename_symbol")
	res, _ := callTool(t, cs, "go_rename_symbol", map[string]any{"file": "greet/greet.go", "symbol": "Hello", "new_name": "Greet"})
	if res.IsError {
		t.Fatalf("allowed rename: %s", resultText(res))
	}
	if got := readWS(t, f, "main.go"); !strings.Contains(got, "greet.Greet()") {
		t.Errorf("main.go after rename:\n%s", got)
	}
}

func TestMCPWritesModeRefused(t *testing.T) {
	f := newMCPFixture(t)
	cmd := f.command(t, "--writes", "always")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "--writes") {
		t.Errorf("--writes always: %v\n%s", err, out)
	}
}

func TestMCPWritesDefaults(t *testing.T) {
	for _, tc := range []struct {
		writes, http, want string
	}{
		{"", "", "client"},
		{"", "127.0.0.1:0", "allow"},
		{"client", "127.0.0.1:0", "client"},
		{"allow", "", "allow"},
	} {
		if got := writesMode(tc.writes, tc.http); got != tc.want {
			t.Errorf("writes %q http %q: %s, want %s", tc.writes, tc.http, got, tc.want)
		}
	}
}

// TestMCPHTTPWritesNeedAllow: over HTTP, whose clients may be another
// local process than the user's agent, writes need --allow by default
// (--writes allow): a write is refused naming the flags, nothing is
// written, and tools that need confirmation are hidden.
func TestMCPHTTPWritesNeedAllow(t *testing.T) {
	f := goWorkspace(t)
	url := startHTTP(t, f, []string{"LANGHOST_MCP_TOKEN=s3cret"}, "--prewarm=false")
	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-test"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearerTransport{"s3cret", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if tools := listTools(t, cs); tools["workspace_write_file"] != nil || tools["go_edit_file"] == nil {
		t.Errorf("over HTTP: workspace_write_file listed %v, go_edit_file listed %v", tools["workspace_write_file"] != nil, tools["go_edit_file"] != nil)
	}
	before := readWS(t, f, "main.go")
	res, st := callTool(t, cs, "go_edit_file", map[string]any{"file": "main.go", "content": "package main\n"})
	e, _ := st["error"].(map[string]any)
	if msg, _ := e["message"].(string); !res.IsError || e["code"] != "precondition_failed" || !strings.Contains(msg, "--allow go.edit_file") || !strings.Contains(msg, "--writes client") {
		t.Errorf("edit over HTTP: %s", resultText(res))
	}
	if got := readWS(t, f, "main.go"); got != before {
		t.Errorf("main.go changed:\n%s", got)
	}
}

// TestMCPWritesFromConfig: the user's config says mcp.writes: allow, and
// an untrusted workspace's mcp.writes: client does not widen it back.
func TestMCPWritesFromConfig(t *testing.T) {
	f := goWorkspace(t)
	write(t, filepath.Join(f.config, "langhost", "config.yaml"), "mcp:\n  writes: allow\n")
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "mcp:\n  writes: client\n")
	cs, _ := startStdio(t, f, nil, "--prewarm=false")
	res, st := callTool(t, cs, "go_edit_file", map[string]any{"file": "main.go", "content": "package main\n"})
	e, _ := st["error"].(map[string]any)
	if msg, _ := e["message"].(string); !res.IsError || e["code"] != "precondition_failed" || !strings.Contains(msg, "--allow go.edit_file") {
		t.Errorf("edit with mcp.writes: allow: %s", resultText(res))
	}
}
