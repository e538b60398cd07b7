//go:build unix

package lsp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestServerCloseKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s, err := Start([]string{"sh", "-c", "sleep 300 & echo $! > " + pidFile + "; wait"}, t.TempDir(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var grandchild int
	for i := 0; i < 100 && grandchild == 0; i++ {
		b, _ := os.ReadFile(pidFile)
		grandchild, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(20 * time.Millisecond)
	}
	if grandchild == 0 {
		t.Fatal("helper did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Exited():
	default:
		t.Fatal("server still running after Close")
	}
	time.Sleep(100 * time.Millisecond)
	if alive(grandchild) {
		t.Errorf("grandchild %d survived Close", grandchild)
	}
}

// TestServerCloseKillsEscapedHelper: a helper that started its own session
// (setsid) is outside the server's process group; Close kills it anyway.
func TestServerCloseKillsEscapedHelper(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	s, err := Start([]string{"sh", "-c", "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 300' & wait"}, t.TempDir(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var helper int
	for i := 0; i < 250 && helper == 0; i++ {
		b, _ := os.ReadFile(pidFile)
		if strings.HasSuffix(string(b), "\n") {
			helper, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if helper == 0 {
		t.Fatal("helper did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 250 && alive(helper); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(helper) {
		t.Errorf("helper %d in its own session survived Close", helper)
	}
}

// alive reports whether pid runs; a zombie awaiting its reaper does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	return !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndex(s, ")")+1:]), "Z")
}
