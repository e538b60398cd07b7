//go:build unix

package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestRunTimeoutKillsProcessGroup starts a shell whose background child
// would outlive it, and checks both are gone after the timeout.
func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, err := Run(context.Background(), Command{
		Path:    "sh",
		Args:    []string{"-c", fmt.Sprintf("sleep 60 & echo $! > %s; wait", pidFile)},
		Timeout: 300 * time.Millisecond,
	})
	if failure.CodeOf(err) != failure.Timeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if res == nil {
		t.Fatal("no partial result on timeout")
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("Run returned after %s: the grandchild kept it waiting", time.Since(start))
	}
	assertGone(t, pidFile)
}

// TestRunTimeoutKillsEscapedDescendants: a tool whose child starts its own
// session (setsid) leaves the process group; the timeout still kills it.
func TestRunTimeoutKillsEscapedDescendants(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := fmt.Sprintf("setsid sh -c 'echo $$ > %s; exec sleep 1000' & sleep 1000", pidFile)
	_, err := Run(context.Background(), Command{Path: "sh", Args: []string{"-c", script}, Timeout: time.Second})
	if failure.CodeOf(err) != failure.Timeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	assertGone(t, pidFile)
}

func TestRunCancelKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for i := 0; i < 100; i++ {
			if _, err := os.Stat(pidFile); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	_, err := Run(ctx, Command{Path: "sh", Args: []string{"-c", fmt.Sprintf("sleep 60 & echo $! > %s; wait", pidFile)}})
	if failure.CodeOf(err) != failure.Canceled {
		t.Fatalf("err = %v, want canceled", err)
	}
	assertGone(t, pidFile)
}

// TestRunLeavesNoOrphans checks that a background grandchild of a tool
// that exited normally is killed too.
func TestRunLeavesNoOrphans(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	_, err := Run(context.Background(), Command{Path: "sh",
		Args: []string{"-c", fmt.Sprintf("sleep 60 >/dev/null 2>&1 & echo $! > %s", pidFile)}})
	if err != nil {
		t.Fatal(err)
	}
	assertGone(t, pidFile)
}

func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("grandchild pid not written: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		// A killed but unreaped child of init shows as a zombie briefly.
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("grandchild %d still running", pid)
}
