package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	agentroles "github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/agent/workflow"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
	"github.com/spf13/cobra"
)

func newAgentCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a Language Specialist agent or a workflow on a task, and show a run's status",
	}
	cmd.AddCommand(newAgentRunCmd(f), newAgentStatusCmd(f))
	return cmd
}

type agentRunOptions struct {
	f           *factory
	language    string
	capability  string
	workflow    string
	role        string
	provider    string
	model       string
	baseURL     string
	temperature float64
	maxSteps    int
	maxTokens   int
	maxRounds   int
	budget      time.Duration
	yes         bool
}

func newAgentRunCmd(f *factory) *cobra.Command {
	opts := &agentRunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run [flags] TASK",
		Short: "Run an agent (or the plan-code-review workflow) on a task",
		Long: `Run a Language Specialist agent on a task. The agent is chosen by --language,
else by the files the task names, else by capability and priority. Its tool
calls go through the registry like any other call: paths are confined to the
workspace, writes are transactions checked by the language server (rejected
when they add errors) and need --yes or tools.allow in the config.

The run stops at a final answer, --max-steps model turns, --max-tokens, the
--budget time, or Ctrl-C; the result says which (stop_reason). Every run is
recorded under .langhost/runs/<id>.jsonl (API keys redacted); --format json
prints the result with the whole transcript.`,
		Example: `  langhost agent run --language go --yes "make TestAdd pass"
  langhost agent run --workflow plan-code-review --yes "rename Shape.Area to Shape.Surface"
  langhost agent run --provider openai-compatible --base-url http://localhost:8000/v1 --model qwen "fix calc.go"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return agentRun(cmd, opts, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.language, "language", "", "language of the agent (go, python, ...)")
	fl.StringVar(&opts.capability, "capability", "", "capability the agent must have when neither --language nor the task's files choose it (default coding)")
	fl.StringVar(&opts.workflow, "workflow", "", "run a workflow instead of one agent: "+workflow.Name)
	fl.StringVar(&opts.role, "role", "default", "role of a single-agent run (planner, coder, reviewer, default)")
	fl.StringVar(&opts.provider, "provider", "", "model provider: "+strings.Join(model.Providers, ", ")+" (default: the spec's agent block)")
	fl.StringVar(&opts.model, "model", "", "model name (default: the spec's agent block)")
	fl.StringVar(&opts.baseURL, "base-url", "", "base URL of an OpenAI-compatible or Anthropic endpoint")
	fl.Float64Var(&opts.temperature, "temperature", 0, "sampling temperature (default: the spec's agent block)")
	fl.IntVar(&opts.maxSteps, "max-steps", 0, "model turns per agent loop (default: the spec's maxSteps)")
	fl.IntVar(&opts.maxTokens, "max-tokens", 0, "input plus output tokens for the whole run (0: no cap)")
	fl.IntVar(&opts.maxRounds, "max-rounds", workflow.DefaultMaxRounds, "review rounds of plan-code-review before giving up")
	fl.DurationVar(&opts.budget, "budget", 30*time.Minute, "wall time for the whole run")
	fl.BoolVarP(&opts.yes, "yes", "y", false, "allow the agent's tools to change files")
	return cmd
}

// agentResult is what `agent run` prints.
type agentResult struct {
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
	Transcript string             `json:"transcript"`
	Events     []transcript.Event `json:"events"`
}

func agentRun(cmd *cobra.Command, opts *agentRunOptions, task string) error {
	f := opts.f
	if strings.TrimSpace(task) == "" {
		return &failure.Error{Code: failure.InvalidInput, Field: "task", Message: "the task is empty"}
	}
	if opts.workflow != "" && opts.workflow != workflow.Name {
		return &failure.Error{Code: failure.InvalidInput, Field: "workflow", Message: fmt.Sprintf("unknown workflow %q; there is %s", opts.workflow, workflow.Name)}
	}
	h, err := f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	warnProblems(f, h.Specs.Problems)
	a, err := agent.Choose(agent.Specialists(h.Specs, h.Registry), agent.Selection{Language: opts.language, Task: task, Capability: opts.capability})
	if err != nil {
		return err
	}
	roleSet, err := prompts.LoadRoles(f.paths.User, h.Workspace.Dir(), h.Config.Trust.Trusted)
	if err != nil {
		return failure.Wrap(failure.InvalidInput, err, "roles")
	}
	for _, warn := range roleSet.Warnings {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", warn)
	}
	// The spec's agent block, then the role's model (a single run's:
	// a workflow's roles share the run's provider), then the flags.
	settings := a.Settings
	if r, _ := roleSet.Get(opts.role); opts.workflow == "" && r != nil && r.Model != nil {
		settings = settings.Override(agent.Settings{Provider: r.Model.Provider, Model: r.Model.Model, Temperature: r.Model.Temperature})
	}
	settings = settings.Override(agent.Settings{Provider: opts.provider, Model: opts.model, BaseURL: opts.baseURL, MaxSteps: opts.maxSteps})
	if cmd.Flags().Changed("temperature") {
		settings.Temperature = &opts.temperature
	}
	getenv := func(k string) string { v, _ := f.env(k); return v }
	provider, err := model.New(model.Config{Provider: settings.Provider, Model: settings.Model, BaseURL: settings.BaseURL,
		Temperature: settings.Temperature}, getenv)
	if err != nil {
		return err
	}
	tools := make([]*registry.Tool, 0, len(a.Tools))
	for _, id := range a.Tools {
		if t, err := h.Registry.Tool(id); err == nil {
			tools = append(tools, t)
		}
	}

	id := transcript.NewID()
	w, err := transcript.Create(h.Workspace, id, []string{getenv("OPENAI_API_KEY"), getenv("ANTHROPIC_API_KEY")})
	if err != nil {
		return err
	}
	defer w.Close()
	e := &agent.Executor{Provider: provider, Registry: h.Registry, Transcript: w, Logger: f.log().Named("agent"),
		Confirm: func(t *registry.Tool) bool { return opts.yes || h.Config.Allows(t.ID) },
		Budget:  agent.Budget{MaxTokens: opts.maxTokens}}
	if errFile, ok := f.io.ErrOut.(*os.File); ok && isTerminal(errFile) {
		e.Live = f.io.ErrOut
	}
	ctx, cancel := e.WithTimeBudget(cmd.Context(), opts.budget)
	defer cancel()

	start := time.Now()
	e.Emit(transcript.Event{Type: transcript.RunStart, Run: id, Agent: a.ID, Workflow: opts.workflow, Task: task,
		Provider: settings.Provider, Model: settings.Model})
	res := &agentResult{Run: id, Agent: a.ID, Workflow: opts.workflow, Provider: settings.Provider, Model: settings.Model}
	system := func(role string) (string, error) { return systemPrompt(a, tools, roleSet, role, task) }
	var runErr error
	if opts.workflow == workflow.Name {
		wr, err := workflow.Run(ctx, workflow.Config{Executor: e, Workspace: h.Workspace, Role: e.Roles(roleSet),
			System: system, Tools: tools, Settings: settings, Check: gateCheck(h, a), MaxRounds: opts.maxRounds}, task)
		res.Result, res.StopReason, res.Answer, runErr = wr, wr.StopReason, wr.Answer, err
	} else {
		role := e.Roles(roleSet)(opts.role)
		e.Transition(role, "single-agent run")
		prompt, err := system(role.Name)
		if err != nil {
			return err
		}
		out, err := e.Loop(ctx, agent.Task{System: prompt, Messages: []model.Message{{Role: model.User, Content: task}},
			Tools: tools, MaxSteps: settings.MaxSteps, Model: settings.Model, Temperature: settings.Temperature})
		res.StopReason, res.Answer, runErr = out.StopReason, out.Answer, err
	}
	res.Role, res.Steps, res.ToolCalls, res.Tokens = e.Role().Name, e.Step(), e.ToolCalls(), e.Usage()
	res.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	end := transcript.Event{Type: transcript.RunEnd, StopReason: res.StopReason, Answer: res.Answer, DurationMS: res.DurationMS}
	if runErr != nil {
		end.Error = runErr.Error()
	}
	e.Emit(end)
	res.Transcript = filepath.ToSlash(filepath.Join(transcript.Dir, id+".jsonl"))
	res.Events, _ = transcript.Read(w.Path())
	if res.Events == nil {
		res.Events = []transcript.Event{}
	}
	return printer{f}.result(commandPath(cmd), res, stopError(res.StopReason, runErr), func(out io.Writer) error {
		printAgentResult(out, res)
		return nil
	})
}

// stopError is the failure a run's stop reason stands for: only a final
// answer (or an approved review) is success.
func stopError(reason string, err error) error {
	switch reason {
	case agent.StopFinalAnswer, workflow.StopApproved:
		return nil
	case agent.StopTimeBudget:
		return failure.New(failure.Timeout, "the run's time budget was spent (--budget)")
	case agent.StopCanceled:
		return failure.New(failure.Canceled, "the run was cancelled")
	}
	if err != nil {
		if failure.CodeOf(err) == failure.Internal && !isFailure(err) {
			return failure.Wrap(failure.ToolFailed, err, "the run stopped: %s", reason)
		}
		return err
	}
	return failure.New(failure.ToolFailed, "the run stopped without a final answer: %s", reason)
}

func printAgentResult(w io.Writer, r *agentResult) {
	fmt.Fprintf(w, "run %s: %s (%s/%s)", r.Run, r.Agent, r.Provider, r.Model)
	if r.Workflow != "" {
		fmt.Fprintf(w, ", workflow %s", r.Workflow)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "stopped: %s after %d steps, %d tool calls, %d+%d tokens, %.1f s (role %s)\n",
		r.StopReason, r.Steps, r.ToolCalls, r.Tokens.InputTokens, r.Tokens.OutputTokens, r.DurationMS/1000, r.Role)
	if wr := r.Result; wr != nil {
		if wr.Plan != nil {
			fmt.Fprintf(w, "plan: %d steps\n", len(wr.Plan.Steps))
		}
		for i, v := range wr.Reviews {
			verdict := "rejected"
			if v.Approved {
				verdict = "approved"
			}
			fmt.Fprintf(w, "review %d: %s: %s\n", i+1, verdict, strings.Join(v.Reasons, "; "))
		}
		if len(wr.Changed) > 0 {
			fmt.Fprintf(w, "changed: %s\n", strings.Join(wr.Changed, ", "))
		}
	}
	if r.Answer != "" {
		fmt.Fprintf(w, "answer: %s\n", r.Answer)
	}
	fmt.Fprintf(w, "transcript: %s\n", r.Transcript)
}

// systemPrompt composes what the model gets for role: the language's
// coding prompt (bestPractices, syntaxReminders, the generic template)
// and the role's prompt and constraints.
func systemPrompt(a *agent.Specialist, tools []*registry.Tool, set *agentroles.Set, role, task string) (string, error) {
	p, err := prompts.Compose(a.Spec, tools, task)
	if err != nil {
		return "", err
	}
	r, _ := set.Get(role)
	var b strings.Builder
	b.WriteString(p)
	fmt.Fprintf(&b, "\n\n## Role: %s\n%s", r.Name, strings.TrimSpace(r.Prompt))
	for i, c := range r.Constraints {
		if i == 0 {
			b.WriteString("\n\nConstraints:")
		}
		fmt.Fprintf(&b, "\n- %s", c)
	}
	b.WriteString("\n")
	return b.String(), nil
}

// gateCheck runs the language's gate tool (its build or type check) for
// the reviewer's diagnostics.
func gateCheck(h *host.Host, a *agent.Specialist) func(ctx context.Context) ([]diagnostic.Diagnostic, error) {
	gt := a.Spec.GateTool()
	if gt == nil {
		return nil
	}
	return func(ctx context.Context) ([]diagnostic.Diagnostic, error) {
		res, err := h.Registry.Call(ctx, gt.ID, registry.Call{Input: map[string]any{}})
		if err != nil {
			return nil, err
		}
		return res.Diagnostics, nil
	}
}

func newAgentStatusCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status [RUN]",
		Short: "Show the status of the running or last agent run (or of RUN), read from its transcript",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			ws, err := workspace.New(cfg.Workspace)
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			path, err := transcript.Find(ws, id)
			if err != nil {
				return err
			}
			events, err := transcript.Read(path)
			if err != nil {
				return err
			}
			st := transcript.Summarize(filepath.ToSlash(filepath.Join(transcript.Dir, filepath.Base(path))), events)
			return printer{f}.result(commandPath(cmd), st, nil, func(w io.Writer) error {
				rows := [][]string{
					{"run", st.Run}, {"agent", st.Agent}, {"workflow", st.Workflow}, {"state", st.State},
					{"role", st.Role}, {"step", fmt.Sprint(st.Step)}, {"tool calls", fmt.Sprint(st.ToolCalls)},
					{"escalations", fmt.Sprint(st.Escalations)},
					{"tokens", fmt.Sprintf("%d in, %d out", st.Tokens.InputTokens, st.Tokens.OutputTokens)},
					{"stop reason", st.StopReason}, {"task", st.Task}, {"transcript", st.Transcript},
				}
				return table(w, rows)
			})
		},
	}
}
