package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

func newBenchCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run benchmark scenarios with agents and compare the runs",
	}
	cmd.AddCommand(newBenchRunCmd(f), newBenchReportCmd(f), newBenchTaskCmd(f), newBenchStatusCmd(f))
	return cmd
}

type benchRunOptions struct {
	f          *factory
	out        string
	configFile string
	name       string
	runner     string
	command    string
	provider   string
	model      string
	baseURL    string
	iface      string
	packets    []string
	repeat     int

	executor string
	slurm    benchSlurmFlags
}

func newBenchRunCmd(f *factory) *cobra.Command {
	opts := &benchRunOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run [flags] SCENARIO...",
		Short: "Run scenarios (files, or directories of *.yaml) with one or more run configs",
		Long: `Run each scenario with each run config. A scenario copies its fixture to a
temporary workspace, gives the agent its task under its constraints (max
steps, time budget, allowed tools) and then runs its acceptance checks
(registered tools that must succeed, commands that must exit 0); a run
succeeds when every check passes.

Run configs come from --config FILE (configs: [{name, runner, command,
provider, model, base_url, interface, packet, timeout}]) or from the flags.
The langhost runner is langhost's own agent; provider "scripted" replays the
scenario's model script on a local scripted model server (no network).
The external runner runs an agent CLI from an argv template whose
placeholders {task}, {workspace}, {scenario} and {model} are replaced inside
each argument (never through a shell), in the workspace, in its own process
group, killed at its timeout.

Each run leaves DIR/<scenario>.<config>.<n>/result.json and timeline.jsonl;
the command prints the comparison table of DIR (see bench report) and exits
1 when a run failed its checks.

--executor slurm runs each (scenario, config, repeat) as one task of a
Slurm job array instead (langhost bench task DIR N on a node): DIR, this
binary and the scenarios' copies in DIR/.bench must be on a filesystem every
node shares. The command waits and prints progress unless --detach; bench
status DIR shows it later. Rerunning it with the same DIR skips finished
tasks; --retry-failed runs failed and timed-out ones again. Jobs get no key
from this environment: tasks read keys from their node's environment (see
SECURITY.md).`,
		Example: `  langhost bench run bench/scenarios
  langhost bench run --packet compact --packet guided --out /tmp/b bench/scenarios
  langhost bench run --runner external --command '["codex", "exec", "{task}"]' bench/scenarios/go-fix-failing-test.yaml
  langhost bench run --provider ollama --model qwen2.5-coder:14b bench/scenarios
  langhost bench run --executor slurm --partition short --time 30 --repeat 5 --out /shared/b bench/scenarios`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return benchRun(cmd, opts, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.out, "out", "", "results directory (default .langhost/bench/<id> in the workspace)")
	fl.StringVar(&opts.configFile, "config", "", "YAML file of run configs (instead of the flags below)")
	fl.StringVar(&opts.name, "name", "", "name of the run config (default from its settings)")
	fl.StringVar(&opts.runner, "runner", "", "langhost (the own agent) or external (an agent CLI given by --command)")
	fl.StringVar(&opts.command, "command", "", `argv template of the external runner as a JSON array, e.g. '["claude", "-p", "{task}"]'`)
	fl.StringVar(&opts.provider, "provider", "", "model provider of the langhost runner: scripted (default), scripted-anthropic, openai, anthropic, ollama, openai-compatible")
	fl.StringVar(&opts.model, "model", "", "model name")
	fl.StringVar(&opts.baseURL, "base-url", "", "base URL of an OpenAI-compatible or Anthropic endpoint")
	fl.StringVar(&opts.iface, "interface", "", "how the agent reaches langhost's tools: cli (default) or mcp")
	fl.StringArrayVar(&opts.packets, "packet", nil, "feedback packet mode raw, compact or guided (repeatable: one config each)")
	fl.IntVar(&opts.repeat, "repeat", 1, "runs of each scenario with each config")
	fl.StringVar(&opts.executor, "executor", bench.ExecutorLocal, "what runs the tasks: local (one after another here) or slurm (one job array)")
	opts.slurm.register(fl)
	return cmd
}

