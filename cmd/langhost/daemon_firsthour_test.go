//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/daemon"
)

// withPath returns env with PATH set to path.
func withPath(env []string, path string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	return append(out, "PATH="+path)
}

// pathWithoutGopls is PATH less the directories that hold gopls.
func pathWithoutGopls() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "gopls")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// A daemon started before gopls was on PATH does not keep answering
// "gopls is not installed": a call with another PATH replaces it and says
// so on stderr.
func TestDaemonReplacedWhenPathChanges(t *testing.T) {
	f := newDaemonFixture(t)
	full := f.env
	f.env = withPath(full, pathWithoutGopls())
	env, code, stderr := f.run("run", "go.find_references", "symbol=TotalArea")
	if code != 4 || len(env.Errors) == 0 || !strings.Contains(env.Errors[0].Message, "gopls") {
		t.Fatalf("without gopls: exit %d, %+v\n%s", code, env.Errors, stderr)
	}
	old := f.one()
	oldTree := treeProcs(old)

	f.env = full
	env, code, stderr = f.run("run", "go.find_references", "symbol=TotalArea")
	if code != 0 {
		t.Fatalf("with gopls: exit %d, %+v\n%s", code, env.Errors, stderr)
	}
	if !strings.Contains(stderr, "was started with another PATH: replacing it") {
		t.Errorf("the replacement is not said:\n%s", stderr)
	}
	if st := f.one(); st.PID == old.PID || st.PathHash == old.PathHash {
		t.Errorf("the daemon of the old PATH kept serving: %+v", st)
	}
	waitDaemonGone(t, oldTree...)
}

// daemon status shows this workspace's daemon (found upward from a
// subdirectory) unless --all, with its language servers by name.
func TestDaemonStatusThisWorkspace(t *testing.T) {
	f := newDaemonFixture(t)
	f.references()
	st := f.one()
	var names []string
	for _, p := range st.Processes {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "gopls") || !slices.Contains(names, "langhost plugin serve semantic") {
		t.Errorf("process names %q", names)
	}

	status := func(dir string, args ...string) []daemon.Status {
		t.Helper()
		cmd := f.command(append([]string{"daemon", "status"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("daemon status %v in %s: %v", args, dir, err)
		}
		var env struct{ Data []daemon.Status }
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		return env.Data
	}
	sub := filepath.Join(f.ws, "shapes")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := status(sub); len(got) != 1 || got[0].PID != st.PID {
		t.Errorf("status in a subdirectory of the workspace: %+v", got)
	}
	other := t.TempDir()
	if got := status(other); len(got) != 0 {
		t.Errorf("status in another directory lists %+v", got)
	}
	if got := status(other, "--all"); len(got) != 1 {
		t.Errorf("status --all: %+v", got)
	}

	cmd := f.command("daemon", "status")
	cmd.Args = append(cmd.Args, "--format", "text") // the last --format wins
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "gopls ") || strings.Contains(string(out), "...") {
		t.Errorf("text status: %v\n%s", err, out)
	}
}
