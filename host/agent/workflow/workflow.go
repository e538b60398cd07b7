// Package workflow runs the plan-code-review workflow: a Planner turns the
// task into a validated plan, a Coder implements it step by step, and a
// Reviewer, given the diff of the files the run changed and the
// diagnostics, approves or rejects with reasons; a rejection sends the
// Coder back, a bounded number of times. Each role is enforced by the
// executor; every transition is logged with its reason.
package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Name is the workflow's name on the command line.
const Name = "plan-code-review"

// Role names of the workflow (prompts/roles).
const (
	Planner  = "planner"
	Coder    = "coder"
	Reviewer = "reviewer"
)

// Stop reasons of the workflow beyond those of a loop.
const (
	StopApproved    = "approved"
	StopRejected    = "rejected"     // still rejected after MaxRounds
	StopInvalidPlan = "invalid_plan" // no valid plan after one retry
)

// DefaultMaxRounds bounds review rounds when Config leaves it zero.
const DefaultMaxRounds = 2

// Config is what one workflow run needs.
type Config struct {
	Executor  *agent.Executor
	Workspace *workspace.Root
	// Role returns the enforced role of a name (planner, coder, reviewer).
	Role func(name string) agent.Role
	// System returns the system prompt of a role.
	System func(role string) (string, error)
	// Tools are offered to every role; the executor refuses those a role
	// may not call, so an attempt is seen and logged.
	Tools    []*registry.Tool
	Settings agent.Settings
	// Check returns the workspace's diagnostics for the Reviewer (the
	// language's gate tool); nil skips them.
	Check     func(ctx context.Context) ([]diagnostic.Diagnostic, error)
	MaxRounds int
}

// Result is how a workflow ended.
type Result struct {
	StopReason string     `json:"stop_reason"`
	Answer     string     `json:"answer,omitempty"`
	Plan       *Plan      `json:"plan,omitempty"`
	Reviews    []*Verdict `json:"reviews"`
	Changed    []string   `json:"changed_files"`
	Error      string     `json:"error,omitempty"`
}

// Run runs the workflow on task. The error is set when the workflow could
// not go on (no valid plan, the model failing); the result says where it
// stopped either way.
func Run(ctx context.Context, cfg Config, task string) (*Result, error) {
	e := cfg.Executor
	res := &Result{Reviews: []*Verdict{}}
	fail := func(reason string, err error) (*Result, error) {
		res.StopReason = reason
		if err != nil {
			res.Error = err.Error()
		}
		return res, err
	}
	before, err := take(ctx, cfg.Workspace)
	if err != nil {
		return fail(agent.StopCanceled, err)
	}

	e.Transition(cfg.Role(Planner), "workflow "+Name+" starts")
	plan, out, err := makePlan(ctx, cfg, task)
	if out != nil && out.StopReason != agent.StopFinalAnswer {
		return fail(out.StopReason, err)
	}
	if err != nil {
		return fail(StopInvalidPlan, err)
	}
	res.Plan = plan
	data, _ := json.Marshal(plan)
	e.Emit(transcript.Event{Type: transcript.Plan, Data: data})

	e.Transition(cfg.Role(Coder), fmt.Sprintf("plan accepted: %d steps", len(plan.Steps)))
	coder := []model.Message{{Role: model.User, Content: "Task: " + task}}
	for i := range plan.Steps {
		coder = append(coder, model.Message{Role: model.User, Content: stepPrompt(plan, i)})
		var out *agent.Outcome
		if out, coder, err = loop(ctx, cfg, Coder, coder); out.StopReason != agent.StopFinalAnswer {
			return fail(out.StopReason, err)
		}
	}

	maxRounds := cfg.MaxRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxRounds
	}
	for round := 1; ; round++ {
		e.Transition(cfg.Role(Reviewer), fmt.Sprintf("implementation ready for review (round %d of %d)", round, maxRounds))
		now, err := take(ctx, cfg.Workspace)
		if err != nil {
			return fail(agent.StopCanceled, err)
		}
		diff, changed := before.diff(now)
		res.Changed = changed
		verdict, out, err := review(ctx, cfg, task, plan, diff)
		if out != nil && out.StopReason != agent.StopFinalAnswer {
			return fail(out.StopReason, err)
		}
		if err != nil {
			return fail(StopRejected, err)
		}
		res.Reviews = append(res.Reviews, verdict)
		data, _ := json.Marshal(verdict)
		e.Emit(transcript.Event{Type: transcript.Review, Data: data})
		if verdict.Approved {
			res.Answer = strings.Join(verdict.Reasons, "; ")
			return fail(StopApproved, nil)
		}
		if round >= maxRounds {
			return fail(StopRejected, nil)
		}
		reasons := strings.Join(verdict.Reasons, "; ")
		e.Transition(cfg.Role(Coder), "review rejected: "+reasons)
		coder = append(coder, model.Message{Role: model.User, Content: "The reviewer rejected the change:\n- " +
			strings.Join(verdict.Reasons, "\n- ") + "\nRevise it, run the checks, and answer in plain text when done."})
		var out2 *agent.Outcome
		if out2, coder, err = loop(ctx, cfg, Coder, coder); out2.StopReason != agent.StopFinalAnswer {
			return fail(out2.StopReason, err)
		}
	}
}

