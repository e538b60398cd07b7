package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/host/agent/session"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/internal/workspace"
)

// agentWorkspace is a Go module whose Add subtracts.
func agentWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	write(t, filepath.Join(ws, "go.mod"), "module example.com/calc\n\ngo 1.22\n")
	write(t, filepath.Join(ws, "calc.go"), "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n")
	write(t, filepath.Join(ws, "calc_test.go"), "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n")
	return ws
}

func scriptedServer(t *testing.T, script string) *modeltest.Server {
	t.Helper()
	s, err := modeltest.ParseScript(t.Name(), []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return modeltest.NewServer(t, s)
}

const fixScript = `
turns:
  - expect: {tools_include: [workspace_replace_in_file, go_test], system_contains: ["Go", "## Role: default", "Keep Add pure."]}
    reply:
      tool_calls:
        - name: workspace_replace_in_file
          arguments: {path: calc.go, edits: [{old_text: "return a - b", new_text: "return a + b"}]}
  - expect: {last_tool_result_is_error: false}
    reply: {tool_calls: [{name: go_test, arguments: {}}]}
  - expect: {last_tool_result_contains: '"passed":1'}
    reply: {text: "Add returns a + b now; go test passes."}
`

// withoutGopls drops the directories holding gopls from PATH: the test
// binary cannot serve the semantic plugin, so writes are checked by the
// language's gate tool (go build on a copy) instead.
func withoutGopls(t *testing.T) {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "gopls")); err != nil {
			keep = append(keep, dir)
		}
	}
	t.Setenv("PATH", strings.Join(keep, string(filepath.ListSeparator)))
}

func TestAgentRunAndStatus(t *testing.T) {
	withoutGopls(t)
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	write(t, filepath.Join(c.ws, "AGENTS.md"), "Keep Add pure.\n")
	c.env["OPENAI_API_KEY"] = "sk-test-0123456789abcdefghij"
	srv := scriptedServer(t, fixScript)
	o := c.run("agent", "run", "--allow-workspace-code", "--provider", "openai-compatible", "--base-url", srv.OpenAIURL(), "--model", "scripted",
		"--yes", "make TestAdd in calc_test.go pass")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var res session.Result
	data, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Agent != "go-coding" || res.StopReason != "final_answer" || res.Steps != 3 || res.ToolCalls != 2 || len(res.Events) == 0 {
		t.Fatalf("result = %+v", res)
	}
	got, _ := os.ReadFile(filepath.Join(c.ws, "calc.go"))
	if !strings.Contains(string(got), "return a + b") {
		t.Fatalf("calc.go not fixed:\n%s", got)
	}
	raw, err := os.ReadFile(filepath.Join(c.ws, filepath.FromSlash(res.Transcript)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "sk-test") {
		t.Fatal("the API key is in the transcript")
	}

	c.json = false
	o = c.run("agent", "status")
	for _, want := range []string{res.Run, "go-coding", "finished", "final_answer", "tool calls   2"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, o.stdout)
		}
	}
}

func TestAgentRunErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"empty task", []string{" "}, 2},
		{"unknown workflow", []string{"--workflow", "yolo", "x"}, 2},
		{"unknown language", []string{"--language", "gox", "x"}, 3},
		{"unknown provider", []string{"--provider", "skynet", "x"}, 2},
		{"openai-compatible without URL", []string{"--provider", "openai-compatible", "--model", "m", "x"}, 2},
		{"two tasks", []string{"a", "b"}, 2},
		{"negative max-steps", []string{"--max-steps", "-1", "x"}, 2},
		{"negative budget", []string{"--budget", "-1s", "x"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.ws = agentWorkspace(t)
			o := c.run(append([]string{"agent", "run", "--language", "go"}, tt.args...)...)
			if tt.name == "unknown language" {
				o = c.run(append([]string{"agent", "run"}, tt.args...)...)
			}
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", o.code, tt.code, o.stdout, o.stderr)
			}
		})
	}
}

func TestAgentStatusWithoutRuns(t *testing.T) {
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	if o := c.run("agent", "status"); o.code != 3 {
		t.Fatalf("exit %d, want 3 (not_found)\n%s", o.code, o.stdout)
	}
	if o := c.run("agent", "status", "../../etc/passwd"); o.code != 2 {
		t.Fatalf("exit %d, want 2 (invalid run id)\n%s", o.code, o.stdout)
	}
}

func TestAgentsList(t *testing.T) {
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	// The old spelling still answers the same.
	if old, now := c.run("agents", "list"), c.run("agent", "list"); old.code != 0 || fmt.Sprint(old.env.Data) != fmt.Sprint(now.env.Data) {
		t.Errorf("agents list (exit %d) and agent list answer differently", old.code)
	}
	o := c.run("agent", "list")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	var list []struct {
		ID       string
		Priority int
		Tools    []string
		Settings struct{ Provider, Model string }
	}
	data, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.ID == "go-coding" {
			if a.Settings.Provider == "" || !agentHasTool(a.Tools, "go.test") || !agentHasTool(a.Tools, "workspace.read_file") {
				t.Fatalf("go-coding = %+v", a)
			}
			return
		}
	}
	t.Fatalf("no go-coding in %+v", list)
}

