package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langhost/langhost/host/registry"
)

// lockedWriter is a bytes.Buffer the wait line's goroutine and the test
// can share.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestWaitLine: a call that answers at once prints nothing; one that
// waits shows what it waits for with the seconds, and erases the line.
func TestWaitLine(t *testing.T) {
	var quick lockedWriter
	startWaitLine(&quick, "x")()
	if quick.String() != "" {
		t.Errorf("a quick call printed %q", quick.String())
	}
	var slow lockedWriter
	stop := startWaitLine(&slow, "csharp.find_symbol: waiting for the language server")
	time.Sleep(waitDelay + 300*time.Millisecond)
	stop()
	got := slow.String()
	if !strings.Contains(got, "csharp.find_symbol: waiting for the language server, 1s") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("wait line = %q", got)
	}
}

func TestWaitingForNamesTheSolution(t *testing.T) {
	ws := t.TempDir()
	src, err := os.ReadFile("../../plugins/semantic/testdata/shop/Shop.sln")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "Shop.sln"), string(src))
	got := waitingFor(&registry.Tool{ID: "csharp.find_symbol"}, ws)
	if want := "csharp.find_symbol: waiting for the language server to load Shop.sln (2 projects)"; got != want {
		t.Errorf("waitingFor = %q, want %q", got, want)
	}
	if got := waitingFor(&registry.Tool{ID: "go.find_symbol"}, t.TempDir()); got != "go.find_symbol: waiting for the language server" {
		t.Errorf("without a solution: %q", got)
	}
}
