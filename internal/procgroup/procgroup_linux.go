package procgroup

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func setAttr(cmd *exec.Cmd, deathSig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = deathSig
}

// forkThread starts commands on one goroutine locked to its OS thread for
// the life of the process. The kernel sends a child's Pdeathsig when the
// thread that forked it exits, and Go ends a thread whose locked goroutine
// returns; forking from a pooled thread would let any LockOSThread caller
// anywhere in the process kill our children by accident. The lazily started
// goroutine is process-wide state by nature, like the thread it owns.
var forkThread struct {
	once sync.Once
	reqs chan forkRequest
}

type forkRequest struct {
	cmd  *exec.Cmd
	done chan<- error
}

func start(cmd *exec.Cmd) error {
	forkThread.once.Do(func() {
		forkThread.reqs = make(chan forkRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread must not exit
			for r := range forkThread.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	forkThread.reqs <- forkRequest{cmd: cmd, done: done}
	return <-done
}

const (
	// maxSweeps bounds the rounds of killMarked: a round that kills a
	// process looks again for what it may have started meanwhile.
	maxSweeps = 8
	// killWaitTimeout bounds killMarked's wait for processes whose mark
	// cannot be read for the moment and for the processes it killed to
	// exit: one stuck in the kernel (D state) must not hang us.
	killWaitTimeout = 2 * time.Second
)

// killMarked kills every process whose environment has one of the
// variables marks, and waits until they have exited (at most
// killWaitTimeout): when it returns they hold no file, port or lock and
// nobody sees them run. Processes of other users and zombies are skipped.
func killMarked(marks ...string) {
	if len(marks) == 0 {
		return
	}
	needles := make([][]byte, len(marks))
	for i, m := range marks {
		needles[i] = []byte(m + "=")
	}
	self := os.Getpid()
	killed := map[int]bool{}
	var pidfds []int
	defer func() {
		waitExited(pidfds, killWaitTimeout)
		for _, fd := range pidfds {
			_ = unix.Close(fd)
		}
	}()
	deadline := time.Now().Add(killWaitTimeout)
	for sweeps := 0; ; {
		dir, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := dir.Readdirnames(-1)
		dir.Close()
		found, unsure := false, false
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || pid == self || killed[pid] {
				continue
			}
			switch readMark(pid, needles) {
			case markAbsent:
				continue
			case markUnknown:
				unsure = true
				continue
			}
			fd, ok := kill(pid, needles)
			if !ok {
				unsure = true // changed under us: look again
				continue
			}
			killed[pid] = true
			found = true
			if fd >= 0 {
				pidfds = append(pidfds, fd)
			}
		}
		if found {
			sweeps++
		}
		switch {
		case found && sweeps < maxSweeps:
		case unsure && time.Now().Before(deadline):
			time.Sleep(time.Millisecond) // an exec or exit to complete
		default:
			return
		}
	}
}

type markState int

const (
	markAbsent  markState = iota
	markPresent           // carries one of the marks
	markUnknown           // cannot be told for the moment: look again
)

// readMark reads whether process pid carries one of needles ("NAME=").
// Some processes have no environment to read for a moment: one in the
// middle of an exec (/proc/pid/stat shows no environment address, env_end
// 0) and one exiting, whose main thread may even show as a zombie while
// other threads still run and hold its files. Their mark is unknown until
// the exec is done or the last thread has exited. A zombie that is the
// only task left, a kernel thread, a process started with an empty
// environment (env -i, which has an address) and processes of other users
// carry no mark of ours.
func readMark(pid int, needles [][]byte) markState {
	dir := "/proc/" + strconv.Itoa(pid)
	env, err := os.ReadFile(dir + "/environ")
	switch {
	case err == nil && len(env) > 0:
		if hasVar(env, needles) {
			return markPresent
		}
		return markAbsent
	case err != nil && !errors.Is(err, syscall.ESRCH):
		return markAbsent // gone, or another user's
	}
	// No memory (ESRCH) or an empty environment.
	stat, err := os.ReadFile(dir + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return markAbsent
	}
	// The state is the first field after the command, the flags the
	// 7th, env_end the 49th.
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 49 {
		return markAbsent
	}
	const pfKthread = 0x00200000
	if flags, err := strconv.ParseUint(fields[6], 10, 64); err != nil || flags&pfKthread != 0 {
		return markAbsent
	}
	switch fields[0] {
	case "X":
		return markAbsent
	case "Z":
		if tasks, err := os.ReadDir(dir + "/task"); err == nil && len(tasks) > 1 {
			return markUnknown
		}
		return markAbsent
	}
	if fields[48] != "0" {
		return markAbsent
	}
	return markUnknown
}

// kill sends SIGKILL to pid, which carried a mark when readMark read its
// environment, and returns a pidfd that becomes readable when it has
// exited (-1 without pidfds, Linux < 5.3, where pid is killed as it is and
// not waited for). ok is false when nothing was killed: pid may name a
// newer process by now, so the mark is checked again after the pidfd was
// opened, and the signal goes through the pidfd, which names one process
// for good.
func kill(pid int, needles [][]byte) (fd int, ok bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return -1, false
	}
	if err != nil {
		return -1, syscall.Kill(pid, syscall.SIGKILL) == nil
	}
	// If pid names a newer process than the pidfd's, this reads the newer
	// one's environment, but then the pidfd's process is dead and the
	// signal fails.
	if readMark(pid, needles) != markPresent || unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) != nil {
		_ = unix.Close(fd)
		return -1, false
	}
	return fd, true
}

// waitExited waits until every pidfd is readable, that is until its
// process has exited (it may stay a zombie until its parent reaps it), or
// until timeout.
func waitExited(pidfds []int, timeout time.Duration) {
	fds := make([]unix.PollFd, 0, len(pidfds))
	for _, fd := range pidfds {
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	deadline := time.Now().Add(timeout)
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		_, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		waiting := fds[:0]
		for _, f := range fds {
			if f.Revents == 0 {
				waiting = append(waiting, f)
			}
		}
		fds = waiting
	}
}

// hasVar reports whether a NUL-separated environment block has an entry
// starting with one of needles ("NAME=").
func hasVar(env []byte, needles [][]byte) bool {
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		for _, n := range needles {
			if bytes.HasPrefix(entry, n) {
				return true
			}
		}
	}
	return false
}
