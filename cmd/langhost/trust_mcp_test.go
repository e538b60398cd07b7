package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPTrustCoversNamedSpecDir: through the real binary and the SDK
// client, a spec added after `langhost trust` to a directory the trusted
// .langhost.yaml names under languages withdraws the trust, so the
// workspace's own tools are no longer served.
func TestMCPTrustCoversNamedSpecDir(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "languages: [more-specs]\n")
	for _, dir := range []string{".langhost/languages", "more-specs"} {
		if err := os.MkdirAll(filepath.Join(f.workspace, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(f.workspace, ".langhost", "languages", "evil.yaml"),
		"language: {id: evil, name: Evil}\ntools:\n  noop:\n    command: \"true\"\n")
	trust := f.command(t)
	trust.Args = []string{trust.Args[0], "trust", f.workspace, "--format", "json"}
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("langhost trust: %v\n%s", err, out)
	}
	cs, _ := startStdio(t, f, nil, "--profile", "all")
	if tools := listTools(t, cs); tools["evil_noop"] == nil {
		t.Fatal("trusted workspace: evil.noop not served")
	}
	_ = cs.Close()

	write(t, filepath.Join(f.workspace, "more-specs", "added.yaml"), "language: {id: added, name: Added}\ntools:\n  noop:\n    command: \"true\"\n")
	cs, stderr := startStdio(t, f, nil, "--profile", "all")
	if tools := listTools(t, cs); tools["evil_noop"] != nil {
		t.Fatalf("evil.noop still served after a spec was added to a named dir\n%s", stderr)
	}
}

// TestMCPRolesSymlinkedOut: `langhost mcp` serves role prompts; a
// workspace whose .langhost/roles leads out of it is refused (exit 4)
// rather than read.
func TestMCPRolesSymlinkedOut(t *testing.T) {
	f := newMCPFixture(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "default.yaml"), "name: default\ndescription: outside\ntools: {sideEffects: [none, workspace, external], exec: true}\n")
	if err := os.MkdirAll(filepath.Join(f.workspace, ".langhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.workspace, ".langhost", "roles")); err != nil {
		t.Fatal(err)
	}
	cmd := f.command(t)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if err == nil || code != 4 || !strings.Contains(string(out), "outside the workspace") {
		t.Fatalf("mcp with .langhost/roles symlinked out: exit %d, %v\n%s", code, err, out)
	}
}
