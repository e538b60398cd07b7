package workspace

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// write is one write a hostile agent asks for, in order.
type write struct{ path, content string }

// gitSequences are write sequences that assemble, file by file, a
// directory real git takes for a repository (issue 24): through a
// commondir file (relative or absolute, written first or last), with HEAD
// a symref or a detached hash, and the target of a .git file the
// repository ships ("gitdir:"). shipped is what the repository holds
// before; probe are directories git must find no repository in besides
// the ones written.
var gitSequences = []struct {
	name    string
	shipped map[string]string
	writes  []write
	probe   []string
}{
	{name: "the issue's commondir", writes: []write{
		{"docs/gd/HEAD", "ref: refs/heads/main\n"},
		{"docs/gd/commondir", "../common\n"},
		{"docs/common/config", "[core]\n\tpager = touch pwned\n"},
		{"docs/common/objects/info/alternates", "/nonexistent\n"},
		{"docs/common/refs/heads/main", "0123456789012345678901234567890123456789\n"},
	}},
	{name: "commondir written last, absolute", writes: []write{
		{"docs/common/config", "[core]\n\tpager = touch pwned\n"},
		{"docs/common/objects/pack/x", ""},
		{"docs/common/refs/heads/main", "0123456789012345678901234567890123456789\n"},
		{"docs/gd/HEAD", "0123456789012345678901234567890123456789\n"},
		{"docs/gd/commondir", "$ROOT/docs/common"},
	}},
	{name: "HEAD written last, detached", writes: []write{
		{"a/b/commondir", "../../c\r\n"},
		{"c/objects/x", ""},
		{"c/refs/x", ""},
		{"c/config", "[core]\n\tpager = touch pwned\n"},
		{"a/b/HEAD", "0123456789012345678901234567890123456789"},
	}},
	{name: "common directory shipped, made one by the writes", shipped: map[string]string{
		"docs/gd/HEAD": "ref: refs/heads/main\n", "docs/gd/commondir": "../common\n", "docs/common/refs/heads/main": "0123456789012345678901234567890123456789\n",
	}, writes: []write{
		{"docs/common/config", "[core]\n\tpager = touch pwned\n"},
		{"docs/common/objects/info/alternates", "/nonexistent\n"},
	}, probe: []string{"docs/gd"}},
	{name: "commondir through a shipped symlink", shipped: map[string]string{
		"docs/gd/HEAD": "ref: refs/heads/main\n", "docs/gd/commondir": "../link/\n", "docs/link": "symlink:common",
	}, writes: []write{
		{"docs/common/objects/x", ""},
		{"docs/common/refs/heads/main", "0123456789012345678901234567890123456789\n"},
		{"docs/common/config", "[core]\n\tpager = touch pwned\n"},
	}, probe: []string{"docs/gd"}},
	{name: "target of a shipped .git file", shipped: map[string]string{
		"sub/.git": "gitdir: ../docs/gd\n", "sub/README": "x\n",
	}, writes: []write{
		{"docs/gd/config", "[core]\n\tpager = touch pwned\n"},
		{"docs/gd/objects/x", ""},
		{"docs/gd/refs/heads/main", "0123456789012345678901234567890123456789\n"},
		{"docs/gd/HEAD", "ref: refs/heads/main\n"},
	}, probe: []string{"sub"}},
	{name: "target of a shipped .git file, through commondir", shipped: map[string]string{
		"sub/.git": "gitdir: ../docs/gd\n", "docs/gd/commondir": "../common\n",
	}, writes: []write{
		{"docs/gd/HEAD", "ref: refs/heads/main\n"},
		{"docs/common/objects/x", ""},
		{"docs/common/refs/heads/main", "0123456789012345678901234567890123456789\n"},
	}, probe: []string{"sub"}},
	{name: "bare repository", writes: []write{
		{"x/HEAD", "ref: refs/heads/main\n"},
		{"x/config", "[core]\n\tpager = touch pwned\n"},
		{"x/objects/x", ""},
		{"x/refs/heads/main", "0123456789012345678901234567890123456789\n"},
	}},
}

// TestWritesNeverMakeAGitRepository: for each sequence, every write that
// langhost's check lets through is made, and after each one real git
// (rev-parse --git-dir), run in every directory written so far and its
// parents, finds no repository. A refused write names its file and says
// why. Without the check the same writes do make one, which real git
// confirms, so each sequence is a real attack.
func TestWritesNeverMakeAGitRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required: ", err)
	}
	for _, seq := range gitSequences {
		t.Run(seq.name, func(t *testing.T) {
			// Unchecked, the writes make a repository.
			raw := shipRepo(t, seq.shipped)
			for _, w := range seq.writes {
				writeFile(t, raw, w.path, strings.ReplaceAll(w.content, "$ROOT", raw))
			}
			if !anyRepository(t, raw, touched(seq.writes, seq.probe)) {
				t.Fatalf("the writes unchecked make no repository: not an attack")
			}

			root := shipRepo(t, seq.shipped)
			ws, err := New(root)
			if err != nil {
				t.Fatal(err)
			}
			refused := 0
			for i, w := range seq.writes {
				p, err := ws.ResolveWrite("path", w.path)
				if failure.CodeOf(err) == failure.NotFound {
					p, err = ws.ResolveCreate("path", w.path)
				}
				if err != nil {
					var fe *failure.Error
					if !errors.As(err, &fe) || fe.Code != failure.Precondition || fe.Field != "path" ||
						!strings.Contains(fe.Message, w.path) || !strings.Contains(fe.Message, "git") {
						t.Errorf("write %s: %v; want precondition_failed on path naming the file and why", w.path, err)
					}
					refused++
					continue
				}
				writeFile(t, root, mustRel(t, root, p), strings.ReplaceAll(w.content, "$ROOT", root))
				if anyRepository(t, root, touched(seq.writes[:i+1], seq.probe)) {
					t.Fatalf("after writing %s git finds a repository", w.path)
				}
			}
			if refused == 0 {
				t.Error("no write was refused")
			}
		})
	}
}

// shipRepo makes a workspace holding files; a content "symlink:T" makes a
// symlink to T.
func shipRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		if target, ok := strings.CutPrefix(content, "symlink:"); ok {
			must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
			must(t, os.Symlink(target, filepath.Join(root, name)))
			continue
		}
		writeFile(t, root, name, content)
	}
	return root
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), 0o644))
}

func mustRel(t *testing.T, root, p string) string {
	t.Helper()
	rel, err := filepath.Rel(root, p)
	must(t, err)
	return rel
}

// touched is every directory of the writes and their parents, and probe.
func touched(writes []write, probe []string) []string {
	seen := map[string]bool{".": true}
	dirs := []string{"."}
	for _, w := range writes {
		for d := filepath.Dir(filepath.FromSlash(w.path)); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return append(dirs, probe...)
}

// anyRepository reports whether git, in any of dirs that exist, finds a
// repository inside root (it is kept from looking above root).
func anyRepository(t *testing.T, root string, dirs []string) bool {
	t.Helper()
	for _, d := range dirs {
		dir := filepath.Join(root, d)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		cmd := exec.Command("git", "rev-parse", "--git-dir")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(root), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Logf("git in %s finds %s", d, strings.TrimSpace(string(out)))
			return true
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("git: %v", err)
		}
	}
	return false
}
