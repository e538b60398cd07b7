//go:build unix && !linux

package transcript

import (
	"errors"
	"syscall"
)

// procStart is unknown here: a reused pid passes for the run's process.
func procStart(int) uint64 { return 0 }

// exited reports whether no process pid exists.
func exited(pid int, _ uint64) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
