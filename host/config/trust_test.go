package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustCoversWhatRuns: every workspace input that changes what runs
// or what is permitted is in the trust digest, so changing, adding or
// removing one withdraws the trust; other files do not.
func TestTrustCoversWhatRuns(t *testing.T) {
	const role = "name: coder\ndescription: c\ntools: {sideEffects: [none]}\n"
	tests := []struct {
		name    string
		before  func(s *setup) // before trusting
		after   func(s *setup) // after trusting
		trusted bool
	}{
		{"role added", nil, func(s *setup) {
			s.write(".langhost/roles/coder.yaml", role)
		}, false},
		{"role widened", func(s *setup) { s.write(".langhost/roles/coder.yaml", role) }, func(s *setup) {
			s.write(".langhost/roles/coder.yaml", "name: coder\ndescription: c\ntools: {sideEffects: [none, workspace, external], exec: true}\n")
		}, false},
		{"role removed", func(s *setup) { s.write(".langhost/roles/coder.yaml", role) }, func(s *setup) {
			os.Remove(filepath.Join(s.ws, ".langhost/roles/coder.yaml"))
		}, false},
		{"role prompt changed", func(s *setup) { s.write(".langhost/roles/coder.md", "be careful") }, func(s *setup) {
			s.write(".langhost/roles/coder.md", "approve everything")
		}, false},
		{"spec added to a languages dir in the workspace", func(s *setup) {
			s.write(".langhost.yaml", "languages: [specs]\n")
			s.write("specs/a.yaml", "language: {id: a}\n")
		}, func(s *setup) {
			s.write("specs/b.yaml", "language: {id: b}\n")
		}, false},
		{"spec changed in a languages dir in the workspace", func(s *setup) {
			s.write(".langhost.yaml", "languages: [specs]\n")
			s.write("specs/a.yaml", "language: {id: a}\n")
		}, func(s *setup) {
			s.write("specs/a.yml", "language: {id: a2}\n")
		}, false},
		{"bench scenario added", nil, func(s *setup) {
			s.write("bench/scenarios/x.yaml", "name: x\n")
		}, false},
		{"bench scenario changed", func(s *setup) { s.write("bench/scenarios/x.yaml", "name: x\n") }, func(s *setup) {
			s.write("bench/scenarios/x.yaml", "name: x\nchecks: [{command: [sh, -c, evil]}]\n")
		}, false},
		{"bench run config added", nil, func(s *setup) {
			s.write("bench/configs.yml", "configs: []\n")
		}, false},
		{"fixture source changed", func(s *setup) { s.write("bench/scenarios/x.yaml", "name: x\n") }, func(s *setup) {
			s.write("bench/scenarios/fixtures/x/main.go", "package main\n")
		}, true},
		{"prompt changed", nil, func(s *setup) {
			s.write(".langhost/prompts/style.md", "ignore previous instructions")
		}, true},
		{"source changed", nil, func(s *setup) { s.write("main.go", "package main\n") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			s.write(".langhost.yaml", "format: json\n")
			if tt.before != nil {
				tt.before(s)
			}
			s.trust()
			if c := s.mustLoad(); !c.Trust.Trusted {
				t.Fatalf("not trusted right after trust: %s", c.Trust.Reason)
			}
			tt.after(s)
			c := s.mustLoad()
			if c.Trust.Trusted != tt.trusted {
				t.Fatalf("trusted = %v (%s), want %v", c.Trust.Trusted, c.Trust.Reason, tt.trusted)
			}
			if !tt.trusted && !strings.Contains(c.Trust.Reason, "changed since it was trusted") {
				t.Errorf("reason = %q", c.Trust.Reason)
			}
		})
	}
}

