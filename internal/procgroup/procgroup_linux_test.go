package procgroup

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a host process that the tests kill: see
// TestMain and runHelperHost.
const helperEnv = "PROCGROUP_TEST_HELPER_DIR"

func init() {
	if os.Getenv(helperEnv) != "" {
		// Keep the main thread for the main goroutine: Go never ends the
		// main thread, so the thread below must be another one.
		runtime.LockOSThread()
	}
}

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		runHelperHost(dir)
		return
	}
	os.Exit(m.Run())
}

// runHelperHost is a host for TestChildrenDieWithHost. It starts, through
// procgroup:
//   - sleep, from a goroutine that locks its thread and exits, which ends
//     that thread;
//   - a shell whose background sleep is a grandchild of the host;
//   - a shell that detaches a sleep with setsid and exits normally, after
//     which the group is done with (KillGroup).
//
// It writes the pids to dir/pids and waits to be killed.
func runHelperHost(dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	child := New(exec.Command("sleep", "1000"), syscall.SIGKILL)
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: Go ends this thread on return
		errc <- child.Start()
	}()
	if err := <-errc; err != nil {
		fail(err)
	}
	shell := exec.Command("sh", "-c", "sleep 1000 & echo $! > grandchild.pid; wait")
	shell.Dir = dir
	if err := New(shell, syscall.SIGKILL).Start(); err != nil {
		fail(err)
	}
	detach := exec.Command("sh", "-c", `setsid sh -c 'echo $$ > detached.tmp; mv detached.tmp detached.pid; exec sleep 1000' &
while [ ! -e detached.pid ]; do sleep 0.01; done`)
	detach.Dir = dir
	g := New(detach, syscall.SIGKILL)
	if err := g.Start(); err != nil {
		fail(err)
	}
	if err := detach.Wait(); err != nil {
		fail(err)
	}
	_ = g.KillGroup()
	// Let the locked thread exit before reporting the child as started.
	time.Sleep(100 * time.Millisecond)
	pids := fmt.Sprintf("%d %d\n", child.Pid(), shell.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, "pids"), []byte(pids), 0o644); err != nil {
		fail(err)
	}
	time.Sleep(time.Hour) // until the test kills us
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
}

// waitFor polls cond; the timeout only bounds a broken test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPID waits for a script to write a pid into file.
func readPID(t *testing.T, file string) int {
	t.Helper()
	var pid int
	waitFor(t, file, func() bool {
		data, err := os.ReadFile(file)
		if err != nil || !bytes.HasSuffix(data, []byte("\n")) {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	return pid
}

// startScript runs script with sh as a group and returns the group and the
// pids the script wrote to the files named in pidFiles (relative to dir).
func startScript(t *testing.T, script string, pidFiles ...string) (*Group, []int) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	g := New(cmd, syscall.SIGKILL)
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = g.Kill()
		<-done
	})
	pids := []int{g.Pid()}
	for _, f := range pidFiles {
		pids = append(pids, readPID(t, filepath.Join(dir, f)))
	}
	return g, pids
}

const escapeScript = `sleep 1000 & echo $! > member.pid
setsid sh -c 'echo $$ > escaped.pid; exec sleep 1000' &
sleep 1000`

func TestKillReachesEscapedDescendants(t *testing.T) {
	g, pids := startScript(t, escapeScript, "member.pid", "escaped.pid")
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitFor(t, fmt.Sprintf("process %d to be killed", pid), func() bool { return !alive(pid) })
	}
}

func TestKillGroupLeavesDetachedDescendants(t *testing.T) {
	g, pids := startScript(t, escapeScript, "member.pid", "escaped.pid")
	leader, member, escaped := pids[0], pids[1], pids[2]
	if err := g.KillGroup(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the group to be killed", func() bool { return !alive(leader) && !alive(member) })
	if !alive(escaped) {
		t.Fatal("KillGroup killed a process in another session")
	}
	if err := g.Kill(); err != nil { // the leader is gone; its mark is not
		t.Fatal(err)
	}
	waitFor(t, "the escaped process to be killed", func() bool { return !alive(escaped) })
}

func TestKillWhenNothingIsLeft(t *testing.T) {
	cmd := exec.Command("true")
	g := New(cmd, syscall.SIGKILL)
	if err := g.Kill(); err != nil {
		t.Errorf("Kill before Start: %v", err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := g.Kill(); err != nil {
		t.Errorf("Kill after exit: %v", err)
	}
}

func TestNewKeepsEnvironment(t *testing.T) {
	cmd := exec.Command("sh", "-c", `echo "$KEEP"; env | grep -c '^`+MarkPrefix+`'`)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "KEEP=kept", MarkPrefix + "OUTER=1"}
	New(cmd, syscall.SIGKILL)
	out, err := cmd.Output() // not through Start: the environment is what matters
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "kept\n2\n" {
		t.Errorf("output %q, want the variable kept and both marks (outer and own)", got)
	}
}

// TestChildrenDieWithHost kills a host process with SIGKILL and expects
// its children and their children to die too, but not a process that a
// tool which finished normally detached on purpose. The thread that asked
// for one child exited long before; a child forked from that thread would
// have been killed as soon as the thread ended (go.dev/issue/27505).
func TestChildrenDieWithHost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host := exec.Command(exe, "-test.run=^$")
	// The helper host must start a reaper of its own, whoever runs the tests.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			host.Env = append(host.Env, kv)
		}
	}
	host.Env = append(host.Env, helperEnv+"="+dir)
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })

	var child, shell int
	waitFor(t, "the helper host to start its children", func() bool {
		data, err := os.ReadFile(filepath.Join(dir, "pids"))
		if err != nil {
			return false
		}
		_, err = fmt.Sscanf(string(data), "%d %d\n", &child, &shell)
		return err == nil
	})
	grandchild := readPID(t, filepath.Join(dir, "grandchild.pid"))
	detached := readPID(t, filepath.Join(dir, "detached.pid"))
	t.Cleanup(func() { _ = syscall.Kill(detached, syscall.SIGKILL) })
	for _, pid := range []int{child, shell, grandchild, detached} {
		if !alive(pid) {
			t.Fatalf("process %d died before the host (the child: when the thread that started it exited)", pid)
		}
	}
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	for _, pid := range []int{child, shell, grandchild} {
		waitFor(t, fmt.Sprintf("process %d to die with its host", pid), func() bool { return !alive(pid) })
	}
	if !alive(detached) {
		t.Error("the process a finished tool detached was killed with the host")
	}
}

// BenchmarkKillMarked measures the /proc sweep that Kill adds to a group
// kill when nothing carries the mark.
func BenchmarkKillMarked(b *testing.B) {
	for b.Loop() {
		killMarked(MarkPrefix + "NONE")
	}
}
