//go:build unix

package semantic

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// edit_file refuses to write a named pipe, a directory, or through a
// dangling symlink (leading out or not), and creates nothing doing so.
func TestGoplsTransactionNonRegularTargets(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "missing.go"), filepath.Join(root, "dangling.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere.go", filepath.Join(root, "dangling-in.go")); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"pipe.go", "calc", "dangling.go", "dangling-in.go"} {
		_, _, err := txnInvoke(t, e, "edit_file", map[string]any{"file": file, "content": "package x\n"})
		wantCode(t, err, failure.Precondition, "file")
	}
	if _, err := os.Lstat(filepath.Join(root, "nowhere.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a write through a dangling symlink created its target")
	}
}