func agentHasTool(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const workflowScript = `
turns:
  - expect: {system_contains: ["Role: planner"]}
    reply: {tool_calls: [{name: workspace_read_file, arguments: {path: calc.go}}]}
  - reply: {text: '{"steps": [{"title": "Make Add add", "files": ["calc.go"], "acceptance": ["go.test passes"]}]}'}
  - expect: {system_contains: ["Role: coder"], last_user_contains: "Implement step 1 of 1"}
    reply:
      tool_calls:
        - name: workspace_replace_in_file
          arguments: {path: calc.go, edits: [{old_text: "return a - b", new_text: "return a + b"}]}
  - reply: {tool_calls: [{name: go_test, arguments: {}}]}
  - expect: {last_tool_result_contains: '"passed":1'}
    reply: {text: "Add fixed; go test passes."}
  - expect: {system_contains: ["Role: reviewer"], last_user_contains: "return a + b"}
    reply: {tool_calls: [{name: go_test, arguments: {}}]}
  - expect: {last_tool_result_contains: "escalation refused"}
    reply: {text: '{"approved": true, "reasons": ["Add adds; the diff is minimal and the build is clean"]}'}
`

// TestAgentRunWorkflow: plan-code-review through the CLI, with the shipped
// roles: the reviewer's call to an exec tool is refused and logged.
func TestAgentRunWorkflow(t *testing.T) {
	withoutGopls(t)
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	srv := scriptedServer(t, workflowScript)
	o := c.run("agent", "run", "--allow-workspace-code", "--workflow", "plan-code-review", "--provider", "openai-compatible", "--base-url", srv.OpenAIURL(),
		"--model", "scripted", "--yes", "--language", "go", "make TestAdd pass")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var res session.Result
	data, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "approved" || res.Result == nil || len(res.Result.Reviews) != 1 || res.Role != "reviewer" {
		t.Fatalf("result = %+v", res)
	}
	escalations := 0
	for _, ev := range res.Events {
		if ev.Type == "escalation" && ev.Role == "reviewer" && ev.Tool == "go.test" {
			escalations++
		}
	}
	if escalations != 1 {
		t.Fatalf("escalations = %d, want the reviewer's go.test refused once", escalations)
	}
	c.json = false
	if o = c.run("agent", "status"); !strings.Contains(o.stdout, "escalations  1") || !strings.Contains(o.stdout, "approved") {
		t.Fatalf("status:\n%s", o.stdout)
	}
}

// TestAgentRunTextIsPrintable: a final answer with terminal escapes is
// printed with them shown, not acted on.
func TestAgentRunTextIsPrintable(t *testing.T) {
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	c.json = false
	srv := scriptedServer(t, "turns:\n  - reply: {text: \"done\\e]0;pwned\\a\\e[2J\"}\n")
	o := c.run("agent", "run", "--allow-workspace-code", "--provider", "openai-compatible", "--base-url", srv.OpenAIURL(), "--model", "scripted", "--language", "go", "x")
	if o.code != 0 || strings.ContainsAny(o.stdout, "\x1b\x07") || !strings.Contains(o.stdout, "answer: done") {
		t.Fatalf("exit %d, stdout %q", o.code, o.stdout)
	}
}

// A run whose process was killed (no run_end) shows as crashed, not as
// running forever.
func TestAgentStatusCrashedRun(t *testing.T) {
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	ws, err := workspace.New(c.ws)
	if err != nil {
		t.Fatal(err)
	}
	w, err := transcript.Create(ws, "run-killed", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A process that ran and is gone stands for the killed `agent run`.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command(exe, "-test.run=^$")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, ev := range []transcript.Event{
		{Type: transcript.RunStart, Run: "run-killed", Agent: "go-coding", Task: "fix it", PID: dead.Process.Pid, Host: host},
		{Type: transcript.RoleChange, To: "coder", Reason: "single-agent run"},
		{Type: transcript.ToolCall, Role: "coder", Step: 2, Tool: "go_build"},
	} {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	o := c.run("agent", "status")
	if o.code != 0 || o.env.Data.(map[string]any)["state"] != "crashed" || o.env.Data.(map[string]any)["stop_reason"] != "crashed" {
		t.Fatalf("exit %d, status %v\n%s", o.code, o.env.Data, o.stderr)
	}
	c.json = false
	o = c.run("agent", "status", "run-killed")
	for _, want := range []string{"state        crashed", "role         coder", "stop reason  crashed", "killed or crashed"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, o.stdout)
		}
	}
	t.Logf("langhost agent status:\n%s", o.stdout)
}
