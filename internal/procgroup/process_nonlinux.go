//go:build unix && !linux

package procgroup

import (
	"errors"
	"syscall"
)

// Exited reports whether no process pid exists. Start times are not
// known here, so a reused pid passes for the process.
func Exited(pid int, _ uint64) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// StartTime is not known here: 0.
func StartTime(int) uint64 { return 0 }
