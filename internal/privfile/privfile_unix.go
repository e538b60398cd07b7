//go:build unix

package privfile

import (
	"fmt"
	"os"
	"syscall"
)

// Dir creates dir (and its parents) private to the user, or checks that
// it is: a directory, not a symlink to one, owned by the user. Wider
// permissions of the user's own directory are narrowed to 0700.
func Dir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (%s): refusing to use it", dir, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to uid %d: refusing to use it", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}
