//go:build unix

package semantic

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestMalformedServerOutputRestarts: a server that breaks the LSP framing
// fails the call in flight with an internal error that says so, is stopped,
// and is replaced by a fresh server on the next call.
func TestMalformedServerOutputRestarts(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "App.csproj"), []byte(`<Project Sdk="Microsoft.NET.Sdk"></Project>`), 0o644)
	os.WriteFile(filepath.Join(root, "Circle.cs"), []byte("public class Circle {\n    Circle c;\n}\n"), 0o644)
	cfg, _ := fakeConfig(t, "malformed")
	cfg.Dialect = DialectRoslyn
	e := openEngine(t, root, "csharp", cfg)
	pid := e.ServerPID()

	_, err := invoke(t, e, "find_symbol", map[string]any{"query": "Circle"})
	fe := wantCode(t, err, failure.Internal, "")
	if !strings.Contains(fe.Error(), `language server sent malformed output: Content-Length "lots" is not a byte count`) {
		t.Errorf("unclear error: %v", err)
	}
	if e.ServerPID() != 0 {
		t.Errorf("ServerPID = %d after the connection broke, want 0 (not running)", e.ServerPID())
	}

	out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Circle"})
	if get(t, out, "total") != 1 {
		t.Errorf("after restart: %s", dump(out))
	}
	if np := e.ServerPID(); np == pid || np == 0 {
		t.Errorf("server not replaced: pid %d, was %d", np, pid)
	}
	// Close reaps the process before the new one starts.
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the misbehaving server %d is still running", pid)
	}
}
