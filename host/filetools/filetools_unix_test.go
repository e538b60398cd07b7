//go:build unix

package filetools

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestReadFileFIFO is the named pipe case of TestReadFile: it is refused,
// not waited on.
func TestReadFileFIFO(t *testing.T) {
	reg, dir := setup(t, map[string]string{"a.txt": "one\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out readOutput
	err := call(t, reg, "workspace.read_file", map[string]any{"path": "fifo"}, &out)
	wantFailure(t, err, failure.Precondition, "path")
}
