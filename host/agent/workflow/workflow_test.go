package workflow_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/agent/workflow"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/prompts"
)

func newHost(t *testing.T) *host.Host {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.22\n",
		"calc.go":      "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = dir
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Languages: []string{"go", "workspace"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func setup(t *testing.T, script string) (*host.Host, workflow.Config, *transcript.Writer, *modeltest.Server) {
	t.Helper()
	h := newHost(t)
	s, err := modeltest.ParseScript(t.Name(), []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewServer(t, s)
	zero := 0
	p, err := model.New(model.Config{Provider: "openai-compatible", Model: "scripted", BaseURL: srv.OpenAIURL(), MaxRetries: &zero}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := transcript.Create(h.Workspace, transcript.NewID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	var tools []*registry.Tool
	for _, tool := range h.Registry.Tools() {
		if tool.Language == "go" || tool.Language == "workspace" {
			tools = append(tools, tool)
		}
	}
	e := &agent.Executor{Provider: p, Registry: h.Registry, Transcript: w, Confirm: func(*registry.Tool) bool { return true }, WorkspaceCode: true}
	set, err := prompts.LoadRoles("", "", false) // the shipped roles
	if err != nil {
		t.Fatal(err)
	}
	cfg := workflow.Config{Executor: e, Workspace: h.Workspace, Role: e.Roles(set), Tools: tools,
		System:   func(role string) (string, error) { return "You are the " + role + ".", nil },
		Settings: agent.Settings{MaxSteps: 6}}
	return h, cfg, w, srv
}

const planJSON = `{"summary": "fix Add", "steps": [{"title": "Make Add add", "files": ["calc.go"], "acceptance": ["go.test passes"]}]}`

// TestPlanCodeReview: the workflow completes with a role escalation refused
// along the way (the reviewer tries to write a file), a rejection sending
// the coder back, and an approval.
func TestPlanCodeReview(t *testing.T) {
	h, cfg, w, srv := setup(t, `
turns:
  - expect: {system_contains: [planner], tools_include: [workspace_read_file]}
    reply: {tool_calls: [{name: workspace_read_file, arguments: {path: calc.go}}]}
  - expect: {last_tool_result_contains: "return a - b"}
    reply: {text: '`+"```json\\n"+planJSON+"\\n```"+`'}
  - expect: {system_contains: [coder], last_user_contains: "Implement step 1 of 1: Make Add add"}
    reply:
      tool_calls:
        - name: workspace_replace_in_file
          arguments: {path: calc.go, edits: [{old_text: "return a - b", new_text: "return a + b"}]}
  - expect: {last_tool_result_is_error: false}
    reply: {tool_calls: [{name: go_test, arguments: {}}]}
  - expect: {last_tool_result_contains: '"passed":1'}
    reply: {text: step done}
  - expect: {system_contains: [reviewer], last_user_contains: "+\treturn a + b"}
    reply: {tool_calls: [{name: workspace_write_file, arguments: {path: calc.go, content: "package calc\n"}}]}
  - expect: {last_tool_result_contains: "may not call workspace.write_file", last_tool_result_is_error: true}
    reply: {text: '{"approved": false, "reasons": ["the doc comment should say it adds"]}'}
  - expect: {system_contains: [coder], last_user_contains: "the doc comment should say it adds"}
    reply:
      tool_calls:
        - name: workspace_replace_in_file
          arguments: {path: calc.go, edits: [{old_text: "returns the sum", new_text: "adds a and b: it returns the sum"}]}
  - expect: {last_tool_result_is_error: false}
    reply: {text: revised}
  - expect: {system_contains: [reviewer], last_user_contains: "adds a and b"}
    reply: {text: '{"approved": true, "reasons": ["Add adds; tests pass"]}'}
`)
	res, err := workflow.Run(context.Background(), cfg, "make TestAdd pass")
	if err != nil {
		t.Fatalf("workflow: %v (server: %v)", err, refusals(srv))
	}
	if res.StopReason != workflow.StopApproved || len(res.Reviews) != 2 || !slices.Equal(res.Changed, []string{"calc.go"}) {
		t.Fatalf("result = %+v", res)
	}
	b, _ := os.ReadFile(filepath.Join(h.Workspace.Dir(), "calc.go"))
	if !strings.Contains(string(b), "return a + b") || !strings.Contains(string(b), "adds a and b") {
		t.Fatalf("calc.go:\n%s", b)
	}
	evs, err := transcript.Read(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var roles, escalations []string
	for _, ev := range evs {
		switch ev.Type {
		case transcript.RoleChange:
			roles = append(roles, ev.To)
			if ev.Reason == "" {
				t.Errorf("transition to %s without a reason", ev.To)
			}
		case transcript.Escalation:
			escalations = append(escalations, ev.Role+":"+ev.Tool)
		}
	}
	if want := []string{"planner", "coder", "reviewer", "coder", "reviewer"}; !slices.Equal(roles, want) {
		t.Errorf("roles = %q, want %q", roles, want)
	}
	if want := []string{"reviewer:workspace.write_file"}; !slices.Equal(escalations, want) {
		t.Errorf("escalations = %q, want %q", escalations, want)
	}
}

// TestInvalidPlan: an invalid plan is sent back once with what is wrong;
// a second invalid one fails the workflow clearly, before any coding.
func TestInvalidPlan(t *testing.T) {
	_, cfg, _, srv := setup(t, `
turns:
  - reply: {text: "I would fix Add."}
  - expect: {last_user_contains: "the answer has no JSON object"}
    reply: {text: '{"steps": [{"title": "x", "files": ["../../etc/passwd"], "acceptance": ["ok"]}]}'}
`)
	res, err := workflow.Run(context.Background(), cfg, "make TestAdd pass")
	if err == nil || res.StopReason != workflow.StopInvalidPlan || !strings.Contains(err.Error(), "steps[0].files[0]") {
		t.Fatalf("result %+v, err %v (server: %v)", res, err, refusals(srv))
	}
	if srv.Remaining() != 0 {
		t.Fatalf("%d turns left", srv.Remaining())
	}
}

func refusals(srv *modeltest.Server) string {
	var out []string
	for i, r := range srv.Requests() {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("request %d: %s", i, r.Error))
		}
	}
	return strings.Join(out, "; ")
}
