//go:build unix

package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestMCPInterfaceServerFailures: a "langhost" that is not an MCP server,
// or one that never answers, fails the run with an error naming the
// executable (not a hang, not a crash of the bench), and nothing it
// started keeps running, also when the bench is cancelled meanwhile.
func TestMCPInterfaceServerFailures(t *testing.T) {
	builtintest.RequireTools(t, "go")
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// A server that starts a helper and then never says anything.
	silent := filepath.Join(dir, "silent-langhost")
	script := "#!/bin/sh\nsleep 600 &\necho $$ $! > " + pids + "\nexec sleep 600\n"
	if err := os.WriteFile(silent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeScenario(t, "name: mcpfail\nlanguage: go\nfixture: fixture\ntask: build it\nscript: script.yaml\n"+
		"checks: [{command: [\"true\"]}]\n", map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n"})
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "script.yaml"), []byte("turns:\n  - reply: {text: done}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	configs := []bench.RunConfig{{Name: "mcp", Interface: bench.InterfaceMCP}}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}

	t.Run("not an MCP server", func(t *testing.T) {
		results, err := bench.Run(context.Background(), bench.Options{Out: t.TempDir(), OpenHost: openHost, Langhost: "/bin/true"}, []*bench.Scenario{s}, configs)
		if err != nil {
			t.Fatal(err)
		}
		if r := results[0]; r.Success || !strings.Contains(r.Error, "connect to /bin/true mcp") {
			t.Fatalf("result: success %v, error %q; want a failed run naming /bin/true", r.Success, r.Error)
		}
	})
	t.Run("silent server, bench cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Cancel once the server and its helper run.
		go func() {
			for ctx.Err() == nil {
				if b, err := os.ReadFile(pids); err == nil && bytes.HasSuffix(b, []byte("\n")) {
					cancel()
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		out := t.TempDir()
		_, err := bench.Run(ctx, bench.Options{Out: out, OpenHost: openHost, Langhost: silent}, []*bench.Scenario{s}, configs)
		if failure.CodeOf(err) != failure.Canceled {
			t.Fatalf("Run = %v (%s), want canceled", err, failure.CodeOf(err))
		}
		// The cancelled run still has its result.
		rep, err := bench.LoadReport(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 1 || rep.Runs[0].Success || !strings.Contains(rep.Runs[0].Error, "connect to "+silent) {
			t.Fatalf("runs = %+v", rep.Runs)
		}
		b, err := os.ReadFile(pids)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			// Killed and reaped (the helper by init): signal 0 fails.
			if err := syscall.Kill(pid, 0); err == nil {
				if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !bytes.Contains(st, []byte(") Z ")) {
					t.Errorf("process %d of the cancelled server still runs", pid)
				}
			}
		}
	})
}
