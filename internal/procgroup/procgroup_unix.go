//go:build unix

package procgroup

import (
	"errors"
	"os"
	"syscall"
)

func killGroup(p *os.Process) error {
	// The leader's pid is the group id. The leader may be gone (even
	// reaped) while the rest of its group lives on.
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
