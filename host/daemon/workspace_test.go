package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/filetools"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestWorkspaceWritesWithoutServerAreRefused: the daemon runs a workspace
// write only when a language server checks it. A write no server checks
// (here: no spec knows the file; a gate tool would run a command with the
// daemon's environment) and the other workspace tools are refused before
// they touch the workspace, whatever a caller sends.
func TestWorkspaceWritesWithoutServerAreRefused(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := filetools.Register(reg, filetools.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c, _ := serveRegistry(t, time.Hour, &host.Host{Registry: reg, Workspace: ws})
	tests := []struct {
		name  string
		tool  string
		input map[string]any
	}{
		{"write of a file no server checks", "workspace.write_file", map[string]any{"path": "notes.txt", "content": "x"}},
		{"write of a Go file without a go spec", "workspace.write_file", map[string]any{"path": "a.go", "content": "package b\n"}},
		{"replace", "workspace.replace_in_file", map[string]any{"path": "a.go", "edits": []any{map[string]any{"old_text": "a", "new_text": "b"}}}},
		{"path outside the workspace", "workspace.write_file", map[string]any{"path": "../escape.go", "content": "x"}},
		{"path of another type", "workspace.write_file", map[string]any{"path": 7, "content": "x"}},
		{"no input", "workspace.write_file", nil},
		{"undo", "workspace.undo", map[string]any{}},
		{"read", "workspace.read_file", map[string]any{"path": "a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.call(context.Background(), CallRequest{Tool: tt.tool, Input: tt.input, Confirmed: true})
			var fe *failure.Error
			if res != nil || failure.CodeOf(err) != failure.InvalidInput || !errors.As(err, &fe) || fe.Field != "tool" {
				t.Fatalf("res %+v, err %v (code %s), want invalid_input on field tool", res, err, failure.CodeOf(err))
			}
		})
	}
	for _, name := range []string{"notes.txt", "../escape.go"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after refused calls: %v", name, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(got) != "package a\n" {
		t.Errorf("a.go changed: %q", got)
	}
}
