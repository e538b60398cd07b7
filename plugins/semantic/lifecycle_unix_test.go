//go:build unix

package semantic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestCrashDuringCall(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "App.csproj"), []byte(`<Project Sdk="Microsoft.NET.Sdk"></Project>`), 0o644)
	os.WriteFile(filepath.Join(root, "Circle.cs"), []byte("public class Circle {\n    Circle c;\n}\n"), 0o644)
	cfg, _ := fakeConfig(t, "roslyn")
	t.Setenv("FAKEROSLYN_NEVER_ANSWER", "textDocument/implementation")
	e := openEngine(t, root, "csharp", cfg)
	pid := e.ServerPID()
	done := make(chan error, 1)
	go func() {
		_, err := invoke(t, e, "find_implementations", map[string]any{"file": "Circle.cs", "line": 1, "column": 14})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case err := <-done:
		fe := wantCode(t, err, failure.Internal, "")
		if !strings.Contains(fe.Error(), "language server exited") || !strings.Contains(fe.Error(), "killed") {
			t.Errorf("unclear error: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("call did not fail after the server was killed")
	}
	out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Circle"})
	if get(t, out, "total") != 1 || e.ServerPID() == pid {
		t.Errorf("after restart: %s (pid %d, was %d)", dump(out), e.ServerPID(), pid)
	}
}

func TestGoplsRestartAndApply(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)

	pid := e.ServerPID()
	syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(200 * time.Millisecond)
	out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "TotalArea"})
	if get(t, out, "total") != 2 || locOf(t, out, "references.0") != "calc/calc.go:28:9" {
		t.Errorf("after restart: %s", dump(out))
	}
	if e.ServerPID() == pid || e.ServerPID() == 0 {
		t.Errorf("server was not restarted")
	}
	st, _ := e.Status(context.Background())
	if !st.Ready || st.Server != "gopls" {
		t.Errorf("status = %+v", st)
	}

	raw, _ := json.Marshal(map[string]any{"symbol": "TotalArea", "newName": "SumAreas", "apply": true})
	res, err := e.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "rename", Input: raw, Confirmed: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"applied":true`) {
		t.Errorf("rename result %s", res)
	}
	got := readFile(t, root, "calc/calc.go")
	if strings.Contains(got, "TotalArea(") || strings.Count(got, "SumAreas(") != 3 {
		t.Errorf("calc.go after rename:\n%s", got)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "calc"))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// The server saw the change.
	out = mustInvoke(t, e, "find_references", map[string]any{"symbol": "SumAreas"})
	if get(t, out, "total") != 2 {
		t.Errorf("references to the renamed function: %s", dump(out))
	}
}
