//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/host/daemon"
)

// The daemon tests run the real binary over a copy of the gopls fixture,
// with runtime, cache, config and home directories of their own, and stop
// every daemon they started.

// daemonFixture is a workspace and a private environment for langhost.
type daemonFixture struct {
	t       *testing.T
	bin     string
	ws      string
	home    string
	runtime string // XDG_RUNTIME_DIR: the sockets are in runtime/langhost
	env     []string
	mu      sync.Mutex
	seen    map[int]bool // processes of every daemon seen, killed at cleanup if still there
}

func newDaemonFixture(t *testing.T, extraEnv ...string) *daemonFixture {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does both)")
	}
	home := t.TempDir()
	// t.TempDir's path can be too long for a socket path (104 bytes).
	runtime, err := os.MkdirTemp("", "lhd")
	if err != nil {
		t.Fatal(err)
	}
	f := &daemonFixture{t: t, bin: langhostBinary(t), ws: filepath.Join(t.TempDir(), "ws"), home: home, runtime: runtime, seen: map[int]bool{}}
	if err := os.CopyFS(f.ws, os.DirFS("../../plugins/semantic/testdata/gomod")); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LANGHOST_") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") {
			f.env = append(f.env, kv)
		}
	}
	// The Go caches stay the user's: a cold build cache makes gopls slow,
	// and they hold nothing of langhost's.
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatal(err)
		}
		f.env = append(f.env, v+"="+strings.TrimSpace(string(out)))
	}
	f.env = append(f.env, "HOME="+home, "XDG_RUNTIME_DIR="+runtime, "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	f.env = append(f.env, extraEnv...)
	t.Cleanup(f.cleanup)
	return f
}

