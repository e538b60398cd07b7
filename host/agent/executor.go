package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"
	"unicode"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Stop reasons of a loop.
const (
	StopFinalAnswer = "final_answer" // the model answered without calling a tool
	StopMaxSteps    = "max_steps"    // the model took maxSteps turns without a final answer
	StopTokenBudget = "token_budget" // the run used its tokens
	StopTimeBudget  = "time_budget"  // the run's time was up
	StopCanceled    = "canceled"     // the caller cancelled (Ctrl-C)
	StopModelError  = "model_error"  // the model could not be reached or kept answering garbage
)

// Role is the role an agent acts in, as the executor enforces it: before
// every tool call it asks Allows, and a refusal is an escalation attempt,
// logged and told to the model, never run.
type Role struct {
	Name string
	// Allows returns nil when the role may call t; nil allows every tool.
	Allows func(t *registry.Tool) error
	// Settings override the run's model for this role (provider, model,
	// temperature); zero fields keep the run's.
	Settings Settings
}

// Budget bounds a run as a whole; Task.MaxSteps bounds one loop.
type Budget struct {
	// MaxTokens caps input plus output tokens over the run; 0 is no cap.
	MaxTokens int
	// ObservationTokens caps one tool observation (DefaultObservationTokens).
	ObservationTokens int
}

// Executor runs ReAct loops for one agent run: it holds what the loops of
// a workflow share (the model, the registry, the transcript, the current
// role, the step counter and the tokens spent).
type Executor struct {
	Provider model.Provider
	Registry *registry.Registry
	// Confirm says whether a tool that changes files may run (the CLI's
	// --yes or the config's tools.allow); nil confirms nothing.
	Confirm func(t *registry.Tool) bool
	// WorkspaceCode is the user's consent to tools that run code the
	// workspace controls (a trusted workspace, or agent run
	// --allow-workspace-code): without it such a call is refused, whatever
	// the model asks.
	WorkspaceCode bool
	Transcript    *transcript.Writer // may be nil
	// Live, if set, gets one line per step and tool call (a TTY's stderr).
	Live   io.Writer
	Logger hclog.Logger
	Budget Budget

	// timeBudget is set when the caller's context carries the run's own
	// deadline (see WithTimeBudget), to tell a spent budget from a cancel.
	timeBudget bool

	role  Role
	step  int
	usage model.Usage
	calls int
}

// Task is one loop: a role's system prompt, the conversation so far (at
// least the user's request), the tools offered and the settings.
type Task struct {
	System      string
	Messages    []model.Message
	Tools       []*registry.Tool
	MaxSteps    int
	Model       string
	Temperature *float64
}

// Outcome is how a loop ended.
type Outcome struct {
	StopReason string          `json:"stop_reason"`
	Answer     string          `json:"answer,omitempty"`
	Steps      int             `json:"steps"`
	ToolCalls  int             `json:"tool_calls"`
	Error      string          `json:"error,omitempty"`
	Messages   []model.Message `json:"-"` // the conversation, to continue it
}

// Role returns the role the executor enforces now.
func (e *Executor) Role() Role { return e.role }

// Step returns the number of model turns taken so far in the run.
func (e *Executor) Step() int { return e.step }

// Usage returns the tokens spent so far in the run.
func (e *Executor) Usage() model.Usage { return e.usage }

// ToolCalls returns the number of tool calls so far in the run.
func (e *Executor) ToolCalls() int { return e.calls }

// Transition makes to the current role, logging from, to, reason and step.
func (e *Executor) Transition(to Role, reason string) {
	from := e.role.Name
	e.role = to
	e.logger().Info("role change", "from", from, "to", to.Name, "reason", reason, "step", e.step)
	e.emit(transcript.Event{Type: transcript.RoleChange, From: from, To: to.Name, Reason: reason})
	e.live("role %s -> %s: %s", orNone(from), to.Name, reason)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Emit records an event of the caller's (a plan, a verdict) with the
// current role and step.
func (e *Executor) Emit(ev transcript.Event) { e.emit(ev) }

func (e *Executor) emit(ev transcript.Event) {
	ev.Role = e.role.Name
	if ev.Step == 0 {
		ev.Step = e.step
	}
	if err := e.Transcript.Write(ev); err != nil {
		e.logger().Warn("transcript", "error", err)
	}
}

// logger carries the current role in every line.
func (e *Executor) logger() hclog.Logger {
	l := e.Logger
	if l == nil {
		l = hclog.NewNullLogger()
	}
	return l.With("role", e.role.Name)
}

func (e *Executor) live(format string, args ...any) {
	if e.Live == nil {
		return
	}
	// Tool names come from the model: no control bytes reach a terminal.
	line := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, fmt.Sprintf("[step %d] %s: %s", e.step, e.role.Name, fmt.Sprintf(format, args...)))
	fmt.Fprintln(e.Live, line)
}