// configs returns the run configs the flags or the config file give.
func (o *benchRunOptions) configs(cmd *cobra.Command) ([]bench.RunConfig, error) {
	if o.configFile != "" {
		for _, name := range []string{"name", "runner", "command", "provider", "model", "base-url", "interface", "packet"} {
			if cmd.Flags().Changed(name) {
				return nil, &failure.Error{Code: failure.InvalidInput, Field: "--" + name,
					Message: fmt.Sprintf("--%s and --config both give run configs; use one", name)}
			}
		}
		return bench.LoadConfigs(o.configFile)
	}
	base := bench.RunConfig{Name: o.name, Runner: o.runner, Provider: o.provider, Model: o.model, BaseURL: o.baseURL, Interface: o.iface}
	if o.command != "" {
		if err := json.Unmarshal([]byte(o.command), &base.Command); err != nil {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "--command",
				Message: fmt.Sprintf("--command must be a JSON array of strings, e.g. [\"codex\", \"exec\", \"{task}\"]: %v", err)}
		}
	}
	packets := o.packets
	if len(packets) == 0 {
		packets = []string{""}
	}
	var out []bench.RunConfig
	for _, p := range packets {
		c := base
		c.Packet = p
		if c.Name != "" && len(packets) > 1 {
			c.Name += "-" + p
		}
		out = append(out, c)
	}
	return out, bench.NormalizeConfigs("flags", out)
}

// benchRunResult is what `bench run` prints.
type benchRunResult struct {
	Out    string        `json:"out"`
	Failed int           `json:"failed"`
	Report *bench.Report `json:"report"`
}

func benchRun(cmd *cobra.Command, opts *benchRunOptions, args []string) error {
	f := opts.f
	if opts.repeat < 1 {
		return &failure.Error{Code: failure.InvalidInput, Field: "--repeat", Message: fmt.Sprintf("--repeat %d: at least 1", opts.repeat)}
	}
	switch opts.executor {
	case bench.ExecutorLocal:
		if name := opts.slurm.changed(cmd); name != "" {
			return &failure.Error{Code: failure.InvalidInput, Field: "--" + name,
				Message: fmt.Sprintf("--%s is an option of --executor slurm", name)}
		}
	case bench.ExecutorSlurm:
	default:
		return &failure.Error{Code: failure.InvalidInput, Field: "--executor",
			Message: fmt.Sprintf("unknown executor %q; want %s or %s", opts.executor, bench.ExecutorLocal, bench.ExecutorSlurm)}
	}
	if opts.executor == bench.ExecutorSlurm || opts.slurm.planOnly {
		if opts.out == "" {
			return &failure.Error{Code: failure.InvalidInput, Field: "--out",
				Message: "--executor slurm and --plan-only need --out DIR on a filesystem every node shares"}
		}
	}
	configs, err := opts.configs(cmd)
	if err != nil {
		return err
	}
	scenarios, err := bench.LoadScenarios(args)
	if err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if !cfg.TrustAll {
		trusted := func(file string) (bool, string, error) {
			t, err := config.FileTrust(f.paths, file)
			return t.Trusted, t.Reason, err
		}
		if err := bench.CheckTrust(scenarios, opts.configFile, configs, trusted); err != nil {
			return err
		}
	}
	out := opts.out
	if out == "" {
		// Bench results hold transcripts: keep them out of commits.
		ws, err := workspace.New(cfg.Workspace)
		if err == nil {
			err = ws.IgnoreState()
		}
		if err != nil {
			return err
		}
		// The workspace's .langhost/bench is the repository's: results go
		// there only if nothing along it leads out of the workspace.
		if out, err = ws.Resolve("--out", filepath.Join(".langhost", "bench", transcript.NewID())); err != nil {
			return err
		}
	}
	if opts.executor == bench.ExecutorSlurm || opts.slurm.planOnly {
		return benchRunSlurm(cmd, opts, scenarios, configs)
	}
	getenv := func(k string) string { v, _ := f.env(k); return v }
	bopts := bench.Options{Out: out, OpenHost: benchHost(f, cfg), Getenv: getenv, Repeat: opts.repeat,
		Logger: f.log().Named("bench"), Progress: f.io.ErrOut}
	results, err := bench.Run(cmd.Context(), bopts, scenarios, configs)
	if err != nil {
		return err
	}
	res := &benchRunResult{Out: out}
	for _, r := range results {
		if !r.Success {
			res.Failed++
		}
	}
	if res.Report, err = bench.LoadReport(out); err != nil {
		return err
	}
	var runErr error
	if res.Failed > 0 {
		runErr = failure.New(failure.ToolFailed, "%d of %d runs failed their acceptance checks (see %s)", res.Failed, len(results), out)
	}
	return printer{f}.result(commandPath(cmd), res, runErr, func(w io.Writer) error {
		if err := res.Report.WriteText(w); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "\nresults: %s\n", out)
		return err
	})
}

// benchHost opens langhost over a run's workspace with the user's config
// but never the workspace's trust: a fixture is someone else's files.
func benchHost(f *factory, cfg *config.Config) bench.OpenHost {
	return func(ctx context.Context, dir string) (*host.Host, error) {
		c := *cfg
		c.Workspace = dir
		c.Trust = config.Trust{Reason: "a bench fixture is never trusted"}
		c.TrustAll = false
		return host.Open(ctx, &c, f.log().Named("bench"), host.Options{Builtins: builtin.Agents()})
	}
}
