package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/session"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/agent/workflow"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
	"github.com/spf13/cobra"
)

func newAgentCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a Language Specialist agent or a workflow on a task, list the agents, show a run's status",
	}
	cmd.AddCommand(newAgentRunCmd(f), newAgentListCmd(f), newAgentStatusCmd(f))
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
	apiKeyEnv   string
	temperature float64
	maxSteps    int
	maxTokens   int
	maxRounds   int
	budget      time.Duration
	yes         bool
	// allowWorkspaceCode consents to tools that run the workspace's code
	// in an untrusted workspace, for this run.
	allowWorkspaceCode bool
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
recorded under .langhost/runs/<id>.jsonl; --format json prints the result
with the whole transcript. API keys are redacted from all of it, and from
errors, even when the model repeats a key without its prefix.

A provider key from the environment is sent only to its provider's own
endpoint (api.openai.com, api.anthropic.com) or to a --base-url given
together with --provider: a role or spec that switches the provider does
not get your key sent to a base URL meant for a keyless server (the run is
refused, exit 4).`,
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
	fl.StringVar(&opts.baseURL, "base-url", "", "base URL of an OpenAI-compatible or Anthropic endpoint; a provider key is sent there only when --provider is given too")
	fl.StringVar(&opts.apiKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY; ollama and openai-compatible servers get a key only from this)")
	fl.Float64Var(&opts.temperature, "temperature", 0, "sampling temperature (default: the spec's agent block)")
	fl.IntVar(&opts.maxSteps, "max-steps", 0, "model turns per agent loop (default: the spec's maxSteps)")
	fl.IntVar(&opts.maxTokens, "max-tokens", 0, "input plus output tokens for the whole run (0: no cap)")
	fl.IntVar(&opts.maxRounds, "max-rounds", workflow.DefaultMaxRounds, "review rounds of plan-code-review before giving up")
	fl.DurationVar(&opts.budget, "budget", 30*time.Minute, "wall time for the whole run")
	fl.BoolVarP(&opts.yes, "yes", "y", false, "allow the agent's tools to change files")
	fl.BoolVar(&opts.allowWorkspaceCode, "allow-workspace-code", false, "allow the agent's tools to run code the workspace controls (tests, build scripts, linter configs) in a workspace you have not trusted")
	return cmd
}

func agentRun(cmd *cobra.Command, opts *agentRunOptions, task string) error {
	f := opts.f
	for flag, v := range map[string]int64{"max-steps": int64(opts.maxSteps), "max-tokens": int64(opts.maxTokens),
		"max-rounds": int64(opts.maxRounds), "budget": int64(opts.budget)} {
		if v < 0 {
			return &failure.Error{Code: failure.InvalidInput, Field: flag, Message: fmt.Sprintf("--%s is negative", flag)}
		}
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
		// Its class stands: invalid_input for a bad role file,
		// precondition_failed for one leading out of the workspace.
		return err
	}
	getenv := func(k string) string { v, _ := f.env(k); return v }
	secrets := []string{getenv("OPENAI_API_KEY"), getenv("ANTHROPIC_API_KEY")}
	if opts.apiKeyEnv != "" {
		secrets = append(secrets, getenv(opts.apiKeyEnv))
	}
	red := redact.New(secrets...)
	for _, warn := range roleSet.Warnings {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", printable(red.String(warn)))
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
	// The provider and the base URL were chosen together by the user
	// only when --provider was given (flags override roles and specs);
	// else a provider key goes to the provider's own endpoint only.
	provider, err := model.New(model.Config{Provider: settings.Provider, Model: settings.Model, BaseURL: settings.BaseURL,
		APIKeyEnv: opts.apiKeyEnv, UserEndpoint: opts.provider != "", Temperature: settings.Temperature}, getenv)
	if err != nil {
		return err
	}
	o := session.Options{Registry: h.Registry, Workspace: h.Workspace, Agent: a, Roles: roleSet, Task: task,
		Workflow: opts.workflow, Role: opts.role, Settings: settings, Provider: provider,
		Confirm:       func(t *registry.Tool) bool { return opts.yes || h.Config.Allows(t.ID) },
		WorkspaceCode: opts.allowWorkspaceCode || h.Config.Trust.Trusted,
		Budget:        agent.Budget{MaxTokens: opts.maxTokens},
		TimeBudget:    opts.budget, MaxRounds: opts.maxRounds, PromptsDir: prompts.UserDir(f.paths.User),
		Secrets: secrets,
		Logger:  f.log().Named("agent")}
	if errFile, ok := f.io.ErrOut.(*os.File); ok && isTerminal(errFile) {
		o.Live = f.io.ErrOut
	}
	// session.Run redacts its result and error; red covers what is
	// printed besides (role warnings above).
	res, err := session.Run(cmd.Context(), o)
	if err != nil {
		return red.Error(err)
	}
	return printer{f}.result(commandPath(cmd), res, session.StopError(res.StopReason, res.Err), func(out io.Writer) error {
		printAgentResult(out, res)
		return nil
	})
}

func printAgentResult(w io.Writer, r *session.Result) {
	fmt.Fprintf(w, "run %s: %s (%s/%s)", r.Run, r.Agent, r.Provider, r.Model)
	if r.Workflow != "" {
		fmt.Fprintf(w, ", workflow %s", r.Workflow)
	}
	fmt.Fprintln(w)
	// The answer, reasons and file names come from the model and the
	// workspace: printable keeps their control bytes off the terminal.
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
			fmt.Fprintf(w, "review %d: %s: %s\n", i+1, verdict, printable(strings.Join(v.Reasons, "; ")))
		}
		if len(wr.Changed) > 0 {
			fmt.Fprintf(w, "changed: %s\n", printable(strings.Join(wr.Changed, ", ")))
		}
	}
	if r.Answer != "" {
		fmt.Fprintf(w, "answer: %s\n", printable(r.Answer))
	}
	fmt.Fprintf(w, "transcript: %s\n", r.Transcript)
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
			events, err := transcript.ReadContext(cmd.Context(), path)
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
				if st.Error != "" {
					rows = append(rows, []string{"error", printable(st.Error)})
				}
				return f.table(w, rows)
			})
		},
	}
}
