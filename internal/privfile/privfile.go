// Package privfile keeps files private to the user: directories nobody
// else may enter, and files replaced in one step so that a reader never
// sees half of one.
package privfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data, readable and writable by the user only
// (0600). It writes a temporary file next to path and renames it over
// path, so a crash or a concurrent writer never leaves a half-written
// file. path's directory must exist.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Chmod(0o600), tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	return os.Rename(tmp.Name(), path)
}
