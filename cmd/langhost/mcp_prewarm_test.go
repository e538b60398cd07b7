package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The prewarm tests look in /proc for the plugin and gopls that
// `langhost mcp` starts before any tools/call (mcp.prewarm).

// requireGopls fails the test when gopls is missing: these tests are
// about it.
func requireGopls(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does both)")
	}
}

// pluginGopls returns the plugin processes started by pid and the gopls
// processes that are children of one of them. A plugin's own child
// between fork and exec has the plugin's command line: it is not a plugin.
func pluginGopls(t *testing.T, pid int) (plugins, gopls []proc) {
	t.Helper()
	tree := descendants(t, pid)
	isChild := map[int]bool{}
	for _, p := range tree {
		if !p.zombie && isPlugin(p.args) && p.ppid == pid {
			plugins = append(plugins, p)
			isChild[p.pid] = true
		}
	}
	for _, p := range tree {
		if !p.zombie && isGopls(p.args) && isChild[p.ppid] {
			gopls = append(gopls, p)
		}
	}
	return plugins, gopls
}

// waitGopls waits until exactly one gopls runs below a plugin of s and
// returns it with the whole tree at that moment.
func waitGopls(t *testing.T, s *server) (gopls proc, tree []proc) {
	t.Helper()
	mcpWaitFor(t, "gopls started by the plugin before any call", time.Minute, func() bool {
		_, g := pluginGopls(t, s.cmd.Process.Pid)
		if len(g) == 1 {
			gopls = g[0]
			return true
		}
		return false
	})
	return gopls, descendants(t, s.cmd.Process.Pid)
}

func fileSymbols(t *testing.T, s *server, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "go_file_symbols", Arguments: map[string]any{"file": "main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("go_file_symbols: %s\nstderr:\n%s", resultText(res), s.stderr)
	}
}

// With prewarm (the default), gopls runs before the first call, and the
// first call uses it rather than starting another.
func TestMCPPrewarmStartsServerBeforeFirstCall(t *testing.T) {
	requireGopls(t)
	s, cs := startStdioServer(t, semanticFixture(t))
	gopls, _ := waitGopls(t, s)

	fileSymbols(t, s, cs)
	plugins, after := pluginGopls(t, s.cmd.Process.Pid)
	if len(plugins) != 1 || len(after) != 1 || after[0].pid != gopls.pid {
		t.Errorf("after the first call: plugins %v, gopls %v; want the prewarmed gopls %d alone", plugins, after, gopls.pid)
	}
}

// With --prewarm=false, or mcp.prewarm: false in an untrusted workspace's
// config, nothing starts before a semantic call, as before prewarm.
func TestMCPPrewarmOff(t *testing.T) {
	requireGopls(t)
	for _, tc := range []struct {
		name string
		args []string
		ws   string // .langhost.yaml
	}{
		{name: "flag", args: []string{"--prewarm=false"}},
		{name: "workspace config", ws: "mcp:\n  prewarm: false\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := semanticFixture(t)
			if tc.ws != "" {
				write(t, filepath.Join(f.workspace, ".langhost.yaml"), tc.ws)
			}
			s, cs := startStdioServer(t, f, tc.args...)
			if tools := listTools(t, cs); tools["go_file_symbols"] == nil {
				t.Fatalf("go_file_symbols not served; stderr:\n%s", s.stderr)
			}
			if res, _ := callTool(t, cs, "mcptest_noop", nil); res.IsError {
				t.Fatalf("mcptest_noop: %s", resultText(res))
			}
			// A prewarm would have started the plugin by now: it is
			// started before the server reads its first request.
			deadline := time.Now().Add(2 * time.Second)
			for time.Now().Before(deadline) {
				if plugins, _ := pluginGopls(t, s.cmd.Process.Pid); len(plugins) > 0 {
					t.Fatalf("a plugin runs before the first semantic call: %v", plugins)
				}
				time.Sleep(50 * time.Millisecond)
			}
			fileSymbols(t, s, cs)
			if _, gopls := pluginGopls(t, s.cmd.Process.Pid); len(gopls) != 1 {
				t.Errorf("gopls after the first call: %v", gopls)
			}
		})
	}
}

