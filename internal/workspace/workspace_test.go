package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// fixture builds a workspace with the symlinks the confinement tests need
// and a directory outside it.
//
//	root/src/pkg/a.go
//	root/escape      -> outside            (dir outside)
//	root/secret      -> outside/secret.txt (file outside)
//	root/inside      -> root/src           (dir inside, absolute)
//	root/rel.go      -> src/pkg/a.go       (file inside, relative)
//	root/chain       -> rel.go             (link to a link inside)
//	root/chainout    -> secret             (link to a link outside)
//	root/dangling    -> outside/new.txt    (dangling, outside)
//	root/dangin      -> src/missing.go     (dangling, inside)
//	root/dotdot      -> ../outside-ish     (relative escape)
//	root/loop        -> loop
func fixture(t *testing.T) (*Root, string) {
	t.Helper()
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "src", "pkg", "a.go"), []byte("package pkg\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o600))
	links := map[string]string{
		"escape":   outside,
		"secret":   filepath.Join(outside, "secret.txt"),
		"inside":   filepath.Join(root, "src"),
		"rel.go":   filepath.Join("src", "pkg", "a.go"),
		"chain":    "rel.go",
		"chainout": "secret",
		"dangling": filepath.Join(outside, "new.txt"),
		"dangin":   filepath.Join("src", "missing.go"),
		"dotdot":   filepath.Join("..", filepath.Base(outside)),
		"loop":     "loop",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(root, name)))
	}
	ws, err := New(root)
	must(t, err)
	return ws, outside
}

func TestResolve(t *testing.T) {
	ws, outside := fixture(t)
	tests := []struct {
		in   string
		want string // relative to the root; "" means an error of class code
		code failure.Code
	}{
		{in: "src/pkg", want: "src/pkg"},
		{in: ".", want: "."},
		{in: "./...", want: "..."},
		{in: "src/../src/new.go", want: "src/new.go"},
		{in: "inside/pkg", want: "inside/pkg"},
		{in: "rel.go", want: "rel.go"},
		{in: "chain", want: "chain"},
		{in: "dangin", want: "dangin"}, // points inside: a tool may create it
		{in: filepath.Join(ws.Dir(), "src"), want: "src"},
		{in: "..", code: failure.Precondition},
		{in: "../x", code: failure.Precondition},
		{in: "src/../../x", code: failure.Precondition},
		{in: "/etc/passwd", code: failure.Precondition},
		{in: outside, code: failure.Precondition},
		{in: "escape", code: failure.Precondition},
		{in: "escape/deeper/file", code: failure.Precondition},
		{in: "secret", code: failure.Precondition},
		{in: "chainout", code: failure.Precondition},
		{in: "dangling", code: failure.Precondition},
		{in: "dotdot", code: failure.Precondition},
		{in: "dotdot/secret.txt", code: failure.Precondition},
		{in: "loop", code: failure.InvalidInput},
		{in: "src/pkg/a.go/x", code: failure.InvalidInput},
		{in: "a\x00b", code: failure.InvalidInput},
		{in: "", code: failure.InvalidInput},
	}
	for _, tt := range tests {
		got, err := ws.Resolve("path", tt.in)
		if tt.want == "" {
			if failure.CodeOf(err) != tt.code {
				t.Errorf("Resolve(%q) = %q, %v; want %s error", tt.in, got, err, tt.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.in, err)
			continue
		}
		if want := filepath.Join(ws.Dir(), tt.want); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, want)
		}
	}
}

