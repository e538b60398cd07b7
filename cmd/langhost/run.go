package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type runOptions struct {
	f     *factory
	id    string
	input string
	pairs []string
	yes   bool
	// allowWorkspaceCode consents, for this call, to running code the
	// workspace controls in a workspace the user has not trusted.
	allowWorkspaceCode bool
	// packet shapes the result's diagnostics (the tool's packet input).
	packet string
	// noDaemon runs a semantic tool in this process (run_daemon.go).
	noDaemon bool
}

func newRunCmd(f *factory) *cobra.Command {
	opts := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run <tool-id> [key=value...]",
		Short: "Run a tool and print its parsed result",
		Long: `Run a tool. Input comes from --input (a JSON object, @file, or - for stdin)
and key=value pairs, which are converted to the types of the tool's input schema.
Exit code 0 means the tool succeeded; 1 that it ran and reported a failure:
a failing exit code, failed tests, files a check would change, or errors
reported by a read-only tool (a linter, a diagnostics call), the same in
every language. See the README for the others.`,
		Example: `  langhost run go.build packages=./cmd/...
  langhost run go.test --input '{"packages": "./host/...", "run": "TestParse"}'
  langhost run go_vet packages=./internal/...
  langhost run go.find_references symbol=Shape
  langhost run python.format path=src --yes
  langhost run go.vet --packet compact
  langhost run go.test --jq '.data.tests.failures[].name'`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: toolArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.pairs = args[0], args[1:]
			return runRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.input, "input", "", "input as JSON, @file or - for stdin")
	cmd.Flags().BoolVarP(&opts.yes, "yes", "y", false, "allow a tool that changes files to run")
	cmd.Flags().BoolVar(&opts.allowWorkspaceCode, "allow-workspace-code", false, "allow a tool to run code the workspace controls (tests, build scripts, linter configs) in a workspace you have not trusted, for this call")
	cmd.Flags().StringVar(&opts.packet, "packet", "", "shape the diagnostics: raw, compact or guided (tools with diagnostics only)")
	cmd.Flags().BoolVar(&opts.noDaemon, "no-daemon", false, "run a semantic tool in this process, not in the workspace's daemon")
	return cmd
}

func runRun(cmd *cobra.Command, opts *runOptions) error {
	// Most runs start a tool, which waits for the process reaper: start it
	// now, alongside loading the config and specs (a call served by the
	// daemon leaves it unused, and Shutdown stops it).
	procgroup.Prepare()
	h, t, err := opts.f.toolHost(cmd.Context(), opts.id)
	if opts.f.host != nil {
		// Also when the tool is unknown: its spec may be the one skipped.
		warnProblems(opts.f, opts.f.host.Specs.Problems)
	}
	if err != nil {
		return err
	}
	input, err := readInput(t, opts.input, opts.pairs, opts.f.io.In)
	if err != nil {
		return err
	}
	if err := packetInput(t, input, opts.packet); err != nil {
		return err
	}
	confirmed := opts.yes || h.Config.Allows(t.ID)
	call := registry.Call{Input: input, Confirmed: confirmed, WorkspaceCode: opts.allowWorkspaceCode || h.Config.Trust.Trusted}
	stopWaitLine := func() {}
	if t.Kind == registry.KindSemantic && opts.f.io.ErrTTY {
		stopWaitLine = startWaitLine(opts.f.io.ErrOut, func() string { return waitingFor(t, h.Config.Workspace) })
	}
	res, err := runToolCall(cmd.Context(), opts, h, t, call)
	stopWaitLine()
	if res == nil {
		if err != nil {
			return err
		}
		return errors.New("tool returned no result")
	}
	if err == nil {
		err = reportedFailure(t, res)
	}
	return printer{opts.f}.result(t.ID, res, err, func(w io.Writer) error {
		return printResult(w, opts.f.style(), res, err == nil)
	})
}

// reportedFailure is the tool_failed error (exit 1) of a result that ran
// but reports a failure, by registry's one rule (Result.Failure).
func reportedFailure(t *registry.Tool, res *registry.Result) error {
	if why := res.Failure(t.ID, t.ReadOnly); why != "" {
		return failure.New(failure.ToolFailed, "%s", why)
	}
	return nil
}

