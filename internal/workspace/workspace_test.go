package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestResolve(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "src", "pkg"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(root, "escape")))
	must(t, os.Symlink(filepath.Join(root, "src"), filepath.Join(root, "inside")))
	ws, err := New(root)
	must(t, err)

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
		{in: filepath.Join(root, "src"), want: "src"},
		{in: "..", code: failure.Precondition},
		{in: "../x", code: failure.Precondition},
		{in: "src/../../x", code: failure.Precondition},
		{in: "/etc/passwd", code: failure.Precondition},
		{in: "escape", code: failure.Precondition},
		{in: "escape/deeper/file", code: failure.Precondition},
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
