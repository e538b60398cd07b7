//go:build unix

package prompts_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/prompts"
)

// TestWorkspaceLayerFIFO is the named pipe case of
// TestWorkspaceLayerAttacks: an AGENTS.md that is a FIFO is skipped with a
// warning, not waited on.
func TestWorkspaceLayerFIFO(t *testing.T) {
	ws := newWorkspace(t, nil)
	if err := syscall.Mkfifo(filepath.Join(ws.Dir(), "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := prompts.Build(prompts.Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "not a regular file") {
		t.Errorf("warnings %q", p.Warnings)
	}
}