// Closing the client while gopls is still loading the workspace ends the
// server within the shutdown bound, exit 0, with no process left behind.
func TestMCPPrewarmClientCloseWhileLoading(t *testing.T) {
	requireGopls(t)
	s, cs := startStdioServer(t, semanticFixture(t))
	_, tree := waitGopls(t, s)

	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	select {
	case <-s.exited:
	case <-time.After(stopWithin):
		t.Fatalf("langhost still running %s after its client closed stdin; stderr:\n%s", stopWithin, s.stderr)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d; stderr:\n%s", code, s.stderr)
	}
	waitAllGone(t, "after the client closed", tree)
}

// SIGTERM while gopls loads: the same, as for a server with a call in
// flight (shutdown_test.go).
func TestMCPPrewarmSIGTERMWhileLoading(t *testing.T) {
	requireGopls(t)
	s, _ := startStdioServer(t, semanticFixture(t))
	_, tree := waitGopls(t, s)
	if code := s.signalAndWait(t, os.Interrupt); code != 0 {
		t.Errorf("exit code %d; stderr:\n%s", code, s.stderr)
	}
	waitAllGone(t, "after SIGINT", tree)
}

// nosrvSpec is a language whose language server is not installed.
const nosrvSpec = `language:
  id: nosrv
  name: No server
  extensions: [".nosrv"]
servers:
  missing:
    command: langhost-no-such-server
    languageIds: {".nosrv": "nosrv"}
semantic:
  servers: [missing]
`

// A language whose server is missing still has its tools listed; the
// failed prewarm is logged, never sent to the client; the server keeps
// serving, and the first semantic call reports the missing server as it
// does without prewarm.
func TestMCPPrewarmMissingServer(t *testing.T) {
	requireGopls(t)
	f := semanticFixture(t)
	write(t, filepath.Join(f.specs, "nosrv.yaml"), nosrvSpec)
	write(t, filepath.Join(f.workspace, "a.nosrv"), "")
	// Named: a language detected by a file extension alone is not warmed.
	s, cs := startStdioServer(t, f, "--verbose", "--language", "nosrv,go,mcptest")
	mcpWaitFor(t, "the failed prewarm to be logged", time.Minute, func() bool {
		return strings.Contains(s.stderr.String(), "prewarm failed")
	})
	if log := s.stderr.String(); !strings.Contains(log, "language=nosrv") || !strings.Contains(log, "langhost-no-such-server") {
		t.Errorf("the log does not say which server failed:\n%s", log)
	}
	tools := listTools(t, cs)
	for _, name := range []string{"nosrv_file_symbols", "go_file_symbols", "mcptest_echo"} {
		if tools[name] == nil {
			t.Errorf("%s not listed", name)
		}
	}
	if res, st := callTool(t, cs, "mcptest_echo", map[string]any{"text": "alive"}); res.IsError || st["stdout"] != "alive\n" {
		t.Errorf("mcptest_echo: %s", resultText(res))
	}
	res, st := callTool(t, cs, "nosrv_file_symbols", map[string]any{"file": "a.nosrv"})
	if !res.IsError || !strings.Contains(resultText(res), "langhost-no-such-server") {
		t.Errorf("nosrv_file_symbols: isError %v: %s", res.IsError, resultText(res))
	}
	if e, _ := st["error"].(map[string]any); e["code"] != "precondition_failed" {
		t.Errorf("error %v, want precondition_failed", st["error"])
	}
	fileSymbols(t, s, cs) // go was warmed beside it
}

