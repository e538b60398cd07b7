//go:build unix

package spec

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// makeUnixHostileSpecFiles adds to dir, for TestLoadRefusesHostileFiles,
// the hostile spec files only unix can make, and returns the problem each
// must cause.
func makeUnixHostileSpecFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"fifo.yaml": "fifo.yaml: not a regular file: it is a named pipe (FIFO)"}
}

// TestDirSourcePipe is the named pipe case of TestDirSource: a named pipe
// where a workspace's spec directory should be costs that directory's
// specs, not the host, and is never waited on.
func TestDirSourcePipe(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "languages")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := DirSource("flag", pipe, true); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("required dir that is a pipe: err = %v", err)
	}
	src, err := DirSource("workspace", pipe, false)
	if err != nil {
		t.Fatal(err)
	}
	set := loadGuarded(t, []Source{src}, Limits{})
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Error(), pipe+": not a directory") {
		t.Errorf("problems = %v", set.Problems)
	}
}
