//go:build unix

package plugins

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the plugin as the leader of a new process group,
// so its language servers share a group the manager can kill as a whole,
// and a terminal's Ctrl-C reaches the host (which shuts plugins down in
// order) rather than every plugin at once.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills what is left of the plugin's process group,
// including language servers orphaned by a plugin crash.
func killProcessGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // ESRCH: nothing left
	}
}