// A reload (a spec file changed) builds a new host with its own plugins:
// the old plugin and gopls stop, and the new host's are warmed.
func TestMCPPrewarmReload(t *testing.T) {
	requireGopls(t)
	f := semanticFixture(t)
	s, cs := startStdioServer(t, f)
	old, tree := waitGopls(t, s)

	write(t, filepath.Join(f.specs, "mcptest.yaml"), strings.Replace(mcptestSpec, "tools:\n", "tools:\n  added:\n    command: echo\n    readOnly: true\n", 1))
	mcpWaitFor(t, "the old plugin and gopls to stop", time.Minute, func() bool {
		for _, p := range tree {
			if running(p.pid) && (isPlugin(p.args) || isGopls(p.args)) {
				return false
			}
		}
		return true
	})
	mcpWaitFor(t, "a new gopls", time.Minute, func() bool {
		_, g := pluginGopls(t, s.cmd.Process.Pid)
		return len(g) == 1 && g[0].pid != old.pid
	})
	if tools := listTools(t, cs); tools["mcptest_added"] == nil {
		t.Fatalf("the reload did not serve the added tool; stderr:\n%s", s.stderr)
	}
	fileSymbols(t, s, cs)
	if plugins, gopls := pluginGopls(t, s.cmd.Process.Pid); len(plugins) != 1 || len(gopls) != 1 {
		t.Errorf("after the reload and a call: plugins %v, gopls %v", plugins, gopls)
	}
}

// With --profile all every language's tools are served, but only the
// languages the workspace uses are warmed: a Go module gets gopls, not
// pyright, typescript-language-server or clangd.
func TestMCPPrewarmProfileAllWarmsDetectedLanguages(t *testing.T) {
	requireGopls(t)
	s, cs := startStdioServer(t, semanticFixture(t), "--profile", "all")
	waitGopls(t, s)
	tools := listTools(t, cs)
	if tools["python_find_references"] == nil || tools["go_find_references"] == nil {
		t.Fatalf("--profile all does not serve every language's semantic tools; stderr:\n%s", s.stderr)
	}
	// Warms start together: another language's plugin would be up by the
	// time gopls is.
	if plugins, _ := pluginGopls(t, s.cmd.Process.Pid); len(plugins) != 1 {
		t.Errorf("plugins %v, want go's alone; every process below langhost:\n%v\nstderr:\n%s",
			plugins, descendants(t, s.cmd.Process.Pid), s.stderr)
	}
}

// BenchmarkMCPFirstCallAfterIdle measures the first semantic call of a
// client that connects, lists the tools and calls go_file_symbols after
// an idle second (an agent's first turn takes longer), with and without
// prewarm. The metric is the call alone, not the start or the idle time.
func BenchmarkMCPFirstCallAfterIdle(b *testing.B) {
	const idle = time.Second
	for _, prewarm := range []bool{true, false} {
		b.Run(fmt.Sprintf("prewarm=%v", prewarm), func(b *testing.B) {
			if _, err := exec.LookPath("gopls"); err != nil {
				b.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH")
			}
			f := newMCPFixture(b)
			if err := os.Remove(filepath.Join(f.specs, "go.yaml")); err != nil {
				b.Fatal(err)
			}
			var calls []float64
			for b.Loop() {
				cmd := f.command(b, fmt.Sprintf("--prewarm=%v", prewarm))
				client := mcp.NewClient(&mcp.Implementation{Name: "langhost-bench", Version: "1"}, nil)
				cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					b.Fatal(err)
				}
				listTools(b, cs)
				time.Sleep(idle)
				start := time.Now()
				res, _ := callTool(b, cs, "go_file_symbols", map[string]any{"file": "main.go"})
				calls = append(calls, float64(time.Since(start).Microseconds())/1000)
				if res.IsError {
					b.Fatalf("go_file_symbols: %s", resultText(res))
				}
				_ = cs.Close()
			}
			slices.Sort(calls)
			b.ReportMetric(calls[len(calls)/2], "ms/first-call")
		})
	}
}
