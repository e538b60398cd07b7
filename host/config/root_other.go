//go:build !unix

package config

import "os"

// safeAncestor reports whether dir is a directory; ownership is not
// checked off unix.
func safeAncestor(dir string) bool {
	fi, err := os.Lstat(dir)
	return err == nil && fi.IsDir()
}