func (f *daemonFixture) cleanup() {
	cmd := f.command("daemon", "stop", "--all")
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Errorf("daemon stop --all: %v\n%s", err, out)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for pid := range f.seen {
		if daemonProcRunning(pid) {
			f.t.Errorf("process %d of a daemon still runs after stop --all", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if f.t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(f.home, "cache", "langhost", "daemons", "*.log"))
		for _, l := range logs {
			data, _ := os.ReadFile(l)
			f.t.Logf("daemon log %s:\n%s", l, data)
		}
	}
	os.RemoveAll(f.runtime)
}

func (f *daemonFixture) command(args ...string) *exec.Cmd {
	cmd := exec.Command(f.bin, append(args, "--format", "json")...)
	cmd.Dir = f.ws
	cmd.Env = f.env
	return cmd
}

// run runs langhost and returns its envelope, exit code and stderr.
func (f *daemonFixture) run(args ...string) (envelope, int, string) {
	f.t.Helper()
	cmd := f.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		f.t.Fatal(err)
	}
	var env envelope
	if err := json.Unmarshal(stdout.Bytes(), &env); err != nil {
		f.t.Fatalf("langhost %s: stdout is not an envelope: %v\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return env, code, stderr.String()
}

// references runs go.find_references and returns the references' JSON.
func (f *daemonFixture) references(args ...string) string {
	f.t.Helper()
	env, code, stderr := f.run(append([]string{"run", "go.find_references", "symbol=TotalArea"}, args...)...)
	if code != 0 {
		f.t.Fatalf("find_references: exit %d: %+v\nstderr:\n%s", code, env.Errors, stderr)
	}
	if strings.Contains(stderr, "running the call in this process") {
		f.t.Errorf("the call fell back to the CLI's process:\n%s", stderr)
	}
	data, _ := json.Marshal(env.Data.(map[string]any)["data"].(map[string]any)["references"])
	return string(data)
}

// daemons returns `daemon status` and remembers their processes.
func (f *daemonFixture) daemons() []daemon.Status {
	f.t.Helper()
	env, code, stderr := f.run("daemon", "status")
	if code != 0 {
		f.t.Fatalf("daemon status: exit %d: %s", code, stderr)
	}
	raw, _ := json.Marshal(env.Data)
	var list []daemon.Status
	if err := json.Unmarshal(raw, &list); err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, st := range list {
		for _, p := range st.Processes {
			f.seen[p.PID] = true
		}
	}
	return list
}

// one returns the only running daemon.
func (f *daemonFixture) one() daemon.Status {
	f.t.Helper()
	list := f.daemons()
	if len(list) != 1 {
		f.t.Fatalf("%d daemons running, want 1: %+v", len(list), list)
	}
	return list[0]
}

// daemonProcRunning reports whether pid exists and is not a zombie (a
// daemon's parent, the CLI that started it, is gone; its reaper may be slow).
func daemonProcRunning(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func waitDaemonGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, pid := range pids {
		for daemonProcRunning(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func treePIDs(st daemon.Status) []int {
	var pids []int
	for _, p := range st.Processes {
		pids = append(pids, p.PID)
	}
	return pids
}

// TestDaemonServesWarmCalls: the first semantic call starts a daemon, the
// second is served by it, and both print what --no-daemon prints.
func TestDaemonServesWarmCalls(t *testing.T) {
	f := newDaemonFixture(t)
	if list := f.daemons(); len(list) != 0 {
		t.Fatalf("daemons before the first call: %+v", list)
	}
	first := f.references()
	st := f.one()
	if st.Calls != 1 || st.Workspace != mustRealPath(t, f.ws) {
		t.Errorf("after the first call: %+v", st)
	}
	var gopls bool
	for _, p := range st.Processes {
		gopls = gopls || strings.Contains(p.Command, "gopls")
	}
	if !gopls || st.RSSBytes <= 0 {
		t.Errorf("status lacks gopls or memory: %+v", st)
	}

	second := f.references()
	if again := f.one(); again.PID != st.PID || again.Calls != 2 {
		t.Errorf("second call not served by daemon %d: %+v", st.PID, again)
	}
	inProcess := f.references("--no-daemon")
	if f.one().Calls != 2 {
		t.Error("--no-daemon went to the daemon")
	}
	if first != second || first != inProcess || !strings.Contains(first, `"line":28`) {
		t.Errorf("results differ:\nfirst      %s\nsecond     %s\nno-daemon  %s", first, second, inProcess)
	}

	// Failures print the same envelope and exit code both ways.
	viaDaemon, code, _ := f.run("run", "go.find_references", "symbol=TotalAreaa")
	local, localCode, _ := f.run("run", "go.find_references", "symbol=TotalAreaa", "--no-daemon")
	if code != 3 || code != localCode || fmt.Sprint(viaDaemon.Errors) != fmt.Sprint(local.Errors) {
		t.Errorf("unknown symbol: daemon exit %d %+v, in-process exit %d %+v", code, viaDaemon.Errors, localCode, local.Errors)
	}
	if f.one().Calls != 3 {
		t.Error("the failing call was not served by the daemon")
	}

	// Only the owner can reach the socket.
	for path, want := range map[string]os.FileMode{filepath.Dir(st.Socket): 0o700, st.Socket: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
		}
	}
}

func mustRealPath(t *testing.T, p string) string {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestDaemonSeesEditedFile: a file changed on disk between two warm calls
// is seen by the second.
func TestDaemonSeesEditedFile(t *testing.T) {
	f := newDaemonFixture(t)
	if refs := f.references(); strings.Count(refs, `"file"`) != 2 {
		t.Fatalf("before the edit: %s", refs)
	}
	calc := filepath.Join(f.ws, "calc", "calc.go")
	src, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n// Twice uses TotalArea once more.\nfunc Twice() float64 { return 2 * TotalArea(nil) }\n"...)
	if err := os.WriteFile(calc, src, 0o644); err != nil {
		t.Fatal(err)
	}
	refs := f.references()
	if strings.Count(refs, `"file"`) != 3 || !strings.Contains(refs, `"containingMember":"Twice"`) {
		t.Errorf("after the edit: %s", refs)
	}
	if st := f.one(); st.Calls != 2 {
		t.Errorf("not one daemon for both calls: %+v", st)
	}
}

// TestDaemonReplacesKilledDaemon: a daemon killed with SIGKILL leaves its
// socket file behind; the next call starts a new daemon transparently.
func TestDaemonReplacesKilledDaemon(t *testing.T) {
	f := newDaemonFixture(t)
	want := f.references()
	old := f.one()
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDaemonGone(t, old.PID)
	if _, err := os.Lstat(old.Socket); err != nil {
		t.Fatalf("the killed daemon's socket file should be left behind: %v", err)
	}
	if got := f.references(); got != want {
		t.Errorf("after the kill: %s, want %s", got, want)
	}
	if st := f.one(); st.PID == old.PID || st.Calls != 1 || st.Socket != old.Socket {
		t.Errorf("not replaced: old %d, now %+v", old.PID, st)
	}
	waitDaemonGone(t, treePIDs(old)...) // its plugin and gopls die with it
}

// TestDaemonConcurrentFirstCalls: calls racing to start the daemon end
// with one daemon that served them all.
func TestDaemonConcurrentFirstCalls(t *testing.T) {
	f := newDaemonFixture(t)
	const n = 3
	results := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = f.references() })
	}
	wg.Wait()
	for _, r := range results[1:] {
		if r != results[0] {
			t.Errorf("results differ: %s vs %s", r, results[0])
		}
	}
	if st := f.one(); st.Calls != n {
		t.Errorf("daemon served %d calls, want %d", st.Calls, n)
	}
}

// TestDaemonStop: `daemon stop` stops the workspace's daemon, its language
// server and plugin, and removes the socket.
func TestDaemonStop(t *testing.T) {
	f := newDaemonFixture(t)
	f.references()
	st := f.one()
	env, code, stderr := f.run("daemon", "stop")
	if code != 0 || !strings.Contains(fmt.Sprint(env.Data), strconv.Itoa(st.PID)) {
		t.Fatalf("daemon stop: exit %d %v\n%s", code, env.Data, stderr)
	}
	if !env.OK {
		t.Errorf("envelope: %+v", env)
	}
	waitDaemonGone(t, treePIDs(st)...)
	if _, err := os.Lstat(st.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if list := f.daemons(); len(list) != 0 {
		t.Errorf("daemons after stop: %+v", list)
	}
}

// TestDaemonIdleTimeout: with daemon.idle_timeout 1s the daemon exits by
// itself after the call.
func TestDaemonIdleTimeout(t *testing.T) {
	f := newDaemonFixture(t, "LANGHOST_DAEMON_IDLE_TIMEOUT=1s")
	f.references()
	st := f.one()
	if st.IdleTimeoutMS != 1000 {
		t.Errorf("idle timeout %d ms, want 1000", st.IdleTimeoutMS)
	}
	waitDaemonGone(t, treePIDs(st)...)
	if _, err := os.Lstat(st.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

// TestDaemonReplacedWhenSpecsChange: a spec file added to the workspace
// (or a rebuilt binary) changes the fingerprint; the next call replaces
// the daemon instead of talking to the outdated one.
func TestDaemonReplacedWhenSpecsChange(t *testing.T) {
	f := newDaemonFixture(t)
	f.references()
	old := f.one()
	if err := os.MkdirAll(filepath.Join(f.ws, ".langhost", "languages"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.ws, ".langhost", "languages", "extra.yaml"), "language: {id: extra}\ntools:\n  noop: {command: \"true\"}\n")
	f.references()
	st := f.one()
	if st.PID == old.PID || st.Fingerprint == old.Fingerprint || st.Calls != 1 {
		t.Errorf("outdated daemon %d kept serving: %+v", old.PID, st)
	}
	waitDaemonGone(t, treePIDs(old)...)
}

// TestDaemonUnavailableRunsInProcess: when no daemon can be started (here
// the socket directory is a file) the call still succeeds, in the CLI's
// own process, with a warning.
func TestDaemonUnavailableRunsInProcess(t *testing.T) {
	f := newDaemonFixture(t)
	write(t, filepath.Join(f.runtime, "langhost"), "not a directory")
	env, code, stderr := f.run("run", "go.find_references", "symbol=TotalArea")
	if code != 0 || !env.OK {
		t.Fatalf("exit %d: %+v\n%s", code, env.Errors, stderr)
	}
	if !strings.Contains(stderr, "running the call in this process") || !strings.Contains(stderr, "daemon") {
		t.Errorf("no warning on stderr:\n%s", stderr)
	}
	if err := os.Remove(filepath.Join(f.runtime, "langhost")); err != nil {
		t.Fatal(err)
	}
	if list := f.daemons(); len(list) != 0 {
		t.Errorf("daemons: %+v", list)
	}
}

// TestDaemonOff: LANGHOST_DAEMON=0 runs in process and starts nothing.
func TestDaemonOff(t *testing.T) {
	f := newDaemonFixture(t, "LANGHOST_DAEMON=0")
	f.references()
	if list := f.daemons(); len(list) != 0 {
		t.Errorf("daemons with LANGHOST_DAEMON=0: %+v", list)
	}
}
