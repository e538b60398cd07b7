package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		perm    os.FileMode
		check   func(t *testing.T, path string)
		wantErr bool
	}{
		{name: "new file", perm: 0o640},
		{name: "replaces a file", perm: 0o600, setup: func(t *testing.T, path string) {
			write(t, path, "old content that is longer than the new one\n", 0o644)
		}},
		{name: "replaces a symlink, never writes through it", perm: 0o644, setup: func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "target")
			write(t, target, "target\n", 0o644)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if got := read(t, target); got != "target\n" {
					t.Errorf("the symlink's target was written: %q", got)
				}
			})
		}},
		{name: "directory in the way", perm: 0o644, wantErr: true, setup: func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Join(path, "child"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.md")
			if tt.setup != nil {
				tt.setup(t, path)
			}
			err := WriteFile(path, []byte("new\n"), tt.perm)
			if tt.wantErr {
				if err == nil {
					t.Fatal("WriteFile succeeded")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if got := read(t, path); got != "new\n" {
					t.Errorf("content %q", got)
				}
				fi, err := os.Lstat(path)
				if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != tt.perm {
					t.Errorf("mode %v (%v), want a regular file with %v", fi.Mode(), err, tt.perm)
				}
			}
			noLeftovers(t, dir)
		})
	}
}

func TestReplaceAll(t *testing.T) {
	const oldA, newA, oldB, newB = "package a\n", "package a // new\n", "package b\n", "package b // new\n"
	type env struct{ dir, a, b string }
	tests := []struct {
		name     string
		sabotage func(t *testing.T, v env)
		check    func(Replacement) error
		rename   func(v env) func(from, to string) error
		code     failure.Code // "" for success
		message  string
		wantA    string
		after    func(t *testing.T, v env, err error)
	}{
		{name: "both written", wantA: newA, after: func(t *testing.T, v env, err error) {
			if got := read(t, v.b); got != newB {
				t.Errorf("b = %q", got)
			}
			if fi, _ := os.Stat(v.a); fi.Mode().Perm() != 0o640 {
				t.Errorf("a lost its mode: %v", fi.Mode())
			}
		}},
		{name: "second file changed on disk", sabotage: func(t *testing.T, v env) { write(t, v.b, "package b // edited\n", 0o644) },
			code: failure.Precondition, message: "b.go changed on disk since the edit was computed; nothing was written", wantA: oldA},
		{name: "second file is gone", sabotage: func(t *testing.T, v env) { os.Remove(v.b) },
			code: failure.Precondition, message: "b.go", wantA: oldA},
		{name: "second file became a symlink", sabotage: func(t *testing.T, v env) {
			os.Remove(v.b)
			os.Symlink(v.a, v.b)
		}, code: failure.Precondition, message: "b.go is not a regular file any more", wantA: oldA},
		{name: "check refuses", check: func(r Replacement) error {
			if r.Name == "b.go" {
				return failure.New(failure.Precondition, "b.go left the workspace")
			}
			return nil
		}, code: failure.Precondition, message: "left the workspace", wantA: oldA},
		{name: "rename fails midway", rename: func(v env) func(from, to string) error {
			return func(from, to string) error {
				if to == v.b {
					return fmt.Errorf("injected failure")
				}
				return os.Rename(from, to)
			}
		}, code: failure.Internal, message: "writing b.go failed; nothing was changed (1 earlier file(s) were restored)", wantA: oldA},
		{name: "rollback fails", rename: func(v env) func(from, to string) error {
			return func(from, to string) error {
				if to == v.b || strings.Contains(from, ".langhost-old-") {
					return fmt.Errorf("injected failure")
				}
				return os.Rename(from, to)
			}
		}, code: failure.Internal, message: "could not be restored", wantA: newA, after: func(t *testing.T, v env, err error) {
			// Nothing is lost: the error names the backup holding the old content.
			_, rest, _ := strings.Cut(err.Error(), "its old content is in ")
			backup, _, _ := strings.Cut(rest, ":")
			if got := read(t, backup); got != oldA {
				t.Errorf("backup %q = %q, want the old content", backup, got)
			}
			os.Remove(backup)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := env{dir: t.TempDir()}
			v.a, v.b = filepath.Join(v.dir, "a.go"), filepath.Join(v.dir, "sub", "b.go")
			write(t, v.a, oldA, 0o640)
			write(t, v.b, oldB, 0o644)
			before, _ := os.Stat(v.a)
			if tt.sabotage != nil {
				tt.sabotage(t, v)
			}
			opts := Options{Check: tt.check}
			if tt.rename != nil {
				opts.Rename = tt.rename(v)
			}
			err := ReplaceAll([]Replacement{
				{Path: v.a, Name: "a.go", Old: []byte(oldA), New: []byte(newA)},
				{Path: v.b, Name: "b.go", Old: []byte(oldB), New: []byte(newB)},
			}, opts)
			if tt.code == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var fe *failure.Error
				if !errors.As(err, &fe) || fe.Code != tt.code || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("ReplaceAll = %v (%s), want %s containing %q", err, failure.CodeOf(err), tt.code, tt.message)
				}
			}
			if got := read(t, v.a); got != tt.wantA {
				t.Errorf("a = %q, want %q", got, tt.wantA)
			}
			if after, _ := os.Stat(v.a); tt.wantA == oldA && !os.SameFile(before, after) {
				t.Errorf("a was not put back as the same file")
			}
			if tt.after != nil {
				tt.after(t, v, err)
			}
			noLeftovers(t, v.dir)
		})
	}
}

func write(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noLeftovers fails if a staged or backup file is left under dir.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".langhost-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}
