//go:build !unix

package privfile

import (
	"fmt"
	"os"
)

// Dir creates dir (and its parents), or checks that it is a directory and
// not a symlink. The user's profile directories are private on Windows.
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
	return nil
}
