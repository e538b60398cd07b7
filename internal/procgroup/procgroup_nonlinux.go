//go:build unix && !linux

package procgroup

import (
	"os/exec"
	"syscall"
)

// Without PR_SET_PDEATHSIG children rely on their parent stopping them
// (plugins also watch a pipe from the host); without /proc only the
// process group is killed.

func setAttr(cmd *exec.Cmd, _ syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func start(cmd *exec.Cmd) error { return cmd.Start() }

func killMarked(...string) {}

func watch(string)    {}
func unwatch(string)  {}
func shutdownReaper() {}
func prepareReaper()  {}
