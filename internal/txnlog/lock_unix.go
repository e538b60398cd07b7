//go:build unix

package txnlog

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on the record directory, so that two
// undos cannot both restore the same transaction.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
