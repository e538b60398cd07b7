// Package procgroup starts child processes so that they can be stopped as
// a whole and do not outlive the process that started them:
//
//   - the child leads a new process group, so killing the group also kills
//     the helpers it started (a test runner's workers, a shell's children);
//   - the child carries a mark in its environment that every descendant
//     inherits, so that Kill also finds descendants that left the group
//     (setsid, daemonising tools); this needs /proc (Linux);
//   - on Linux the child receives a signal when this process dies, even by
//     SIGKILL (PR_SET_PDEATHSIG). Every such child is forked from one OS
//     thread that never exits, because the kernel sends the signal when the
//     forking thread exits, not the process (go.dev/issue/27505).
//
// Descendants that detached and dropped the mark (env -i) cannot be found;
// nor can helpers that left the group when this process is killed with
// SIGKILL, since nothing is left to look for them.
package procgroup

import (
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/langhost/langhost/internal/childenv"
)

// MarkPrefix starts the name of the environment variable that marks a
// group's processes. Each group has its own variable (prefix plus a random
// suffix), so a nested langhost adds its mark instead of replacing ours.
const MarkPrefix = "LANGHOST_PROCGROUP_"

// reaperEnv selects the reaper (Linux): reaperOn makes a process the
// reaper of its parent, reaperOff keeps a process from starting one.
const (
	reaperEnv = "LANGHOST_REAPER"
	reaperOn  = "1"
	reaperOff = "off"
)

// Group is one child process with everything it starts.
type Group struct {
	cmd     *exec.Cmd
	mark    string // environment variable name, without "="
	unwatch sync.Once
}

// New prepares cmd, not yet started, to run as a group: it sets
// cmd.SysProcAttr, removes secret variables from cmd.Env (the host's
// environment when cmd.Env is nil; see childenv.Scrub) and adds the
// group's mark. A variable the child must get even so is appended to
// cmd.Env after New (runner.Command.PassEnv). deathSig is what the child receives
// when this process dies (Linux only): SIGKILL for a child that must not
// outlive the host, SIGTERM for one that cleans up its own children first.
// Set cmd.Cancel to g.Kill to kill the whole group when cmd's context ends.
func New(cmd *exec.Cmd, deathSig syscall.Signal) *Group {
	g := &Group{cmd: cmd, mark: MarkPrefix + rand.Text()}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(childenv.Scrub(env), g.mark+"=1")
	setAttr(cmd, deathSig)
	return g
}

// Supervised tells the prepared command that whoever started it kills its
// descendants whenever it dies, even by SIGKILL, as the plugin manager does
// for plugins (Kill sweeps the group's mark, which they inherit): it then
// needs no reaper of its own (see Start). A command that is itself a host,
// such as langhost run by a test, must not be told so.
func (g *Group) Supervised() {
	g.cmd.Env = append(g.cmd.Env, reaperEnv+"="+reaperOff)
}

// Detached returns env without any group's mark and without the reaper
// setting, for a process that must outlive this one and whatever started
// it, such as the daemon: neither Kill nor the reaper of a langhost up the
// tree sweeps it, and it watches the groups it starts with a reaper of its
// own. env is not modified.
func Detached(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if strings.HasPrefix(kv, MarkPrefix) || strings.HasPrefix(kv, reaperEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Shutdown ends the watch of the groups still running, whose processes
// the reaper then kills as if this process had died, and waits (a few
// seconds at most) until the reaper has exited. Call it last, once the
// groups were stopped, right before this process exits: then nothing it
// started outlives it, not even for the moment the reaper needs to notice
// its exit. Groups started afterwards are not watched.
func Shutdown() { shutdownReaper() }

// Prepare starts the reaper (Linux) in the background, so that the first
// Start need not wait for it: a command that is about to run a tool calls
// it before the work that comes first (config, specs), and starting the
// reaper overlaps that work. Start still waits until the reaper is running
// before it starts anything, so the promise above holds from the first
// child on. Without Prepare the first Start starts the reaper itself.
func Prepare() { prepareReaper() }

// Start starts the prepared command. On Linux the group is also watched
// until Kill or KillGroup: should this process die by SIGKILL before, a
// helper process kills everything that carries the group's mark.
func (g *Group) Start() error {
	watch(g.mark)
	err := start(g.cmd)
	if err != nil {
		g.done()
	}
	return err
}

// done ends the watch of the group.
func (g *Group) done() { g.unwatch.Do(func() { unwatch(g.mark) }) }

// Pid is the process id of the group leader, 0 before Start.
func (g *Group) Pid() int {
	if g.cmd.Process == nil {
		return 0
	}
	return g.cmd.Process.Pid
}

// Kill kills the whole group with SIGKILL: the process group and, on
// Linux, every process that still carries the group's mark, including
// descendants that started their own session. Processes started from them
// while Kill runs are found too. On Linux it returns once the marked
// processes have exited (a few seconds at most). Nothing left to kill is
// not an error.
func (g *Group) Kill() error {
	// Marked processes first: once a signal is on its way a process's
	// environment may read empty, and it would be neither recognised nor
	// waited for. The group kill then gets members that dropped the mark.
	killMarked(g.mark)
	err := g.killGroup()
	g.done()
	return err
}

// KillGroup kills what is left of the process group only. Unlike Kill it
// leaves alone descendants that deliberately detached from the group, such
// as a build server a finished tool started. Call Kill or KillGroup once
// the group is done with: it also ends the watch described at Start.
func (g *Group) KillGroup() error {
	err := g.killGroup()
	g.done()
	return err
}

func (g *Group) killGroup() error {
	if g.cmd.Process == nil {
		return nil
	}
	err := killGroup(g.cmd.Process)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
