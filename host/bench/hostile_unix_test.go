//go:build unix

package bench_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestLoadScenarioRefusesNamedPipe is the named pipe case of
// TestLoadScenarioRefusesBadFiles.
func TestLoadScenarioRefusesNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bench.LoadScenario(fifo); failure.CodeOf(err) != failure.InvalidInput {
		t.Fatalf("named pipe: %v, want invalid_input without blocking", err)
	}
}

// TestExternalRunnerTimeoutKillsItsGroup: an agent that outlives the
// scenario's time budget is killed with the process it started.
func TestExternalRunnerTimeoutKillsItsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "bg.pid")
	file := writeScenario(t, "name: slow\nlanguage: go\nfixture: fixture\ntask: wait\nconstraints: {time_budget: 1s}\nchecks: [{command: [\"true\"]}]\n",
		map[string]string{"README": "x\n"})
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c := bench.RunConfig{Name: "sleeper", Command: []string{"sh", "-c", "sleep 300 & echo $! > " + pidFile + "; wait"}}
	if err := c.Normalize("test"); err != nil {
		t.Fatal(err)
	}
	results, err := bench.Run(context.Background(), bench.Options{Out: t.TempDir(), OpenHost: openHost}, []*bench.Scenario{s}, []bench.RunConfig{c})
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.Success || r.StopReason != "time_budget" || !strings.Contains(r.Error, "process group was killed") {
		t.Fatalf("result = %+v", r)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// Gone, or a zombie nobody has reaped yet: either way not running.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err == nil {
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] != "Z" {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the agent's child %d outlived the run (state %s)", pid, f[0])
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
