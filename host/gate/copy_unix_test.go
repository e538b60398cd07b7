//go:build unix

package gate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// The copy holds the regular files and directories, never links (a tool
// writing through one would write the workspace or outside it), special
// files, version control or build output.
func TestCopyWorkspace(t *testing.T) {
	ws, _ := newWorkspace(t, map[string]string{
		"src/a.c":            "a",
		"run.sh":             "#!/bin/sh\n",
		".git/config":        "x",
		".langhost/t/x.json": "x",
		"node_modules/m.js":  "x",
		"target/debug/x":     "x",
		".cargo/config.toml": "kept: hidden directories may configure the build",
	})
	dir := ws.Dir()
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "out-dir"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out-file"))
	os.Symlink("src/a.c", filepath.Join(dir, "in-file"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
	os.Link(filepath.Join(dir, "src/a.c"), filepath.Join(dir, "hard.c"))

	cp, err := copyWorkspace(context.Background(), dir, CopyLimits{})
	if err != nil {
		t.Fatal(err)
	}
	defer removeAll(cp)
	var got []string
	filepath.WalkDir(cp, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(cp, p)
			got = append(got, rel)
			if !d.Type().IsRegular() {
				t.Errorf("%s is not a regular file in the copy", rel)
			}
		}
		return nil
	})
	slices.Sort(got)
	if want := ".cargo/config.toml hard.c run.sh src/a.c"; strings.Join(got, " ") != want {
		t.Errorf("copy = %v, want %s", got, want)
	}
	// A hard link in the workspace is copied, not linked: writing the
	// copy leaves the workspace alone.
	os.WriteFile(filepath.Join(cp, "hard.c"), []byte("changed"), 0o644)
	if b, _ := os.ReadFile(filepath.Join(dir, "src/a.c")); string(b) != "a" {
		t.Errorf("writing the copy changed the workspace: %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(cp, "run.sh")); fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("run.sh lost its executable bit: %v", fi.Mode())
	}
}
