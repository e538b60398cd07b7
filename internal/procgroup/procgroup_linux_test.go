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

// runHelperHost starts `sleep` through procgroup from a goroutine that
// locks its thread and exits, which ends that thread; writes the sleep's
// pid to dir/child.pid; then waits to be killed.
func runHelperHost(dir string) {
	cmd := exec.Command("sleep", "1000")
	g := New(cmd, syscall.SIGKILL)
	errc := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: Go ends this thread on return
		errc <- g.Start()
	}()
	if err := <-errc; err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Let the locked thread exit before reporting the child as started.
	time.Sleep(100 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "child.pid"), []byte(strconv.Itoa(g.Pid())), 0o644); err != nil {
		os.Exit(2)
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
	cmd.Env = append(os.Environ(), "KEEP=kept", MarkPrefix+"OUTER=1")
	New(cmd, syscall.SIGKILL)
	out, err := cmd.Output() // not through Start: the environment is what matters
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != "kept\n2\n" {
		t.Errorf("output %q, want the variable kept and both marks (outer and own)", got)
	}
}

// TestChildDiesWithHost kills a host process with SIGKILL and expects its
// child to die too, although the thread that asked for the child exited
// long before (go.dev/issue/27505: a child forked from that thread would
// have been killed as soon as the thread ended).
func TestChildDiesWithHost(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host := exec.Command(exe, "-test.run=^$")
	host.Env = append(os.Environ(), helperEnv+"="+dir)
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })

	var child int
	waitFor(t, "the helper host to start its child", func() bool {
		data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
		if err != nil {
			return false
		}
		child, err = strconv.Atoi(string(data))
		return err == nil
	})
	if !alive(child) {
		t.Fatal("the child died when the thread that started it exited")
	}
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	waitFor(t, "the child to die with its host", func() bool { return !alive(child) })
}

// BenchmarkKillMarked measures the /proc sweep that Kill adds to a group
// kill when nothing carries the mark.
func BenchmarkKillMarked(b *testing.B) {
	for b.Loop() {
		killMarked(MarkPrefix + "NONE")
	}
}
