//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"
)

// unixHostileConfigCases are the cases of TestHostileWorkspaceConfigFile
// that need file types only unix has.
func unixHostileConfigCases(t *testing.T) []hostileConfigCase {
	return []hostileConfigCase{
		{"named pipe", func(s *setup) {
			if err := syscall.Mkfifo(filepath.Join(s.ws, ".langhost.yaml"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
}
