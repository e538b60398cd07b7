package agent_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/prompts"
)

// TestGoCodingFixesAGoFixture is the acceptance run: a scripted
// model drives go-coding through a real fix on a Go module, with gopls
// checking each edit. The first edit adds a compile error and is rejected
// (diagnostic_regression, nothing written); the second is accepted; go.test
// is green.
func TestGoCodingFixesAGoFixture(t *testing.T) {
	builtintest.RequireTools(t, "gopls")
	h := newHost(t, goFixture)
	p, srv := scripted(t, `
turns:
  - expect: {tools_include: [go_edit_file, go_test, workspace_read_file]}
    reply:
      tool_calls:
        - name: go_edit_file
          arguments: {file: calc.go, edits: [{old_text: "return a - b", new_text: "return a + c"}]}
  - expect: {last_tool_result_contains: diagnostic_regression, last_tool_result_is_error: true}
    reply:
      text: "c is undefined; the fix is a + b."
      tool_calls:
        - name: go_edit_file
          arguments: {file: calc.go, edits: [{old_text: "return a - b", new_text: "return a + b"}]}
  - expect: {last_tool_result_is_error: false}
    reply:
      tool_calls: [{name: go_test, arguments: {packages: "./..."}}]
  - expect: {last_tool_result_contains: '"failed":0', last_tool_result_is_error: false}
    reply: {text: "Add now returns a + b; go test passes."}
`)
	e, w := executor(t, h, p)
	e.Transition(agent.Role{Name: "coder"}, "single-agent run")
	out, err := e.Loop(context.Background(), agent.Task{System: "You are go-coding.", Messages: userTask("Fix Add in calc.go"),
		Tools: goTools(t, h), MaxSteps: 10})
	if err != nil {
		t.Fatalf("loop: %v (server: %s)", err, refusals(srv))
	}
	if out.StopReason != agent.StopFinalAnswer || out.Steps != 4 || out.ToolCalls != 3 {
		t.Fatalf("outcome = %+v, want final_answer after 4 steps and 3 tool calls", out)
	}
	if got := readFile(t, h, "calc.go"); !strings.Contains(got, "return a + b") {
		t.Fatalf("calc.go was not fixed:\n%s", got)
	}
	var codes []string
	for _, ev := range events(t, w) {
		if ev.Type == transcript.ToolResult {
			codes = append(codes, ev.Tool+":"+ev.Code)
		}
		if ev.Role != "coder" {
			t.Errorf("event %d (%s) has role %q, want coder", ev.Seq, ev.Type, ev.Role)
		}
	}
	want := []string{"go.edit_file:diagnostic_regression", "go.edit_file:", "go.test:"}
	if !slices.Equal(codes, want) {
		t.Fatalf("tool results = %q, want %q", codes, want)
	}
	// The rejection told the model which diagnostic the edit would add.
	reqs := srv.Requests()
	rejected := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(rejected, "new_diagnostics") || !strings.Contains(rejected, "undefined: c") {
		t.Fatalf("rejection observation lacks the new diagnostic: %s", rejected)
	}
}

// TestMaxStepsStopsALoopingModel: a model that keeps calling a failing
// tool is stopped by maxSteps, with the stop reason saying so.
func TestMaxStepsStopsALoopingModel(t *testing.T) {
	h := newHost(t, goFixture)
	turn := `
  - reply:
      tool_calls: [{name: go_build, arguments: {packages: "./...", bogus: 1}}]`
	p, srv := scripted(t, "turns:"+strings.Repeat(turn, 5))
	e, _ := executor(t, h, p)
	out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("build"), Tools: goTools(t, h), MaxSteps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if out.StopReason != agent.StopMaxSteps || out.Steps != 3 || len(srv.Requests()) != 3 {
		t.Fatalf("outcome = %+v after %d requests, want max_steps after 3", out, len(srv.Requests()))
	}
	last := out.Messages[len(out.Messages)-1]
	if !last.IsError || !strings.Contains(last.Content, "invalid_input") || !strings.Contains(last.Content, "bogus") {
		t.Fatalf("last observation = %+v, want invalid_input naming bogus", last)
	}
}

