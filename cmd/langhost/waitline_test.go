package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/host/registry"
)

// TestWaitLine: a call that answers at once prints nothing; one that
// waits shows what it waits for with the seconds, and erases the line.
func TestWaitLine(t *testing.T) {
	var quick lockedBuffer
	asked := false
	startWaitLine(&quick, func() string { asked = true; return "x" })()
	if quick.String() != "" || asked {
		t.Errorf("a quick call printed %q (asked what it waits for: %v)", quick.String(), asked)
	}
	var slow lockedBuffer
	stop := startWaitLine(&slow, func() string { return "csharp.find_symbol: waiting for the language server" })
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
