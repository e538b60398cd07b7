// Package session runs one agent run end to end, the same way for
// `langhost agent run` and `langhost bench`: the transcript, the executor
// with its roles and budgets, the single-agent loop or the plan-code-review
// workflow, and the result with the whole transcript.
package session

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/agent/workflow"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
)

// Options are one run.
type Options struct {
	Registry  *registry.Registry
	Workspace *workspace.Root
	Agent     *agent.Specialist
	Roles     *roles.Set
	Task      string
	Workflow  string // "" or workflow.Name
	Role      string // of a single-agent run
	Settings  agent.Settings
	Provider  model.Provider
	Confirm   func(t *registry.Tool) bool
	// WorkspaceCode is the user's consent to running code the workspace
	// controls (agent.Executor.WorkspaceCode).
	WorkspaceCode bool
	Budget        agent.Budget
	// TimeBudget bounds the whole run; 0 is no bound.
	TimeBudget time.Duration
	MaxRounds  int
	// PromptsDir is the user's prompt directory (prompts.UserDir).
	PromptsDir string
	// Secrets (API keys) are redacted from everything the run outputs:
	// the transcript, the live lines, the result and its error.
	Secrets []string
	Live    io.Writer
	Logger  hclog.Logger
}

// Result is how a run ended.
type Result struct {
	Run        string             `json:"run"`
	Agent      string             `json:"agent"`
	Workflow   string             `json:"workflow,omitempty"`
	Provider   string             `json:"provider"`
	Model      string             `json:"model"`
	Role       string             `json:"role"`
	StopReason string             `json:"stop_reason"`
	Answer     string             `json:"answer,omitempty"`
	Steps      int                `json:"steps"`
	ToolCalls  int                `json:"tool_calls"`
	Tokens     model.Usage        `json:"tokens"`
	DurationMS float64            `json:"duration_ms"`
	Result     *workflow.Result   `json:"result,omitempty"`
	Transcript string             `json:"transcript"` // workspace-relative
	Events     []transcript.Event `json:"events"`
	// Err is why the run stopped early, if it did (StopError).
	Err error `json:"-"`
}

// Run runs o. The error is set when the run could not start (the
// transcript, the prompt); how a started run ended is in the result. The
// result and the error are redacted (Options.Secrets): a model that
// repeats a key it saw does not get it printed.
func Run(ctx context.Context, o Options) (*Result, error) {
	red := redact.New(o.Secrets...)
	if o.Live != nil {
		lw := redact.NewWriter(red, o.Live)
		defer lw.Flush()
		o.Live = lw
	}
	res, err := run(ctx, o, red)
	if err != nil {
		return nil, red.Error(err)
	}
	return Redact(red, res), nil
}

// Redact returns res with every secret r knows replaced, in every field
// and in Err.
func Redact(r *redact.Redactor, res *Result) *Result {
	out, err := redact.JSON(r, res)
	if err != nil {
		// Not expected (a Result round-trips); keep only what is
		// certainly clean rather than print a secret.
		out = &Result{Run: res.Run, Agent: res.Agent, Workflow: res.Workflow, Provider: res.Provider, Model: res.Model,
			Role: res.Role, StopReason: res.StopReason, Answer: r.String(res.Answer), Steps: res.Steps,
			ToolCalls: res.ToolCalls, Tokens: res.Tokens, DurationMS: res.DurationMS, Transcript: res.Transcript,
			Events: []transcript.Event{}}
	}
	if out == res {
		cp := *res
		out = &cp
	}
	out.Err = r.Error(res.Err)
	return out
}

