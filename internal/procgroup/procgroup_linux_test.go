package procgroup

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a host process that the tests kill: see
// TestMain and runHelperHost.
const helperEnv = "PROCGROUP_TEST_HELPER_DIR"

// helperShutdownEnv makes the helper host exit cleanly through Shutdown
// (runShutdownHost) instead of waiting to be killed.
const helperShutdownEnv = "PROCGROUP_TEST_HELPER_SHUTDOWN"

// helperPrepareEnv makes the helper host call Prepare first, as langhost
// run does, so that the reaper starts in the background.
const helperPrepareEnv = "PROCGROUP_TEST_HELPER_PREPARE"

// helperMainExitEnv makes the test binary end its main thread alone, so
// that it lives on as a zombie main thread with other threads running.
const helperMainExitEnv = "PROCGROUP_TEST_HELPER_MAIN_EXIT"

func init() {
	if os.Getenv(helperEnv) != "" || os.Getenv(helperMainExitEnv) != "" {
		// Keep the main thread for the main goroutine: Go never ends the
		// main thread, so the thread below must be another one.
		runtime.LockOSThread()
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(helperMainExitEnv) != "" {
		// exit, not exit_group: only the main thread ends; the runtime's
		// other threads (sysmon at least) keep the process alive.
		_, _, _ = syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0)
	}
	if dir := os.Getenv(helperEnv); dir != "" {
		if os.Getenv(helperPrepareEnv) != "" {
			Prepare()
		}
		if os.Getenv(helperShutdownEnv) == "unused" {
			runUnusedHost(dir)
		}
		if os.Getenv(helperShutdownEnv) != "" {
			runShutdownHost(dir)
		}
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

// isReaper reports whether pid is a reaper: the shell that waits (see
// reaperScript) or a copy of the executable.
func isReaper(pid int) bool {
	if args, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil &&
		bytes.Contains(args, []byte("\x00langhost-reaper")) {
		return true
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return err == nil && bytes.Contains(env, []byte("\x00"+reaperEnv+"="+reaperOn+"\x00"))
}

// runShutdownHost is a host for TestShutdownLeavesNothing: it starts a
// group whose leader forks a helper that leaves the session, ends the watch
// of no group, writes the pids of its reaper, the leader and the helper to
// dir/pids, then calls Shutdown and exits.
func runShutdownHost(dir string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cmd := exec.Command("sh", "-c", "setsid sleep 1000 & echo $! > escaped.pid; exec sleep 1000")
	cmd.Dir = dir
	g := New(cmd, syscall.SIGKILL)
	if err := g.Start(); err != nil {
		fail(err)
	}
	escaped, err := readPIDFile(filepath.Join(dir, "escaped.pid"))
	if err != nil {
		fail(err)
	}
	reaper := 0
	for _, pid := range children(os.Getpid()) {
		if isReaper(pid) {
			reaper = pid
		}
	}
	if reaper == 0 {
		fail(fmt.Errorf("no reaper among the children %v", children(os.Getpid())))
	}
	pids := fmt.Sprintf("%d %d %d\n", reaper, cmd.Process.Pid, escaped)
	if err := os.WriteFile(filepath.Join(dir, "pids"), []byte(pids), 0o644); err != nil {
		fail(err)
	}
	if os.Getenv(helperShutdownEnv) == "ended" {
		// The group is done with: the reaper has nothing left to watch.
		if err := g.Kill(); err != nil {
			fail(err)
		}
		_ = cmd.Wait()
	}
	Shutdown()
	os.Exit(0)
}

// runUnusedHost is a host for TestShutdownLeavesNothing that prepared the
// reaper and then starts nothing: it waits until the reaper runs, writes
// its pid to dir/pids, calls Shutdown and exits.
func runUnusedHost(dir string) {
	reaper := 0
	for deadline := time.Now().Add(10 * time.Second); reaper == 0 && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, pid := range children(os.Getpid()) {
			if isReaper(pid) {
				reaper = pid
			}
		}
	}
	if reaper == 0 {
		fmt.Fprintln(os.Stderr, "Prepare started no reaper")
		os.Exit(2)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids"), []byte(fmt.Sprintf("%d 0 0\n", reaper)), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	Shutdown()
	os.Exit(0)
}

// children lists the child processes of pid.
func children(pid int) []int {
	var pids []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		data, _ := os.ReadFile(task)
		for f := range strings.FieldsSeq(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	return pids
}

// readPIDFile waits for a script to write a pid into file; helper hosts
// have no testing.T. The timeout only bounds a broken test.
func readPIDFile(file string) (int, error) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		data, err := os.ReadFile(file)
		if err == nil && bytes.HasSuffix(data, []byte("\n")) {
			return strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, fmt.Errorf("no pid in %s", file)
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

// TestKillReachesEscapedDescendants: Kill kills the group and what left it,
// and returns once they have exited: the leader (reaped by our Wait), the
// member and the escaped process can at most be zombies.
func TestKillReachesEscapedDescendants(t *testing.T) {
	g, pids := startScript(t, escapeScript, "member.pid", "escaped.pid")
	leader, member, escaped := pids[0], pids[1], pids[2]
	if err := g.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{member, escaped} {
		if alive(pid) {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			t.Errorf("process %d still runs when Kill returned: %s (environ %d bytes)", pid, stat, len(env))
		}
	}
	waitFor(t, fmt.Sprintf("the leader %d to be killed", leader), func() bool { return !alive(leader) })
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
	// prepared: the host called Prepare, and the reaper started in the
	// background before the first Start.
	for _, prepared := range []bool{false, true} {
		t.Run(fmt.Sprintf("prepared=%v", prepared), func(t *testing.T) { testChildrenDieWithHost(t, prepared) })
	}
}

func testChildrenDieWithHost(t *testing.T, prepared bool) {
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
	if prepared {
		host.Env = append(host.Env, helperPrepareEnv+"=1")
	}
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

// TestShutdownLeavesNothing: a host that calls Shutdown as it exits leaves
// nothing running by the time its parent sees it exit: not its reaper, nor
// a group it did not stop (which the reaper kills), nor that group's helper
// in a session of its own.
func TestShutdownLeavesNothing(t *testing.T) {
	// "1": a group still runs at Shutdown, which the reaper kills;
	// "ended": every group ended before, and the reaper is stopped
	// without waiting for it to start up; "unused": Prepare started the
	// reaper and no group ever ran. Each with and without Prepare.
	for _, mode := range []string{"1", "ended", "unused"} {
		for _, prepared := range []bool{false, true} {
			if mode == "unused" && !prepared {
				continue
			}
			t.Run(fmt.Sprintf("%s/prepared=%v", mode, prepared), func(t *testing.T) { testShutdownLeavesNothing(t, mode, prepared) })
		}
	}
}

func testShutdownLeavesNothing(t *testing.T, mode string, prepared bool) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	host := exec.Command(exe, "-test.run=^$")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			host.Env = append(host.Env, kv)
		}
	}
	host.Env = append(host.Env, helperEnv+"="+dir, helperShutdownEnv+"="+mode)
	if prepared {
		host.Env = append(host.Env, helperPrepareEnv+"=1")
	}
	var stderr bytes.Buffer
	host.Stderr = &stderr
	if err := host.Run(); err != nil {
		t.Fatalf("helper host: %v\n%s", err, stderr.String())
	}
	var reaper, leader, escaped int
	data, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(string(data), "%d %d %d\n", &reaper, &leader, &escaped); err != nil {
		t.Fatalf("pids %q: %v", data, err)
	}
	// No waiting: they must be gone when the host's exit is seen.
	for name, pid := range map[string]int{"reaper": reaper, "group leader": leader, "escaped helper": escaped} {
		if pid != 0 && alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the %s (%d) still runs after its host exited", name, pid)
		}
	}
}

// TestReadMark: only a process in the middle of an exec or exit is
// unknown; one started with an empty environment, a zombie and a kernel
// thread carry no mark.
func TestReadMark(t *testing.T) {
	const mark = MarkPrefix + "READMARK"
	start := func(env []string, args ...string) int {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	marked := start([]string{mark + "=1"}, sleep, "1000")
	empty := start([]string{}, sleep, "1000")
	zombie := start(nil, "true")
	// Started processes may still be in their exec.
	waitFor(t, "the processes to start", func() bool {
		return readMark(marked, nil) == markAbsent && readMark(empty, nil) == markAbsent && !alive(zombie)
	})
	needles := [][]byte{[]byte(mark + "=")}
	for _, tc := range []struct {
		name string
		pid  int
		want markState
	}{
		{"marked", marked, markPresent},
		{"empty environment", empty, markAbsent},
		{"zombie", zombie, markAbsent},
		{"kernel thread", 2, markAbsent},
		{"no such process", 1 << 30, markAbsent},
	} {
		if got := readMark(tc.pid, needles); got != tc.want {
			t.Errorf("%s: readMark = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestReadMarkExitingProcess: a process whose main thread exited while
// others run on shows as a zombie but still holds its files: its mark is
// unknown until its last thread has exited.
func TestReadMarkExitingProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const mark = MarkPrefix + "MAINEXIT"
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperMainExitEnv+"=1", mark+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	waitFor(t, "the main thread to exit", func() bool { return !alive(pid) })
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) < 2 {
		t.Fatalf("want a zombie main thread with other threads: %d tasks, %v", len(tasks), err)
	}
	needles := [][]byte{[]byte(mark + "=")}
	if got := readMark(pid, needles); got != markUnknown {
		t.Errorf("readMark while threads run = %d, want unknown (%d)", got, markUnknown)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := readMark(pid, needles); got != markAbsent {
		t.Errorf("readMark once exited = %d, want absent (%d)", got, markAbsent)
	}
}

func TestDetached(t *testing.T) {
	env := []string{"PATH=/bin", MarkPrefix + "A=1", reaperEnv + "=" + reaperOff, "KEEP=" + MarkPrefix + "B=1", MarkPrefix + "B=1"}
	got := Detached(env)
	want := []string{"PATH=/bin", "KEEP=" + MarkPrefix + "B=1"}
	if !slices.Equal(got, want) {
		t.Errorf("Detached(%q) = %q, want %q", env, got, want)
	}
	if len(env) != 5 || env[1] != MarkPrefix+"A=1" {
		t.Errorf("Detached modified its argument: %q", env)
	}
}

// BenchmarkKillMarked measures the /proc sweep that Kill adds to a group
// kill when nothing carries the mark.
func BenchmarkKillMarked(b *testing.B) {
	for b.Loop() {
		killMarked(MarkPrefix + "NONE")
	}
}

// TestReaperSweepsLiveMarks drives each kind of reaper by hand: the shell
// that waits and then executes the sweep, and the copy of the executable
// that waits itself (where there is no /bin/sh). At end of file it kills
// the processes of marks still live and spares those unregistered.
func TestReaperSweepsLiveMarks(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"shell", "executable"} {
		t.Run(kind, func(t *testing.T) {
			spared, killed := MarkPrefix+"SPARED"+kind, MarkPrefix+"KILLED"+kind
			sleeper := func(mark string) *exec.Cmd {
				cmd := exec.Command("sleep", "1000")
				cmd.Env = append(os.Environ(), mark+"=1")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
				return cmd
			}
			s, k := sleeper(spared), sleeper(killed)

			var reaper *exec.Cmd
			if kind == "shell" {
				f, err := os.Open(exe)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				reaper = exec.Command("/bin/sh", "-c", reaperScript, "langhost-reaper")
				reaper.ExtraFiles = []*os.File{f}
				reaper.Env = os.Environ()
			} else {
				reaper = exec.Command(exe, "-test.run=^$")
				reaper.Env = append(os.Environ(), reaperEnv+"="+reaperOn)
			}
			reaper.Stdin = strings.NewReader("+" + spared + "\n+" + killed + "\n-" + spared + "\n")
			if out, err := reaper.CombinedOutput(); err != nil {
				t.Fatalf("reaper: %v\n%s", err, out)
			}
			waitFor(t, "the live mark's process to be killed", func() bool {
				return !alive(k.Process.Pid)
			})
			if !alive(s.Process.Pid) {
				t.Error("the process of an unregistered mark was killed")
			}
		})
	}
}