// TestHostileModelOutput: whatever the model sends, the loop goes on and
// the model is told what was wrong; nothing runs that should not.
func TestHostileModelOutput(t *testing.T) {
	h := newHost(t, goFixture)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.Workspace.Dir(), "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		call   string // one tool call, YAML
		expect string // what the next request must contain
	}{
		{"unknown tool", `{name: rm_rf, arguments: {}}`, `last_user_contains: "could not be used"`},
		{"arguments not JSON", `{name: go_build, raw_arguments: "{not json"}`, `last_user_contains: "could not be used"`},
		{"arguments an array", `{name: go_build, raw_arguments: "[1, 2]"}`, `last_user_contains: "could not be used"`},
		{"schema-invalid argument", `{name: go_build, arguments: {packages: 42}}`, `last_tool_result_contains: invalid_input`},
		{"unknown argument", `{name: go_test, arguments: {rm: true}}`, `last_tool_result_contains: invalid_input`},
		{"path outside the workspace", `{name: workspace_read_file, arguments: {path: ../../../etc/passwd}}`, `last_tool_result_contains: leaves the workspace`},
		{"absolute path", `{name: workspace_write_file, arguments: {path: /etc/langhost-agent-test, content: x}}`, `last_tool_result_contains: invalid_input`},
		{"write through a symlink out", `{name: workspace_write_file, arguments: {path: out/x.go, content: "package x"}}`, `last_tool_result_contains: precondition_failed`},
		{"option as a value", `{name: go_test, arguments: {packages: "-exec=/bin/sh"}}`, `last_tool_result_contains: invalid_input`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, srv := scripted(t, fmt.Sprintf(`
turns:
  - reply: {tool_calls: [%s]}
  - expect: {%s}
    reply: {text: done}
`, tt.call, tt.expect))
			e, _ := executor(t, h, p)
			out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("go"), Tools: goTools(t, h), MaxSteps: 5})
			if err != nil || out.StopReason != agent.StopFinalAnswer {
				t.Fatalf("outcome %+v, %v (server: %s)", out, err, refusals(srv))
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Fatalf("a file was written outside the workspace: %v", entries[0].Name())
			}
		})
	}
}

// TestRoleRefusesEscalation: a reviewer's call to a tool that changes
// files is refused by the executor, logged as an escalation, and never
// runs; its read-only calls run.
func TestRoleRefusesEscalation(t *testing.T) {
	h := newHost(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "m.go": "package m\nfunc  F( ) {}\n"})
	p, _ := scripted(t, `
turns:
  - reply: {tool_calls: [{name: go_fmt, arguments: {}}]}
  - expect: {last_tool_result_contains: "may not call go.fmt", last_tool_result_is_error: true}
    reply: {tool_calls: [{name: workspace_read_file, arguments: {path: m.go}}]}
  - expect: {last_tool_result_is_error: false}
    reply: {text: '{"approved": false, "reasons": ["m.go is not gofmt-ed"]}'}
`)
	e, w := executor(t, h, p)
	set, err := prompts.LoadRoles("", "", false)
	if err != nil {
		t.Fatal(err)
	}
	e.Transition(e.Roles(set)("reviewer"), "review")
	out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("review"), Tools: goTools(t, h), MaxSteps: 5})
	if err != nil || out.StopReason != agent.StopFinalAnswer {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if got := readFile(t, h, "m.go"); got != "package m\nfunc  F( ) {}\n" {
		t.Fatalf("go.fmt ran for the reviewer: m.go = %q", got)
	}
	var esc []transcript.Event
	for _, ev := range events(t, w) {
		if ev.Type == transcript.Escalation {
			esc = append(esc, ev)
		}
	}
	if len(esc) != 1 || esc[0].Tool != "go.fmt" || esc[0].Role != "reviewer" || esc[0].Step != 1 {
		t.Fatalf("escalations = %+v, want go.fmt by reviewer at step 1", esc)
	}
}

// TestBudgets: a token budget and a cancelled context stop the loop before
// the next model call, each with its own stop reason.
func TestBudgets(t *testing.T) {
	h := newHost(t, goFixture)
	script := `
turns:
  - reply: {tool_calls: [{name: workspace_list_files, arguments: {}}], usage: {input_tokens: 900, output_tokens: 200}}
  - reply: {text: never}
`
	t.Run("tokens", func(t *testing.T) {
		p, srv := scripted(t, script)
		e, _ := executor(t, h, p)
		e.Budget.MaxTokens = 1000
		out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("x"), Tools: goTools(t, h), MaxSteps: 5})
		if err != nil || out.StopReason != agent.StopTokenBudget || len(srv.Requests()) != 1 {
			t.Fatalf("outcome %+v, %v after %d requests; want token_budget after 1", out, err, len(srv.Requests()))
		}
		if u := e.Usage(); u.InputTokens != 900 || u.OutputTokens != 200 {
			t.Fatalf("usage = %+v", u)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		p, srv := scripted(t, script)
		e, _ := executor(t, h, p)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out, err := e.Loop(ctx, agent.Task{Messages: userTask("x"), Tools: goTools(t, h), MaxSteps: 5})
		if err != nil || out.StopReason != agent.StopCanceled || len(srv.Requests()) != 0 {
			t.Fatalf("outcome %+v, %v after %d requests; want canceled before any", out, err, len(srv.Requests()))
		}
	})
	t.Run("time", func(t *testing.T) {
		p, _ := scripted(t, script)
		e, _ := executor(t, h, p)
		ctx, cancel := e.WithTimeBudget(context.Background(), 1)
		defer cancel()
		<-ctx.Done()
		out, err := e.Loop(ctx, agent.Task{Messages: userTask("x"), Tools: goTools(t, h), MaxSteps: 5})
		if err != nil || out.StopReason != agent.StopTimeBudget {
			t.Fatalf("outcome %+v, %v; want time_budget", out, err)
		}
	})
}