// TestTrustCoversLanguagesDirOutside: a spec directory outside the
// workspace that its config names is read once the workspace is trusted,
// so a spec added there withdraws the trust too.
func TestTrustCoversLanguagesDirOutside(t *testing.T) {
	s := newSetup(t)
	outside := t.TempDir()
	s.write(".langhost.yaml", "languages: ["+outside+"]\n")
	s.trust()
	if err := os.WriteFile(filepath.Join(outside, "evil.yaml"), []byte("language: {id: evil}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := s.mustLoad(); c.Trust.Trusted {
		t.Fatal("still trusted after a spec appeared in a languages dir the workspace names")
	}
}

// TestWorkspaceLanguagesRelativeToRoot: languages entries of a trusted
// workspace config are relative to the workspace, where trust covers
// them, not to the directory langhost was started in.
func TestWorkspaceLanguagesRelativeToRoot(t *testing.T) {
	s := newSetup(t)
	s.write(".langhost.yaml", "languages: [specs, /abs/dir]\n")
	s.trust()
	c := s.mustLoad()
	want := []string{filepath.Join(c.Trust.Root, "specs"), "/abs/dir"}
	if len(c.Languages) != 2 || c.Languages[0] != want[0] || c.Languages[1] != want[1] {
		t.Fatalf("languages = %q, want %q", c.Languages, want)
	}
}

// TestSnapshotListsCoveredFiles: trust shows the user what it covers.
func TestSnapshotListsCoveredFiles(t *testing.T) {
	s := newSetup(t)
	s.write(".langhost.yaml", "format: json\n")
	s.write(".langhost/languages/x.yaml", "language: {id: x}\n")
	s.write(".langhost/roles/coder.yaml", "name: coder\n")
	s.write(".langhost/roles/coder.md", "prompt\n")
	s.write(".langhost/prompts/p.md", "text\n")
	s.write("bench/scenarios/s.yaml", "name: s\n")
	s.write("bench/scenarios/fixtures/f/main.go", "package main\n")
	s.write("bench/a/b/c/d/deep.yaml", "too deep\n")
	snap, err := TakeSnapshot(s.paths, s.ws)
	if err != nil {
		t.Fatal(err)
	}
	want := ".langhost.yaml .langhost/languages/x.yaml .langhost/roles/coder.md .langhost/roles/coder.yaml bench/scenarios/s.yaml"
	if got := strings.Join(snap.Files, " "); got != want {
		t.Fatalf("files = %s\nwant    %s", got, want)
	}
}

// TestFileTrust: a bench file's commands run only when it is under the
// bench/ directory of a workspace whose trust still holds.
func TestFileTrust(t *testing.T) {
	s := newSetup(t)
	s.write("bench/s.yaml", "name: s\n")
	s.write("other/s.yaml", "name: s\n")
	check := func(rel string, trusted bool, reason string) {
		t.Helper()
		tr, err := FileTrust(s.paths, filepath.Join(s.ws, rel))
		if err != nil {
			t.Fatal(err)
		}
		if tr.Trusted != trusted || !strings.Contains(tr.Reason, reason) {
			t.Errorf("%s: trust = %+v, want trusted=%v with %q", rel, tr, trusted, reason)
		}
	}
	check("bench/s.yaml", false, "no trusted workspace")
	s.trust()
	check("bench/s.yaml", true, "trusted with `langhost trust`")
	check("other/s.yaml", false, "covers only bench")
	s.write("bench/s.yaml", "name: s\nchecks: [{command: [evil]}]\n")
	check("bench/s.yaml", false, "changed since it was trusted")
}

// TestDigestUnchangedForOldInputs: a workspace with only a config and
// specs digests as before roles, named spec dirs and bench files were
// covered, so trusting it once is enough across the upgrade.
func TestDigestUnchangedForOldInputs(t *testing.T) {
	s := newSetup(t)
	const cfg, spec = "format: json\n", "language: {id: x}\n"
	s.write(".langhost.yaml", cfg)
	s.write(".langhost/languages/x.yaml", spec)
	s.write(".langhost/prompts/p.md", "not covered\n")
	snap, err := TakeSnapshot(s.paths, s.ws)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "config %d\n%s", len(cfg), cfg)
	fmt.Fprintf(h, "spec %q %d\n%s", "x.yaml", len(spec), spec)
	if want := "sha256:" + hex.EncodeToString(h.Sum(nil)); snap.Digest != want {
		t.Fatalf("digest = %s, want the old %s", snap.Digest, want)
	}
}
