//go:build unix

package semantic

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/workspace"
)

// TestNamedPipeIsNotRead checks that a location a server reports in a
// named pipe inside the workspace is refused at once: opening a pipe for
// reading waits for a writer, which would hang the call (and, for a
// document, the session) for good.
func TestNamedPipeIsNotRead(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.go")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{e: &Engine{ws: ws, root: ws.Dir()}, docs: map[string]*document{}, files: newFileCache(8, 1<<20)}
	real := filepath.Join(ws.Dir(), "pipe.go")
	done := make(chan error, 2)
	go func() {
		_, err := s.read(real)
		done <- err
	}()
	go func() {
		_, err := s.view(context.Background(), real)
		done <- err
	}()
	for range 2 {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a named pipe was read as a file")
			}
		case <-time.After(time.Minute):
			// Unblock the reader so the test binary can exit.
			if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatal("reading a named pipe blocked")
		}
	}
}
