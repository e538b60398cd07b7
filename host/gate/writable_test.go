package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Commit writes through txnlog.Write, so the workspace's write check
// holds for the gate too: an edit naming git metadata, however it got its
// path, writes nothing and records nothing.
func TestCommitRefusesGitMetadata(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws, _ := newWorkspace(t, map[string]string{".git/config": "[core]\n", "sub/.git/config": "[core]\n", "a.txt": "a\n"})
	if err := os.Symlink(filepath.Join(".git", "config"), filepath.Join(ws.Dir(), "x")); err != nil {
		t.Fatal(err)
	}
	pwned := []byte("[core]\n\tfsmonitor = touch pwned\n")
	for _, e := range []Edit{
		{Path: ".git/config", Abs: filepath.Join(ws.Dir(), ".git", "config"), Exists: true, Old: []byte("[core]\n"), New: pwned},
		{Path: "sub/.git/config", Abs: filepath.Join(ws.Dir(), "sub", ".git", "config"), Exists: true, Old: []byte("[core]\n"), New: pwned},
		{Path: "x", Abs: filepath.Join(ws.Dir(), "x"), Exists: true, Old: []byte("[core]\n"), New: pwned},
		{Path: "a/.git/HEAD", Abs: filepath.Join(ws.Dir(), "a", ".git", "HEAD"), New: []byte("ref: refs/heads/main\n")},
		{Path: ".langhost/transactions/x.json", Abs: filepath.Join(ws.Dir(), ".langhost", "transactions", "x.json"), New: []byte("{}")},
	} {
		// A second, harmless file in the same edit is not written either.
		ok := Edit{Path: "a.txt", Abs: filepath.Join(ws.Dir(), "a.txt"), Exists: true, Old: []byte("a\n"), New: []byte("b\n")}
		_, err := Commit(ws, "t", "write_file", nil, []Edit{ok, e}, nil)
		if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), e.Path) {
			t.Errorf("Commit(%s) = %v, want precondition_failed naming it", e.Path, err)
		}
	}
	for name, want := range map[string]string{".git/config": "[core]\n", "sub/.git/config": "[core]\n", "a.txt": "a\n"} {
		if got, _ := os.ReadFile(filepath.Join(ws.Dir(), name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"a", ".langhost"} {
		if _, err := os.Lstat(filepath.Join(ws.Dir(), name)); !os.IsNotExist(err) {
			t.Errorf("a refused commit created %s: %v", name, err)
		}
	}
	if recs, _ := txnlog.List(ws.Dir()); len(recs) != 0 {
		t.Errorf("a refused commit was recorded: %v", recs)
	}
}