// WithTimeBudget bounds the run to d; a loop stopped by it says
// time_budget rather than canceled. d <= 0 leaves ctx as it is.
func (e *Executor) WithTimeBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	e.timeBudget = true
	return context.WithTimeoutCause(ctx, d, errTimeBudget)
}

var errTimeBudget = errors.New("time budget spent")

// maxBadResponses is how many unusable model answers in a row end a loop.
const maxBadResponses = 3

// MaxCallsPerStep bounds the tool calls run for one model turn: maxSteps
// bounds turns, and a turn asking for a thousand builds must not run them.
// The calls beyond it are answered, unrun, with an error.
const MaxCallsPerStep = 16

// Loop runs t until the model answers without calling a tool, or a bound
// stops it. The outcome always says why it stopped; the error is set only
// when the model could not be used (StopModelError).
func (e *Executor) Loop(ctx context.Context, t Task) (*Outcome, error) {
	tb, skipped := newToolbox(t.Tools)
	for _, s := range skipped {
		e.logger().Warn("tool not offered to the model", "reason", s)
	}
	msgs := append([]model.Message(nil), t.Messages...)
	for _, m := range t.Messages {
		e.emit(transcript.Event{Type: transcript.Message, Message: &m})
	}
	out := &Outcome{}
	stop := func(reason string, err error) (*Outcome, error) {
		out.StopReason, out.Messages = reason, msgs
		if err != nil {
			out.Error = err.Error()
		}
		e.logger().Info("loop stopped", "stop_reason", reason, "steps", out.Steps, "step", e.step)
		return out, err
	}
	maxSteps := t.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	bad := 0
	for {
		if reason := e.stopReason(ctx); reason != "" {
			return stop(reason, nil)
		}
		if out.Steps >= maxSteps {
			return stop(StopMaxSteps, nil)
		}
		out.Steps++
		e.step++
		e.live("thinking")
		start := time.Now()
		resp, err := e.Provider.Complete(ctx, &model.Request{Model: t.Model, System: t.System, Messages: msgs,
			Tools: tb.defs, Temperature: t.Temperature}, nil)
		if err != nil {
			if reason := e.stopReason(ctx); reason != "" {
				return stop(reason, nil)
			}
			if !errors.Is(err, model.ErrBadResponse) || bad+1 >= maxBadResponses {
				return stop(StopModelError, fmt.Errorf("model: %w", err))
			}
			// A garbled answer (a tool that was not offered, arguments
			// that are not JSON) costs a step and is told to the model.
			bad++
			e.logger().Warn("unusable model answer", "error", err, "step", e.step)
			fix := model.Message{Role: model.User, Content: fmt.Sprintf(
				"Your last answer could not be used: %v. Call only the tools offered, with a JSON object of arguments, or answer in plain text when done.", err)}
			msgs = append(msgs, fix)
			e.emit(transcript.Event{Type: transcript.Message, Message: &fix, Error: err.Error()})
			continue
		}
		bad = 0
		e.usage.InputTokens += resp.Usage.InputTokens
		e.usage.OutputTokens += resp.Usage.OutputTokens
		usage := resp.Usage
		e.emit(transcript.Event{Type: transcript.ModelCall, Usage: &usage, StopReason: resp.StopReason,
			DurationMS: float64(time.Since(start).Microseconds()) / 1000})
		msg := resp.Message
		msg.Role = model.Assistant
		msgs = append(msgs, msg)
		e.emit(transcript.Event{Type: transcript.Message, Message: &msg})
		if len(msg.ToolCalls) == 0 {
			out.Answer = msg.Content
			return stop(StopFinalAnswer, nil)
		}
		for i, call := range msg.ToolCalls {
			if i >= MaxCallsPerStep {
				msgs = append(msgs, e.skip(call))
				continue
			}
			out.ToolCalls++
			e.calls++
			msgs = append(msgs, e.run(ctx, tb, call))
		}
	}
}