func TestResolveReadWrite(t *testing.T) {
	ws, outside := fixture(t)
	must(t, os.Mkdir(filepath.Join(ws.Dir(), "fifo-dir"), 0o755))
	tests := []struct {
		in                   string
		read, write          string // real path relative to the root, or "" for an error
		readCode, writeCode  failure.Code
		readWords, writeWord string // a word the error message must contain
	}{
		{in: "src/pkg/a.go", read: "src/pkg/a.go", write: "src/pkg/a.go"},
		{in: "rel.go", read: "src/pkg/a.go", write: "src/pkg/a.go"},
		{in: "chain", read: "src/pkg/a.go", write: "src/pkg/a.go"},
		{in: "inside/pkg/a.go", read: "src/pkg/a.go", write: "src/pkg/a.go"},
		{in: filepath.Join(ws.Dir(), "inside", "pkg", "a.go"), read: "src/pkg/a.go", write: "src/pkg/a.go"},
		{in: "src/pkg", read: "src/pkg", writeCode: failure.Precondition, writeWord: "not a regular file"},
		{in: "src/nope.go", readCode: failure.NotFound, writeCode: failure.NotFound, readWords: "does not exist", writeWord: "does not exist"},
		{in: "dangin", readCode: failure.NotFound, writeCode: failure.Precondition, readWords: "src/missing.go", writeWord: "dangling symlink"},
		{in: "dangling", readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "symlink", writeWord: "symlink"},
		{in: "secret", readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "symlink", writeWord: "symlink"},
		{in: "escape/secret.txt", readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "symlink", writeWord: "symlink"},
		{in: "chainout", readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "symlink", writeWord: "symlink"},
		{in: "dotdot/secret.txt", readCode: failure.Precondition, writeCode: failure.Precondition},
		{in: "../" + filepath.Base(outside) + "/secret.txt", readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "outside", writeWord: "outside"},
		{in: filepath.Join(outside, "secret.txt"), readCode: failure.Precondition, writeCode: failure.Precondition, readWords: "outside", writeWord: "outside"},
		{in: "loop", readCode: failure.InvalidInput, writeCode: failure.InvalidInput},
	}
	check := func(op, in, want string, code failure.Code, word string, got string, err error) {
		t.Helper()
		if want != "" {
			if err != nil {
				t.Errorf("%s(%q): %v", op, in, err)
			} else if got != filepath.Join(ws.Dir(), want) {
				t.Errorf("%s(%q) = %q, want %q", op, in, got, filepath.Join(ws.Dir(), want))
			}
			return
		}
		fe, ok := err.(*failure.Error)
		if !ok || fe.Code != code || fe.Field != "file" || !strings.Contains(fe.Message, word) {
			t.Errorf("%s(%q) = %q, %v; want a %s error about input \"file\" containing %q", op, in, got, err, code, word)
		}
	}
	for _, tt := range tests {
		got, err := ws.ResolveRead("file", tt.in)
		check("ResolveRead", tt.in, tt.read, tt.readCode, tt.readWords, got, err)
		got, err = ws.ResolveWrite("file", tt.in)
		check("ResolveWrite", tt.in, tt.write, tt.writeCode, tt.writeWord, got, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("resolving created a file outside the workspace: %v", err)
	}
}

// A root given through a symlinked parent is resolved, and absolute paths
// through either spelling are accepted.
func TestRootAlias(t *testing.T) {
	real := t.TempDir()
	must(t, os.WriteFile(filepath.Join(real, "a.go"), []byte("package a\n"), 0o644))
	alias := filepath.Join(t.TempDir(), "alias")
	must(t, os.Symlink(real, alias))
	ws, err := New(alias)
	must(t, err)
	for _, in := range []string{"a.go", filepath.Join(alias, "a.go"), filepath.Join(real, "a.go")} {
		got, err := ws.ResolveRead("file", in)
		if err != nil || got != filepath.Join(ws.Dir(), "a.go") {
			t.Errorf("ResolveRead(%q) = %q, %v", in, got, err)
		}
		if got, err := ws.Resolve("file", in); err != nil || got != filepath.Join(ws.Dir(), "a.go") {
			t.Errorf("Resolve(%q) = %q, %v", in, got, err)
		}
	}
}

func TestRel(t *testing.T) {
	tests := []struct{ dir, abs, want string }{
		{"/w", "/w", "."},
		{"/w", "/w/a/b", "./a/b"},
		{"/w", "/w/...", "./..."},
		{"/w/sub", "/w/a", "../a"},
	}
	for _, tt := range tests {
		if got := Rel(tt.dir, tt.abs); got != tt.want {
			t.Errorf("Rel(%q, %q) = %q, want %q", tt.dir, tt.abs, got, tt.want)
		}
	}
}

func BenchmarkResolveRead(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := New(root)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ws.ResolveRead("file", "a/b/c/f.go"); err != nil {
			b.Fatal(err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
