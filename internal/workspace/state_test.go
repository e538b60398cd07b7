package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestIgnoreState(t *testing.T) {
	tests := []struct {
		name     string
		existing *string // .langhost/.gitignore before; nil: none
		want     []string
		keep     string // a line of the user's that must survive
	}{
		{name: "none", want: []string{"/runs/", "/bench/", "/transactions/"}},
		{name: "user's own", existing: ptr("/notes/\n/bench/"), want: []string{"/runs/", "/transactions/"}, keep: "/notes/"},
		{name: "negated by the repository", existing: ptr("/runs/\n/bench/\n/transactions/\n!runs/\n"), want: []string{"/runs/"}, keep: "!runs/"},
		{name: "complete", existing: ptr("/runs/\n/bench/\n/transactions/\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, ".langhost", ".gitignore")
			if tt.existing != nil {
				must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				must(t, os.WriteFile(p, []byte(*tt.existing), 0o644))
			}
			ws, err := New(root)
			must(t, err)
			for range 2 { // idempotent
				must(t, ws.IgnoreState())
			}
			b, err := os.ReadFile(p)
			must(t, err)
			got := string(b)
			if tt.existing != nil && !strings.HasPrefix(got, *tt.existing) && !strings.HasPrefix(got, *tt.existing+"\n") {
				t.Errorf("the user's content was not kept:\n%s", got)
			}
			added := strings.TrimPrefix(got, derefOr(tt.existing))
			for _, w := range tt.want {
				if strings.Count(added, w+"\n") != 1 {
					t.Errorf("%s not added once:\n%s", w, got)
				}
			}
			if tt.want == nil && tt.existing != nil && got != *tt.existing {
				t.Errorf("a complete file was rewritten:\n%s", got)
			}
		})
	}
}

// A repository's .langhost/.gitignore that is a symlink (to .git/config,
// say) is never written through; nor is a .langhost that is a symlink.
func TestIgnoreStateRefusesSymlinks(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(root, ".langhost"), 0o755))
	must(t, os.Symlink(filepath.Join("..", ".git", "config"), filepath.Join(root, ".langhost", ".gitignore")))
	ws, err := New(root)
	must(t, err)
	if err := ws.IgnoreState(); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("IgnoreState through a symlink = %v, want precondition_failed", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config = %q", b)
	}

	root = t.TempDir()
	outside := t.TempDir()
	must(t, os.Symlink(outside, filepath.Join(root, ".langhost")))
	ws, err = New(root)
	must(t, err)
	if err := ws.IgnoreState(); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("IgnoreState with .langhost a symlink = %v, want precondition_failed", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
}

func ptr(s string) *string { return &s }

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