// stopReason says whether the run must stop before the next step.
func (e *Executor) stopReason(ctx context.Context) string {
	if ctx.Err() != nil {
		if e.timeBudget && errors.Is(context.Cause(ctx), errTimeBudget) {
			return StopTimeBudget
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return StopTimeBudget
		}
		return StopCanceled
	}
	if e.Budget.MaxTokens > 0 && e.usage.InputTokens+e.usage.OutputTokens >= e.Budget.MaxTokens {
		return StopTokenBudget
	}
	return ""
}

// run executes one tool call and returns the tool message answering it.
// Nothing the model sends makes it fail: an unknown tool, arguments that
// are not an object, input the schema refuses, a call the role does not
// allow all become error observations.
func (e *Executor) run(ctx context.Context, tb *toolbox, call model.ToolCall) model.Message {
	start := time.Now()
	e.emit(transcript.Event{Type: transcript.ToolCall, Tool: call.Name, CallID: call.ID, Input: validJSON(call.Arguments)})
	answer := func(id, text string, code failure.Code) model.Message {
		msg := model.Message{Role: model.Tool, ToolCallID: call.ID, Content: text, IsError: code != ""}
		e.emit(transcript.Event{Type: transcript.ToolResult, Tool: id, CallID: call.ID, Observation: text,
			Code: string(code), IsError: code != "", DurationMS: float64(time.Since(start).Microseconds()) / 1000})
		status := "ok"
		if code != "" {
			status = string(code)
		}
		e.live("%s -> %s", id, status)
		e.logger().Debug("tool call", "tool", id, "code", code, "step", e.step)
		return msg
	}
	refuse := func(id string, code failure.Code, format string, args ...any) model.Message {
		text, _, _ := observe(id, nil, &failure.Error{Code: code, Message: fmt.Sprintf(format, args...)}, e.Budget.ObservationTokens)
		return answer(id, text, code)
	}

	t, ok := tb.lookup(call.Name)
	if !ok {
		msg := fmt.Sprintf("there is no tool %q", call.Name)
		if best := textdist.Ranked(call.Name, tb.names, 3); len(best) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(best, ", "))
		}
		return refuse(call.Name, failure.NotFound, "%s", msg)
	}
	if e.role.Allows != nil {
		if err := e.role.Allows(t); err != nil {
			e.logger().Warn("escalation attempt refused", "tool", t.ID, "step", e.step, "reason", err)
			e.emit(transcript.Event{Type: transcript.Escalation, Tool: t.ID, CallID: call.ID, Reason: err.Error()})
			e.live("%s refused: not allowed for role %s", t.ID, e.role.Name)
			return refuse(t.ID, failure.Precondition, "%v", err)
		}
	}
	input, err := decodeArguments(call.Arguments)
	if err != nil {
		return refuse(t.ID, failure.InvalidInput, "arguments of %s: %v", t.ID, err)
	}
	confirmed := e.Confirm != nil && e.Confirm(t)
	res, err := e.call(ctx, t, registry.Call{Input: input, Confirmed: confirmed, WorkspaceCode: e.WorkspaceCode})
	text, code, _ := observe(t.ID, res, err, e.Budget.ObservationTokens)
	return answer(t.ID, text, code)
}

// skip answers a call beyond MaxCallsPerStep without running it.
func (e *Executor) skip(call model.ToolCall) model.Message {
	text, _, _ := observe(call.Name, nil, failure.New(failure.Precondition,
		"not run: at most %d tool calls run per turn; call it again in the next turn if it is still needed", MaxCallsPerStep), e.Budget.ObservationTokens)
	e.emit(transcript.Event{Type: transcript.ToolResult, Tool: call.Name, CallID: call.ID, Observation: text,
		Code: string(failure.Precondition), IsError: true})
	return model.Message{Role: model.Tool, ToolCallID: call.ID, Content: text, IsError: true}
}

// call runs t through the registry, as the CLI and MCP do. A panicking
// tool is an internal failure of that call, not of the run.
func (e *Executor) call(ctx context.Context, t *registry.Tool, c registry.Call) (res *registry.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			e.logger().Error("tool call panicked", "tool", t.ID, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, failure.New(failure.Internal, "%s: internal error: %v", t.ID, v)
		}
	}()
	return e.Registry.Call(ctx, t.ID, c)
}

// decodeArguments reads a call's arguments: a JSON object, or nothing.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	input := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return input, nil
	}
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return input, nil
}

// validJSON returns raw when it is JSON, else raw as a JSON string, so
// that a transcript line stays valid whatever the model sent.
func validJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(raw))
	return b
}