// TestUnknownRoleIsDefault: an unknown role name runs as Default, and the
// substitution is logged as a transition with its reason.
func TestUnknownRoleIsDefault(t *testing.T) {
	h := newHost(t, goFixture)
	p, _ := scripted(t, "turns: []")
	e, w := executor(t, h, p)
	set, err := prompts.LoadRoles("", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Roles(set)("root"); r.Name != "default" || r.Allows == nil {
		t.Fatalf("role = %+v, want default with its rules", r)
	}
	evs := events(t, w)
	if len(evs) != 1 || evs[0].Type != transcript.RoleChange || evs[0].To != "default" || !strings.Contains(evs[0].Reason, `unknown role "root"`) {
		t.Fatalf("events = %+v", evs)
	}
	if r := e.Roles(set)("reviewer"); r.Name != "reviewer" {
		t.Fatalf("role = %+v", r)
	}
}

// TestCallsPerStepBounded: a turn asking for more tool calls than
// MaxCallsPerStep runs only that many; every call is still answered.
func TestCallsPerStepBounded(t *testing.T) {
	h := newHost(t, goFixture)
	calls := strings.Repeat("{name: workspace_list_files, arguments: {}}, ", agent.MaxCallsPerStep+4)
	p, srv := scripted(t, `
turns:
  - reply: {tool_calls: [`+calls+`]}
  - expect: {last_tool_result_contains: "not run: at most"}
    reply: {text: done}
`)
	e, _ := executor(t, h, p)
	out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("x"), Tools: goTools(t, h)})
	if err != nil || out.StopReason != agent.StopFinalAnswer || out.ToolCalls != agent.MaxCallsPerStep {
		t.Fatalf("outcome %+v, %v (server: %s)", out, err, refusals(srv))
	}
}

// TestBothWireFormats: the loop runs the same over the OpenAI and the
// Anthropic wire formats (the official SDKs against the scripted server),
// and live progress names the step, role and tool.
func TestBothWireFormats(t *testing.T) {
	h := newHost(t, goFixture)
	script := `
turns:
  - reply: {tool_calls: [{name: workspace_search, arguments: {pattern: "a - b"}}]}
  - expect: {last_tool_result_contains: "calc.go"}
    reply: {text: "Add subtracts in calc.go"}
`
	for _, provider := range []string{"openai-compatible", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			s, err := modeltest.ParseScript(t.Name(), []byte(script))
			if err != nil {
				t.Fatal(err)
			}
			srv := modeltest.NewServer(t, s)
			// The test is the user choosing the scripted server for the key.
			cfg := model.Config{Provider: provider, Model: "scripted", BaseURL: srv.OpenAIURL(), UserEndpoint: true}
			if provider == "anthropic" {
				cfg.BaseURL = srv.URL()
			}
			p, err := model.New(cfg, func(string) string { return "test-key-0123456789" })
			if err != nil {
				t.Fatal(err)
			}
			e, _ := executor(t, h, p)
			var live bytes.Buffer
			e.Live = &live
			e.Transition(agent.Role{Name: "coder"}, "test")
			out, err := e.Loop(context.Background(), agent.Task{Messages: userTask("where is the bug?"), Tools: goTools(t, h)})
			if err != nil || out.StopReason != agent.StopFinalAnswer || out.Answer != "Add subtracts in calc.go" {
				t.Fatalf("outcome %+v, %v (server: %s)", out, err, refusals(srv))
			}
			if !strings.Contains(live.String(), "[step 1] coder: workspace.search -> ok") {
				t.Fatalf("live progress:\n%s", live.String())
			}
		})
	}
}

// TestLiveProgressIsSanitized: a tool name with terminal escapes from the
// model does not reach the terminal as escapes.
func TestLiveProgressIsSanitized(t *testing.T) {
	h := newHost(t, goFixture)
	e, _ := executor(t, h, nil)
	var live bytes.Buffer
	e.Live = &live
	e.Transition(agent.Role{Name: "coder\x1b[2J"}, "\x1b]0;pwned\x07")
	if strings.ContainsAny(live.String(), "\x1b\x07") {
		t.Fatalf("escape reached the terminal: %q", live.String())
	}
}
