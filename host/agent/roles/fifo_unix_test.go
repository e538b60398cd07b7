//go:build unix

package roles_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/prompts"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// TestUntrustedDirectoryFIFO is the named pipe case of
// TestUntrustedDirectoryAttacks: a role file that is a FIFO is refused,
// not waited on.
func TestUntrustedDirectoryFIFO(t *testing.T) {
	embedded := roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, "coder.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := roles.Load(embedded, roles.Source{Name: "workspace", Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("err = %v", err)
	}
}
