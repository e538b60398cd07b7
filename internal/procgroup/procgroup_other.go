//go:build !unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

// Without process groups only the child itself is killed; its helpers
// rely on noticing that their parent is gone.

func setAttr(*exec.Cmd, syscall.Signal) {}

func start(cmd *exec.Cmd) error { return cmd.Start() }

func killGroup(p *os.Process) error { return p.Kill() }

func killMarked(...string) {}

func watch(string)    {}
func unwatch(string)  {}
func shutdownReaper() {}
func prepareReaper()  {}
