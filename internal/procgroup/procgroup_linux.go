package procgroup

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
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

// maxSweeps bounds the rounds of killMarked: a round that finds a new
// process looks again for what it may have started meanwhile.
const maxSweeps = 8

// killMarked kills every process whose environment has one of the
// variables marks. Processes of other users and zombies (whose environ
// reads empty) are skipped.
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
	for range maxSweeps {
		dir, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := dir.Readdirnames(-1)
		dir.Close()
		found := false
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || pid == self || killed[pid] {
				continue
			}
			env, err := os.ReadFile("/proc/" + name + "/environ")
			if err != nil || !hasVar(env, needles) {
				continue
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed[pid] = true
			found = true
		}
		if !found {
			return
		}
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
