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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/host/daemon"
	"github.com/langhost/langhost/internal/procgroup"
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
	seen    map[procRef]bool // processes of every daemon seen, killed at cleanup if still there
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
	f := &daemonFixture{t: t, bin: langhostBinary(t), ws: filepath.Join(t.TempDir(), "ws"), home: home, runtime: runtime, seen: map[procRef]bool{}}
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
		"XDG_CONFIG_HOME="+configDir(t), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	f.env = append(f.env, extraEnv...)
	t.Cleanup(f.cleanup)
	return f
}

func (f *daemonFixture) cleanup() {
	cmd := f.command("daemon", "stop", "--all")
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Errorf("daemon stop --all: %v\n%s", err, out)
	}
	// No waiting: stop returns once the daemon exited, and it exits once
	// its plugins, language servers and reaper have.
	f.mu.Lock()
	defer f.mu.Unlock()
	for p := range f.seen {
		if p.running() {
			f.t.Errorf("process %d of a daemon still runs after stop --all: %s", p.pid, describeProc(p.pid))
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
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
	data, _ := json.Marshal(env.Data.(map[string]any)["references"])
	return string(data)
}

// daemons returns `daemon status` and remembers their processes.
func (f *daemonFixture) daemons() []daemon.Status {
	f.t.Helper()
	env, code, stderr := f.run("daemon", "status", "--all")
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
		for _, p := range treeProcs(st) {
			f.seen[p] = true
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

// procRef names a process for good: a pid, reused once the process is
// gone (pids wrap around within seconds on a busy machine), and its start
// time.
type procRef struct {
	pid   int
	start string // field 22 of /proc/pid/stat, in clock ticks since boot
}

// procStat returns the state and start time of process pid.
func procStat(pid int) (state, start string, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	// Fields after the command, which may hold spaces: state is field 3.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 20 {
		return "", "", false
	}
	return fields[0], fields[19], true
}

// refOf names process pid as it is now; ok is false if it is gone.
func refOf(pid int) (procRef, bool) {
	_, start, ok := procStat(pid)
	return procRef{pid: pid, start: start}, ok
}

// running reports whether the process still exists and is not a zombie (a
// daemon's parent, the CLI that started it, is gone, and whoever inherits
// it may be slow to reap it). The main thread shows as a zombie as soon as
// it exits; until the other threads have exited too, the process still
// holds its files, a killed daemon its socket.
func (p procRef) running() bool {
	state, start, ok := procStat(p.pid)
	if !ok || start != p.start || state == "X" {
		return false
	}
	if state != "Z" {
		return true
	}
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(p.pid) + "/task")
	return err == nil && len(tasks) > 1
}

// describeProc says what process pid is, for a failure message: state,
// parent and command line.
func describeProc(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, _ := os.ReadFile(dir + "/stat")
	cmdline, _ := os.ReadFile(dir + "/cmdline")
	env, _ := os.ReadFile(dir + "/environ")
	var marks []string
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.HasPrefix(kv, []byte("LANGHOST_")) {
			marks = append(marks, string(kv))
		}
	}
	return fmt.Sprintf("stat %q, cmdline %q, env %v", bytes.TrimSpace(stat), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), marks)
}