// printResult writes a tool's result for reading: the command line,
// diagnostics as path:line:col: severity: message, test outcomes, parsed
// outputs and a semantic operation's answer as fields and tables, diffs
// raw, and the tool's own output when it failed without diagnostics. ok
// is the call's one verdict, which the status line repeats: an exit code
// of 0 is not "ok" when a check listed files it would change.
func printResult(w io.Writer, st style, res *registry.Result, ok bool) error {
	r := renderer{w: w, st: st}
	if len(res.Command) > 0 {
		fmt.Fprintf(w, "%s\n", st.dim("$ "+printable(strings.Join(res.Command, " "))))
	}
	if res.UsedFallback {
		fmt.Fprintln(w, "(primary executable not installed: ran the fallback)")
	}
	pk := resultPacket(res.Data)
	if pk != nil {
		r.packet(pk)
	} else {
		for _, d := range res.Diagnostics {
			fmt.Fprintln(w, r.diagnostic(d))
		}
	}
	if t := res.Tests; t != nil {
		fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", t.Passed, t.Failed, t.Skipped)
		for _, f := range t.Failures {
			line := st.severity("failed") + " " + printable(f.Name)
			if f.File != "" {
				line += fmt.Sprintf("  %s:%d", printable(f.File), f.Line)
			}
			if f.Message != "" {
				line += ": " + printable(f.Message)
			}
			fmt.Fprintln(w, line)
		}
	}
	if res.Files != nil {
		fmt.Fprintf(w, "files that would change: %s\n", printable(listOrNone(res.Files)))
	}
	for _, name := range sortedOutputNames(res.Outputs) {
		if _, isDiags := res.Outputs[name].([]diagnostic.Diagnostic); isDiags {
			continue // printed above
		}
		if repeatsDiagnostics(res.Outputs[name], res.Diagnostics) {
			continue // the lines the diagnostics above were parsed from
		}
		raw, err := json.Marshal(res.Outputs[name])
		if err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		v, err := decodeValue(raw)
		if err != nil {
			return fmt.Errorf("output %s: %w", name, err)
		}
		r.field("", name, v)
	}
	if len(res.Data) > 0 {
		// A semantic operation's diagnostics were printed above, from
		// the result.
		r.skip = map[string]bool{}
		if len(res.Diagnostics) > 0 {
			r.skip["diagnostics"], r.skip["counts"] = true, true
		}
		if pk != nil {
			r.skip["packet"], r.skip["rawOmitted"] = true, true
		}
		if err := r.renderJSON(res.Data); err != nil {
			return err
		}
	}
	if len(res.Diagnostics) == 0 && !res.OK {
		tail := res.Stderr
		if strings.TrimSpace(tail) == "" {
			tail = res.Stdout
		}
		fmt.Fprint(w, printable(tail))
	}
	status := "ok"
	if !ok {
		status = "failed"
	}
	if len(res.Command) > 0 {
		fmt.Fprintf(w, "%s (exit code %d, %.0f ms)\n", st.severity(status), res.ExitCode, res.DurationMS)
	}
	return nil
}

// repeatsDiagnostics reports whether an output is a list of lines that
// each hold the message of one of ds (go.build's errors output beside the
// diagnostics parsed from the same lines): printing it would show every
// diagnostic twice.
func repeatsDiagnostics(v any, ds []diagnostic.Diagnostic) bool {
	var lines []string
	if m, ok := v.(map[string]any); ok { // a lineMatch: count, lines, truncated
		if m["truncated"] == true {
			return false
		}
		v = m["lines"]
	}
	switch v := v.(type) {
	case []string:
		lines = v
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return false
			}
			lines = append(lines, s)
		}
	default:
		return false
	}
	if len(lines) == 0 || len(ds) == 0 {
		return false
	}
	for _, l := range lines {
		if !slices.ContainsFunc(ds, func(d diagnostic.Diagnostic) bool { return d.Message != "" && strings.Contains(l, d.Message) }) {
			return false
		}
	}
	return true
}

func listOrNone(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	return strings.Join(items, ", ")
}
