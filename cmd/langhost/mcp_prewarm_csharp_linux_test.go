//go:build linux

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// csharpLS returns the csharp-ls processes below pid.
func csharpLS(t *testing.T, pid int) []proc {
	var out []proc
	for _, p := range descendants(t, pid) {
		if !p.zombie && len(p.args) > 0 && strings.Contains(strings.Join(p.args, " "), "csharp-ls") && !isPlugin(p.args) {
			out = append(out, p)
		}
	}
	return out
}

// TestMCPPrewarmLoadsTheSolution: in a trusted workspace with a solution,
// langhost mcp starts csharp-ls and has it load the solution before any
// call, and the first call answers from that server (none other starts).
// In the same workspace untrusted, prewarm starts nothing: loading the
// solution runs its MSBuild targets.
func TestMCPPrewarmLoadsTheSolution(t *testing.T) {
	if _, err := exec.LookPath("csharp-ls"); err != nil {
		t.Fatal("csharp-ls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH")
	}
	f := semanticFixture(t)
	if err := os.RemoveAll(f.workspace); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(f.workspace, os.DirFS("../../plugins/semantic/testdata/shop")); err != nil {
		t.Fatal(err)
	}

	s, cs := startStdioServer(t, f)
	listTools(t, cs)
	time.Sleep(3 * time.Second)
	if ls := csharpLS(t, s.cmd.Process.Pid); len(ls) > 0 {
		t.Fatalf("untrusted, prewarm started csharp-ls: %v", ls)
	}
	s.signalAndWait(t, os.Interrupt)

	trust := exec.Command(langhostBinary(t), "trust", "--workspace", f.workspace)
	trust.Env = f.command(t).Env
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	s, cs = startStdioServer(t, f)
	var warmed []proc
	mcpWaitFor(t, "csharp-ls started by prewarm before any call", 2*time.Minute, func() bool {
		warmed = csharpLS(t, s.cmd.Process.Pid)
		return len(warmed) == 1
	})
	res, _ := callTool(t, cs, "csharp_find_symbol", map[string]any{"query": "Clock"})
	if res.IsError || !strings.Contains(resultText(res), "Clock.cs") {
		t.Fatalf("csharp_find_symbol: %s\nstderr:\n%s", resultText(res), s.stderr)
	}
	if after := csharpLS(t, s.cmd.Process.Pid); len(after) != 1 || after[0].pid != warmed[0].pid {
		t.Errorf("after the first call csharp-ls is %v, want the prewarmed %d alone", after, warmed[0].pid)
	}
}
