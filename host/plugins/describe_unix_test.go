//go:build unix

package plugins_test

import (
	"os"
	"syscall"
	"testing"
)

// unixHostileCacheCases are the cases of TestDescribeHostileCache that
// need file types only unix has.
func unixHostileCacheCases() []hostileCacheCase {
	return []hostileCacheCase{
		{"named pipe", func(t *testing.T, file string, _ []byte) {
			os.Remove(file)
			if err := syscall.Mkfifo(file, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
}
