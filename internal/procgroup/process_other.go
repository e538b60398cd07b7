//go:build !unix

package procgroup

// Exited cannot tell here: false.
func Exited(int, uint64) bool { return false }

// StartTime is not known here: 0.
func StartTime(int) uint64 { return 0 }