// loop runs one loop of role over msgs and returns the conversation to
// continue.
func loop(ctx context.Context, cfg Config, role string, msgs []model.Message) (*agent.Outcome, []model.Message, error) {
	system, err := cfg.System(role)
	if err != nil {
		return &agent.Outcome{StopReason: agent.StopModelError, Error: err.Error()}, msgs, fmt.Errorf("%s prompt: %w", role, err)
	}
	settings := cfg.Settings
	if o := cfg.Executor.Role().Settings; o.Provider == "" || o.Provider == settings.Provider {
		// One provider serves the run: a role may choose another model
		// of it, not another provider.
		settings = settings.Override(o)
	}
	out, err := cfg.Executor.Loop(ctx, agent.Task{System: system, Messages: msgs, Tools: cfg.Tools,
		MaxSteps: settings.MaxSteps, Model: settings.Model, Temperature: settings.Temperature})
	return out, out.Messages, err
}

// makePlan asks the Planner for a plan; an invalid one is sent back once
// with what is wrong with it.
func makePlan(ctx context.Context, cfg Config, task string) (*Plan, *agent.Outcome, error) {
	msgs := []model.Message{{Role: model.User, Content: "Task: " + task + "\n\nRead what you need, then plan the change. " + planFormat}}
	var last error
	for attempt := 1; attempt <= 2; attempt++ {
		out, next, err := loop(ctx, cfg, Planner, msgs)
		if out.StopReason != agent.StopFinalAnswer {
			return nil, out, err
		}
		plan, err := parsePlan(cfg.Workspace, out.Answer)
		if err == nil {
			return plan, out, nil
		}
		last = err
		cfg.Executor.Emit(transcript.Event{Type: transcript.Plan, Error: err.Error()})
		msgs = append(next, model.Message{Role: model.User, Content: fmt.Sprintf("The plan is invalid: %v. %s", err, planFormat)})
	}
	return nil, nil, failure.Wrap(failure.ToolFailed, last, "the planner gave no valid plan in 2 attempts")
}

// review asks the Reviewer for a verdict on the diff and the diagnostics;
// an unreadable verdict is sent back once.
func review(ctx context.Context, cfg Config, task string, plan *Plan, diff string) (*Verdict, *agent.Outcome, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\n\nPlan:\n", task)
	for i, s := range plan.Steps {
		fmt.Fprintf(&b, "%d. %s (acceptance: %s)\n", i+1, s.Title, strings.Join(s.Acceptance, "; "))
	}
	if strings.TrimSpace(diff) == "" {
		diff = "(no file changed)\n"
	}
	fmt.Fprintf(&b, "\nDiff of the files this run changed:\n%s\n", diff)
	if cfg.Check != nil {
		ds, err := cfg.Check(ctx)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "Diagnostics: the check failed: %v\n", err)
		default:
			p, _ := json.Marshal(diagnostic.Compact(ds, nil))
			fmt.Fprintf(&b, "Diagnostics (compact packet): %s\n", p)
		}
	}
	b.WriteString("\nReview the change; you may read files and run read-only checks. " + verdictFormat)
	msgs := []model.Message{{Role: model.User, Content: b.String()}}
	var last error
	for attempt := 1; attempt <= 2; attempt++ {
		out, next, err := loop(ctx, cfg, Reviewer, msgs)
		if out.StopReason != agent.StopFinalAnswer {
			return nil, out, err
		}
		v, err := parseVerdict(out.Answer)
		if err == nil {
			return v, out, nil
		}
		last = err
		msgs = append(next, model.Message{Role: model.User, Content: fmt.Sprintf("The verdict is unreadable: %v. %s", err, verdictFormat)})
	}
	return nil, nil, failure.Wrap(failure.ToolFailed, last, "the reviewer gave no readable verdict in 2 attempts")
}
