package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Git metadata and langhost's state are refused to every writer, at any
// depth, whether named directly, reached through a symlink or recognised
// by content; creating them counts.
func TestWritableRefusesGitMetadata(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".git/config":             "[core]\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		"sub/.git/config":         "[core]\n",
		"src/a.go":                "package a\n",
		".gitignore":              "bin/\n",
		".langhost/languages/x.y": "x\n",
		"bare/HEAD":               "ref: refs/heads/main\n",
		"bare/config":             "[core]\n",
		"bare/objects/.keep":      "",
		"bare/refs/.keep":         "",
		"half/objects/.keep":      "", // HEAD and refs/ would make it a repository
		"half/refs/.keep":         "",
		"docs/objects/x.md":       "x\n", // objects/ alone is nothing to git
		"gitdir-target/HEAD":      "ref: refs/heads/main\n",
		"gitdir-target/objects/a": "",
		"gitdir-target/refs/a":    "",
	}
	for name, content := range files {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	for name, target := range map[string]string{
		"x":        ".git/config", // the attack: a repository symlink to .git/config
		"hooks":    ".git/hooks",  // dangling directory link into .git
		"g":        ".git",
		"nested":   "sub/.git/config",
		"src/.git": "../gitdir-target",
	} {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	ws, err := New(root)
	must(t, err)

	for _, tt := range []struct {
		in, word string
	}{
		{".git/config", "git metadata"},
		{"x", "leads to .git/config"},
		{"nested", "leads to sub/.git/config"},
		{"g/config", "git metadata"},
		{"sub/.git/config", "git metadata"},
		{"bare/config", "git takes for a repository"},
		{"src/.git/HEAD", "git metadata"},
		{".langhost/languages/x.y", "langhost's own state"},
	} {
		_, err := ws.ResolveWrite("file", tt.in)
		checkRefused(t, "ResolveWrite", tt.in, tt.word, err)
		_, err = ws.ResolveCreate("file", tt.in)
		checkRefused(t, "ResolveCreate", tt.in, tt.word, err)
	}
	for _, tt := range []struct {
		in, word string
	}{
		{"a/.git/HEAD", "git metadata"}, // a fake repository, file by file
		{"a/.git", "git metadata"},
		{".git", "git metadata"},
		{"deep/er/.git/config", "git metadata"},
		{".GIT/config", "git metadata"}, // one and the same on macOS and Windows
		{".git./config", "git metadata"},
		{"hooks/pre-commit", "leads to .git/hooks/pre-commit"},
		{"g/hooks/post-checkout", "git metadata"},
		{"half/HEAD", "git takes for a repository"},
		{"bare/hooks/pre-commit", "git takes for a repository"},
		{"sub/.langhost/transactions/x.json", "langhost's own state"},
		{".langhost/transactions/20990101T000000000000-aaaa.json", "langhost's own state"},
	} {
		_, err := ws.ResolveCreate("file", tt.in)
		checkRefused(t, "ResolveCreate", tt.in, tt.word, err)
	}
	for _, in := range []string{"src/a.go", ".gitignore", "docs/objects/x.md"} {
		if got, err := ws.ResolveWrite("file", in); err != nil || got != filepath.Join(ws.Dir(), in) {
			t.Errorf("ResolveWrite(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"src/b.go", "new/dir/c.go", ".gitattributes", "half/notes.txt", "docs/objects/y.md", ".github/workflows/ci.yml"} {
		if got, err := ws.ResolveCreate("file", in); err != nil || got != filepath.Join(ws.Dir(), in) {
			t.Errorf("ResolveCreate(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ws.ResolveCreate("file", "."); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("ResolveCreate(.) = %v, want precondition_failed", err)
	}
}

func checkRefused(t *testing.T, op, in, word string, err error) {
	t.Helper()
	fe, ok := err.(*failure.Error)
	if !ok || fe.Code != failure.Precondition || fe.Field != "file" || !strings.Contains(fe.Message, word) {
		t.Errorf("%s(%q) = %v; want precondition_failed on input \"file\" containing %q", op, in, err, word)
	}
}
