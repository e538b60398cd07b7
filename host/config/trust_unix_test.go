//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTrustDigestHostileFiles: the digest neither blocks on named pipes
// planted as covered files or directories, nor lets a symlinked bench/
// vouch for files elsewhere.
func TestTrustDigestHostileFiles(t *testing.T) {
	s := newSetup(t)
	s.write(".langhost.yaml", "format: json\n")
	if err := os.MkdirAll(filepath.Join(s.ws, ".langhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".langhost/roles", ".langhost/languages"} {
		if err := syscall.Mkfifo(filepath.Join(s.ws, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(s.ws, "bench"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(s.ws, "bench", "s.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.trust() // returns: nothing blocked
	if c := s.mustLoad(); !c.Trust.Trusted {
		t.Fatalf("not trusted: %s", c.Trust.Reason)
	}

	// bench/ as a symlink to a directory elsewhere covers nothing there.
	s = newSetup(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "s.yaml"), []byte("name: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.ws, "bench")); err != nil {
		t.Fatal(err)
	}
	s.trust()
	tr, err := FileTrust(s.paths, filepath.Join(s.ws, "bench", "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Trusted || !strings.Contains(tr.Reason, "no trusted workspace") {
		t.Errorf("scenario behind a symlinked bench/: %+v", tr)
	}
}
