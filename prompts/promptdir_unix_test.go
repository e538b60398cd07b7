//go:build unix

package prompts_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/prompts"
)

// TestWorkspacePromptsDirHostile: .langhost/prompts as a named pipe is
// not waited on, and as a symlink to a directory outside the workspace
// is not listed or read; both are skipped with a warning.
func TestWorkspacePromptsDirHostile(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("TOKEN=hunter2"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(dir string) error
		want  string
	}{
		{"named pipe", func(dir string) error { return syscall.Mkfifo(dir, 0o644) }, "not a directory"},
		{"symlink out", func(dir string) error { return os.Symlink(outside, dir) }, "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			if err := os.MkdirAll(filepath.Join(ws.Dir(), ".langhost"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.plant(filepath.Join(ws.Dir(), ".langhost", "prompts")); err != nil {
				t.Fatal(err)
			}
			p, err := prompts.Build(prompts.Options{Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(p.Text, "hunter2") || strings.Contains(strings.Join(p.Warnings, " "), "secret.md") ||
				len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], ".langhost/prompts skipped") || !strings.Contains(p.Warnings[0], tt.want) {
				t.Errorf("warnings %q", p.Warnings)
			}
		})
	}
}
