package transcript

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
)

// procStart returns the start time of process pid in clock ticks after
// boot (field 22 of /proc/pid/stat), or 0 if it cannot be read.
func procStart(pid int) uint64 {
	_, start, ok := procStat(pid)
	if !ok {
		return 0
	}
	return start
}

// exited reports whether process pid has exited: no /proc entry, a
// zombie, or a process with another start time (the pid was reused).
func exited(pid int, start uint64) bool {
	state, started, ok := procStat(pid)
	switch {
	case !ok:
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		return errors.Is(err, fs.ErrNotExist)
	case state == 'Z' || state == 'X':
		return true
	case start != 0 && started != start:
		return true
	}
	return false
}

// procStat reads the state and start time of pid from /proc/pid/stat;
// ok is false if the file cannot be read or parsed.
func procStat(pid int) (state byte, start uint64, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
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
