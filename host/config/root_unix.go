//go:build unix

package config

import (
	"os"
	"syscall"
)

// safeAncestor reports whether a marker in dir can be believed: dir is not
// world-writable and belongs to the user or to root.
func safeAncestor(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o002 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Uid == 0 || int(st.Uid) == os.Getuid()
}