func run(ctx context.Context, o Options, red *redact.Redactor) (*Result, error) {
	if strings.TrimSpace(o.Task) == "" {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "task", Message: "the task is empty"}
	}
	if o.Workflow != "" && o.Workflow != workflow.Name {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "workflow", Message: fmt.Sprintf("unknown workflow %q; there is %s", o.Workflow, workflow.Name)}
	}
	a := o.Agent
	tools := Tools(o.Registry, a)
	id := transcript.NewID()
	w, err := transcript.Create(o.Workspace, id, o.Secrets)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	e := &agent.Executor{Provider: o.Provider, Registry: o.Registry, Transcript: w, Logger: o.Logger,
		Confirm: o.Confirm, WorkspaceCode: o.WorkspaceCode, Budget: o.Budget, Live: o.Live}
	ctx, cancel := e.WithTimeBudget(ctx, o.TimeBudget)
	defer cancel()

	start := time.Now()
	e.Emit(transcript.Event{Type: transcript.RunStart, Run: id, Agent: a.ID, Workflow: o.Workflow, Task: o.Task,
		Provider: o.Settings.Provider, Model: o.Settings.Model})
	res := &Result{Run: id, Agent: a.ID, Workflow: o.Workflow, Provider: o.Settings.Provider, Model: o.Settings.Model}
	system := func(role string) (string, error) { return SystemPrompt(o, tools, role) }
	if o.Workflow == workflow.Name {
		wr, err := workflow.Run(ctx, workflow.Config{Executor: e, Workspace: o.Workspace, Role: e.Roles(o.Roles),
			System: system, Tools: tools, Settings: o.Settings, Check: GateCheck(o.Registry, a, o.WorkspaceCode), MaxRounds: o.MaxRounds}, o.Task)
		res.Result, res.StopReason, res.Answer, res.Err = wr, wr.StopReason, wr.Answer, err
	} else {
		role := e.Roles(o.Roles)(o.Role)
		e.Transition(role, "single-agent run")
		prompt, err := system(role.Name)
		if err != nil {
			return nil, err
		}
		out, err := e.Loop(ctx, agent.Task{System: prompt, Messages: []model.Message{{Role: model.User, Content: o.Task}},
			Tools: tools, MaxSteps: o.Settings.MaxSteps, Model: o.Settings.Model, Temperature: o.Settings.Temperature})
		res.StopReason, res.Answer, res.Err = out.StopReason, out.Answer, err
	}
	res.Role, res.Steps, res.ToolCalls, res.Tokens = e.Role().Name, e.Step(), e.ToolCalls(), e.Usage()
	res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	end := transcript.Event{Type: transcript.RunEnd, StopReason: res.StopReason, Answer: res.Answer, DurationMS: res.DurationMS}
	if res.Err != nil {
		end.Error = res.Err.Error()
	}
	e.Emit(end)
	res.Transcript = filepath.ToSlash(filepath.Join(transcript.Dir, id+".jsonl"))
	res.Events, _ = transcript.Read(w.Path())
	if res.Events == nil {
		res.Events = []transcript.Event{}
	}
	return res, nil
}

// StopError is the failure a run's stop reason stands for: only a final
// answer (or an approved review) is success.
func StopError(reason string, err error) error {
	switch reason {
	case agent.StopFinalAnswer, workflow.StopApproved:
		return nil
	case agent.StopTimeBudget:
		return failure.New(failure.Timeout, "the run's time budget was spent")
	case agent.StopCanceled:
		return failure.New(failure.Canceled, "the run was cancelled")
	}
	if err != nil {
		return failure.Wrap(failure.CodeOf(err), err, "the run stopped: %s", reason)
	}
	return failure.New(failure.ToolFailed, "the run stopped without a final answer: %s", reason)
}

// Tools returns the registered tools a is offered.
func Tools(reg *registry.Registry, a *agent.Specialist) []*registry.Tool {
	tools := make([]*registry.Tool, 0, len(a.Tools))
	for _, id := range a.Tools {
		if t, err := reg.Tool(id); err == nil {
			tools = append(tools, t)
		}
	}
	return tools
}

// SystemPrompt is what the model gets for role (prompts.System): the
// system layer, the role's, the language's (with the tools the role may
// call) and the workspace's (AGENTS.md, .langhost/prompts), the same text
// `langhost prompt show` prints.
func SystemPrompt(o Options, tools []*registry.Tool, role string) (string, error) {
	r, _ := o.Roles.Get(role)
	return prompts.System(prompts.Options{Role: r, Language: o.Agent.Spec, Tools: tools, Task: o.Task,
		Workspace: o.Workspace, UserDir: o.PromptsDir})
}

// GateCheck runs the language's gate tool (its build or type check) for
// the reviewer's diagnostics; nil when the language has none.
func GateCheck(reg *registry.Registry, a *agent.Specialist, workspaceCode bool) func(ctx context.Context) ([]diagnostic.Diagnostic, error) {
	gt := a.Spec.GateTool()
	if gt == nil {
		return nil
	}
	id := gt.ID
	if id == "" {
		id = a.Language + "." + a.Spec.Gate
	}
	return func(ctx context.Context) ([]diagnostic.Diagnostic, error) {
		res, err := reg.Call(ctx, id, registry.Call{Input: map[string]any{}, WorkspaceCode: workspaceCode})
		if err != nil {
			return nil, err
		}
		return res.Diagnostics, nil
	}
}