func waitDaemonGone(t *testing.T, procs ...procRef) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, p := range procs {
		for p.running() {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs: %s", p.pid, describeProc(p.pid))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// treeProcs names the daemon's processes; those gone already are left out.
func treeProcs(st daemon.Status) []procRef {
	var procs []procRef
	for _, p := range st.Processes {
		if ref, ok := refOf(p.PID); ok {
			procs = append(procs, ref)
		}
	}
	return procs
}

// roles names what the daemon's processes are: "daemon", "reaper",
// "plugin" and "gopls" (with gopls's own helpers).
func roles(st daemon.Status) map[string]int {
	r := map[string]int{}
	for _, p := range st.Processes {
		argv := strings.Fields(p.Command)
		switch {
		case p.PID == st.PID:
			r["daemon"]++
		case len(argv) == 0:
			r["?"]++
		case strings.Contains(filepath.Base(argv[0]), "gopls"):
			r["gopls"]++
		case p.Name == "langhost reaper" || len(argv) == 2 && argv[1] == "reaper":
			r["reaper"]++
		case slices.Equal(argv[1:], []string{"plugin", "serve", "semantic"}):
			r["plugin"]++
		default:
			r[p.Command]++
		}
	}
	return r
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
	if strings.Count(refs, `"file"`) != 3 || !strings.Contains(refs, `"containing_member":"Twice"`) {
		t.Errorf("after the edit: %s", refs)
	}
	if st := f.one(); st.Calls != 2 {
		t.Errorf("not one daemon for both calls: %+v", st)
	}
}

// TestDaemonReplacesKilledDaemon: a daemon killed with SIGKILL leaves its
// socket file behind; the next call starts a new daemon transparently.
// The killed daemon's plugin, gopls and reaper die too (the reaper's job).
func TestDaemonReplacesKilledDaemon(t *testing.T) {
	f := newDaemonFixture(t)
	want := f.references()
	old := f.one()
	if r := roles(old); r["daemon"] != 1 || r["reaper"] != 1 || r["plugin"] != 1 || r["gopls"] < 1 {
		t.Fatalf("the daemon's processes are %v, want the daemon, its reaper, a plugin and gopls: %+v", r, old.Processes)
	}
	oldTree := treeProcs(old)
	daemonRef, _ := refOf(old.PID)
	if err := syscall.Kill(old.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDaemonGone(t, daemonRef)
	if _, err := os.Lstat(old.Socket); err != nil {
		t.Fatalf("the killed daemon's socket file should be left behind: %v", err)
	}
	if got := f.references(); got != want {
		t.Errorf("after the kill: %s, want %s", got, want)
	}
	if st := f.one(); st.PID == old.PID || st.Calls != 1 || st.Socket != old.Socket {
		t.Errorf("not replaced: old %d, now %+v", old.PID, st)
	}
	waitDaemonGone(t, oldTree...)
}

// TestDaemonOutlivesItsCLI: the daemon a CLI starts outlives that CLI,
// even when the CLI ran as a tool of another langhost (an agent's shell
// tool), which then kills the tool's whole tree as on a timeout or its
// reaper on its death: everything that carries the tool's procgroup mark.
// The daemon carries no mark, is not told to do without a reaper (as the
// plugins of that langhost are) and keeps serving.
func TestDaemonOutlivesItsCLI(t *testing.T) {
	f := newDaemonFixture(t)
	cli := f.command("run", "go.find_references", "symbol=TotalArea")
	// The environment of a process the other langhost supervises.
	cli.Env = append(slices.Clip(f.env), "LANGHOST_REAPER=off")
	var out bytes.Buffer
	cli.Stdout, cli.Stderr = &out, &out
	tool := procgroup.New(cli, syscall.SIGKILL)
	if err := tool.Start(); err != nil {
		t.Fatal(err)
	}
	runErr := cli.Wait()
	if err := tool.Kill(); err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatalf("langhost run: %v\n%s", runErr, out.String())
	}
	st := f.one()
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", st.PID))
	if err != nil {
		t.Fatal(err)
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.HasPrefix(kv, []byte(procgroup.MarkPrefix)) || bytes.HasPrefix(kv, []byte("LANGHOST_REAPER=")) {
			t.Errorf("the daemon inherited %s from the CLI", kv)
		}
	}
	if r := roles(st); r["reaper"] != 1 {
		t.Errorf("the daemon has no reaper of its own: %v", r)
	}
	f.references()
	if again := f.one(); again.PID != st.PID || again.Calls != 2 {
		t.Errorf("the daemon %d did not serve the next call: %+v", st.PID, again)
	}
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
// server, plugin and reaper, and removes the socket. When it returns,
// nothing of the daemon runs any more.
func TestDaemonStop(t *testing.T) {
	f := newDaemonFixture(t)
	f.references()
	st := f.one()
	if r := roles(st); r["reaper"] != 1 || r["plugin"] != 1 || r["gopls"] < 1 {
		t.Fatalf("the daemon's processes are %v, want its reaper, a plugin and gopls: %+v", r, st.Processes)
	}
	tree := treeProcs(st)
	env, code, stderr := f.run("daemon", "stop")
	if code != 0 || !strings.Contains(fmt.Sprint(env.Data), strconv.Itoa(st.PID)) {
		t.Fatalf("daemon stop: exit %d %v\n%s", code, env.Data, stderr)
	}
	if !env.OK {
		t.Errorf("envelope: %+v", env)
	}
	for _, p := range tree {
		if p.running() {
			t.Errorf("process %d of the daemon still runs after daemon stop: %s", p.pid, describeProc(p.pid))
		}
	}
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
	tree := treeProcs(st)
	if st.IdleTimeoutMS != 1000 {
		t.Errorf("idle timeout %d ms, want 1000", st.IdleTimeoutMS)
	}
	waitDaemonGone(t, tree...)
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
	oldTree := treeProcs(old)
	if err := os.MkdirAll(filepath.Join(f.ws, ".langhost", "languages"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.ws, ".langhost", "languages", "extra.yaml"), "language: {id: extra}\ntools:\n  noop: {command: \"true\"}\n")
	f.references()
	st := f.one()
	if st.PID == old.PID || st.Fingerprint == old.Fingerprint || st.Calls != 1 {
		t.Errorf("outdated daemon %d kept serving: %+v", old.PID, st)
	}
	waitDaemonGone(t, oldTree...)
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

// TestDaemonServesWorkspaceWrites: workspace writes of a Go file go to
// go.edit_file in the daemon, so the second finds gopls warm; a rejected
// edit exits 10 with its delta as in the CLI's process; --no-daemon and
// writes no language server checks run in the CLI's process.
func TestDaemonServesWorkspaceWrites(t *testing.T) {
	f := newDaemonFixture(t)
	calc := filepath.Join(f.ws, "calc", "calc.go")
	replace := func(old, new string, args ...string) (envelope, int, string) {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"path": "calc/calc.go", "edits": []any{map[string]any{"old_text": old, "new_text": new}}})
		return f.run(append([]string{"run", "workspace.replace_in_file", "--input", string(in)}, args...)...)
	}
	applied := func(step string, env envelope, code int, stderr string, want string) {
		t.Helper()
		if code != 0 || !env.OK {
			t.Fatalf("%s: exit %d: %+v\n%s", step, code, env.Errors, stderr)
		}
		if gate := env.Data.(map[string]any)["gate"]; gate != "go.edit_file" {
			t.Errorf("%s: checked by %v, want go.edit_file", step, gate)
		}
		if strings.Contains(stderr, "running the call in this process") {
			t.Errorf("%s: the call fell back to the CLI's process:\n%s", step, stderr)
		}
		if src, _ := os.ReadFile(calc); !strings.Contains(string(src), want) {
			t.Errorf("%s: calc.go lacks %q:\n%s", step, want, src)
		}
	}

	env, code, stderr := replace("return B() * 2", "return B() * 3", "--yes")
	applied("first write", env, code, stderr, "return B() * 3")
	st := f.one()
	if st.Calls != 1 {
		t.Errorf("after the first write the daemon served %d calls, want 1", st.Calls)
	}
	env, code, stderr = replace("return B() * 3", "return B() * 4", "--yes")
	applied("second write", env, code, stderr, "return B() * 4")
	if again := f.one(); again.PID != st.PID || again.Calls != 2 {
		t.Errorf("second write not served by daemon %d: %+v", st.PID, again)
	}

	// Unconfirmed: refused as in the CLI's process, nothing written.
	before, _ := os.ReadFile(calc)
	remote, remoteCode, _ := replace("return B() * 4", "return B() * 5")
	local, localCode, _ := replace("return B() * 4", "return B() * 5", "--no-daemon")
	if remoteCode == 0 || remoteCode != localCode || len(remote.Errors) != 1 || len(local.Errors) != 1 || remote.Errors[0].Code != local.Errors[0].Code {
		t.Errorf("unconfirmed: daemon exit %d %+v, in process exit %d %+v", remoteCode, remote.Errors, localCode, local.Errors)
	}
	if after, _ := os.ReadFile(calc); !bytes.Equal(after, before) {
		t.Errorf("an unconfirmed write changed calc.go:\n%s", after)
	}

	// A type error: rejected with the transaction's delta, nothing written.
	env, code, stderr = replace("return B() * 4", `return "four"`, "--yes")
	if code != 10 || len(env.Errors) != 1 || env.Errors[0].Code != "diagnostic_regression" {
		t.Fatalf("rejected edit: exit %d, errors %+v\n%s", code, env.Errors, stderr)
	}
	txn, _ := json.Marshal(env.Errors[0].Details["transaction"])
	if !strings.Contains(string(txn), `"new":[{"code":"IncompatibleAssign"`) {
		t.Errorf("rejected edit: details.transaction lacks the delta: %s", txn)
	}
	local, localCode, _ = replace("return B() * 4", `return "four"`, "--yes", "--no-daemon")
	if len(local.Errors) == 1 {
		localTxn, _ := json.Marshal(local.Errors[0].Details["transaction"])
		if localCode != code || !bytes.Equal(localTxn, txn) {
			t.Errorf("rejected edit: in process exit %d transaction %s\ndaemon exit %d transaction %s", localCode, localTxn, code, txn)
		}
	} else {
		t.Errorf("rejected edit in process: exit %d %+v", localCode, local.Errors)
	}
	if after, _ := os.ReadFile(calc); !bytes.Equal(after, before) {
		t.Errorf("a rejected write changed calc.go:\n%s", after)
	}
	served := f.one().Calls
	if served != 4 {
		t.Errorf("daemon served %d calls, want 4 (two writes, the unconfirmed and the rejected one)", served)
	}

	// In this process: --no-daemon, and a file no language server checks.
	env, code, stderr = replace("return B() * 4", "return B() * 5", "--yes", "--no-daemon")
	applied("--no-daemon write", env, code, stderr, "return B() * 5")
	in, _ := json.Marshal(map[string]any{"path": "NOTES.txt", "content": "notes\n"})
	if env, code, stderr := f.run("run", "workspace.write_file", "--input", string(in), "--yes"); code != 0 || !env.OK {
		t.Fatalf("text file: exit %d: %+v\n%s", code, env.Errors, stderr)
	}
	if got := f.one().Calls; got != served {
		t.Errorf("calls in this process reached the daemon: %d calls, want %d", got, served)
	}
}
