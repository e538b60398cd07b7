package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

var (
	buildOnce sync.Once
	langhost  string
	buildErr  error
)

// langhostBinary builds cmd/langhost once per test process: the mcp
// interface runs `langhost mcp`, which the test binary cannot stand in for.
func langhostBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bench-langhost-")
		if err != nil {
			buildErr = err
			return
		}
		langhost = filepath.Join(dir, "langhost")
		if out, err := exec.Command("go", "build", "-o", langhost, "../../cmd/langhost").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return langhost
}

// TestMCPInterfaceEndToEnd runs one shipped scenario with langhost's agent
// twice, once calling the tools in process (cli) and once through a
// `langhost mcp` process and the MCP SDK client (mcp). Both solve it with
// the same scripted conversation; every tool call of the mcp run went to
// the server, which stopped cleanly; the report compares both interfaces.
func TestMCPInterfaceEndToEnd(t *testing.T) {
	for _, tool := range []string{"go", "gopls"} {
		builtintest.RequireTools(t, tool)
	}
	exe := langhostBinary(t)
	s, err := bench.LoadScenario(filepath.Join(shipped, "go-fix-compile-error.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	configs := []bench.RunConfig{
		{Name: "own-cli", Interface: bench.InterfaceCLI},
		{Name: "own-mcp", Interface: bench.InterfaceMCP},
	}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost, Langhost: exe}, []*bench.Scenario{s}, configs)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	for _, r := range results {
		if !r.Success || r.StopReason != "final_answer" || r.Error != "" || r.ToolCalls != 3 {
			b, _ := json.MarshalIndent(r, "", "  ")
			t.Fatalf("%s did not succeed with 3 tool calls:\n%s", r.Config, b)
		}
		checkTimeline(t, filepath.Join(out, r.Run, bench.TimelineFile), r)
	}
	cli, mcp := results[0], results[1]
	if cli.Interface != bench.InterfaceCLI || mcp.Interface != bench.InterfaceMCP {
		t.Errorf("interfaces recorded: %s, %s", cli.Interface, mcp.Interface)
	}

	// The mcp run's timeline: the server started with the settings an
	// external client gets, every tool call went through it, and it
	// exited by itself (0) once the session closed.
	var start, end map[string]any
	for _, ev := range readLines(t, filepath.Join(out, mcp.Run, bench.TimelineFile)) {
		switch ev["type"] {
		case "mcp_start":
			start = ev
		case "mcp_end":
			end = ev
		}
	}
	if start == nil || end == nil {
		t.Fatalf("the mcp run's timeline lacks mcp_start or mcp_end")
	}
	cmd, _ := start["command"].([]any)
	if len(cmd) != 4 || cmd[0] != exe || cmd[1] != "mcp" || cmd[2] != "--workspace" {
		t.Errorf("server command %v: want %s mcp --workspace DIR, as an external client starts it", cmd, exe)
	}
	if end["tool_calls"] != float64(mcp.ToolCalls) || end["exit_code"] != float64(0) || end["error"] != nil {
		t.Errorf("mcp_end = %v; want %d calls through MCP and exit code 0", end, mcp.ToolCalls)
	}
	// Nothing the server started is left: no process runs in (or names)
	// the run's removed workspace.
	ws, _ := cmd[len(cmd)-1].(string)
	if pids := processesIn(t, ws); len(pids) > 0 {
		t.Errorf("processes of the mcp run still running: %v", pids)
	}

	rep, err := bench.LoadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s\n%s", text.String(), md.String())
	for _, c := range configs {
		if !strings.Contains(md.String(), "| "+c.Name+" |") || !strings.Contains(md.String(), "| "+c.Interface+" |") {
			t.Errorf("the markdown report lacks %s (%s):\n%s", c.Name, c.Interface, md.String())
		}
	}
}

// processesIn returns the pids of processes whose working directory or
// command line names dir.
func processesIn(t *testing.T, dir string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(cwd, dir) || bytes.Contains(cmdline, []byte(dir)) {
			out = append(out, pid)
		}
	}
	return out
}
