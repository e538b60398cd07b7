//go:build linux

package secretenv

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Hide overwrites, in the process's initial environment block, the value
// of every variable secret says is a secret, after setting it again in
// Go's environment (a copy of its own), and then makes the process
// non-dumpable so the copies cannot be read from /proc/<pid>/mem by
// same-user processes either. It runs first in main, before any
// goroutine of langhost's: it changes memory the runtime handed to the
// os package, and only the runtime's own lookups of GODEBUG-like
// settings still point there.
//
// It returns how many values it hid. A process whose block cannot be
// written keeps working with its environment as it was.
func Hide(secret func(name, value string) bool) (int, error) {
	block, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return 0, err
	}
	var hide []entry
	for _, e := range parse(block) {
		if e.value != "" && secret(e.name, e.value) {
			hide = append(hide, e)
		}
	}
	if len(hide) == 0 {
		return 0, nil
	}
	start, err := envStart()
	if err != nil {
		return 0, err
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("hiding secrets: %w", err)
	}
	defer mem.Close()
	for _, e := range hide {
		// Setenv stores a new string; Go's environment no longer refers
		// to the block afterwards.
		if v, ok := os.LookupEnv(e.name); ok {
			if err := os.Setenv(e.name, strings.Clone(v)); err != nil {
				return 0, err
			}
		}
		if _, err := mem.WriteAt(bytes.Repeat([]byte{0}, len(e.value)), int64(start+uint64(e.valueAt))); err != nil {
			return 0, fmt.Errorf("hiding %s: %w", e.name, err)
		}
	}
	// A traced or dumped process would give the copies away.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return len(hide), fmt.Errorf("hiding secrets: %w", err)
	}
	return len(hide), nil
}

// envStart reads where the environment block starts: field 50 of
// /proc/self/stat (proc(5), Linux 3.5 and later).
func envStart() (uint64, error) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, err
	}
	// The command name, field 2, may hold spaces and parentheses: the
	// fields counted start after its last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/self/stat: no command name")
	}
	fields := strings.Fields(string(stat[i+1:]))
	const envStartField = 50 - 3 // fields[0] is field 3
	if len(fields) <= envStartField {
		return 0, fmt.Errorf("/proc/self/stat: %d fields, no env_start", len(fields)+2)
	}
	return strconv.ParseUint(fields[envStartField], 10, 64)
}
