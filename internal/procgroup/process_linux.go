package procgroup

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// Exited reports whether process pid is gone: no such process, or a
// zombie that is the only task left (the main thread of a process shows
// as a zombie as soon as it exits, while its other threads may still be
// exiting and holding its files), or, when start is not 0, a process
// with another start time than start (the pid was reused).
func Exited(pid int, start uint64) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	state, started, ok := procStat(dir)
	switch {
	case !ok:
		return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	case start != 0 && started != start:
		return true
	case state == 'Z' || state == 'X':
		tasks, err := os.ReadDir(dir + "/task")
		return err != nil || len(tasks) <= 1
	}
	return false
}

// StartTime is when process pid started, in clock ticks after boot, or 0
// if that cannot be read. With Exited it tells a process from a later one
// that was given the same pid.
func StartTime(pid int) uint64 {
	_, start, _ := procStat("/proc/" + strconv.Itoa(pid))
	return start
}

// procStat reads the state and start time from dir/stat; ok is false if
// the file cannot be read or parsed.
func procStat(dir string) (state byte, start uint64, ok bool) {
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and ')'.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[end+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(string(fields[19]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], start, true
}
