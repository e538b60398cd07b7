package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host/runner"
	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// defaultExternalTimeout bounds an external agent run when neither the
// config nor the scenario does.
const defaultExternalTimeout = 30 * time.Minute

// CallLogEnv names a file that `langhost mcp` appends a JSON line to when
// a session starts ({"event":"start"}) and for every tool call
// ({"event":"call","tool":...}). An external run sets it in the agent
// CLI's environment to learn whether the agent called langhost's tools at
// all; it learns so only when the CLI passes its environment to its MCP
// servers.
const CallLogEnv = "LANGHOST_BENCH_CALL_LOG"

// callLogName is the call log's name in the run's directory.
const callLogName = "langhost-calls.jsonl"

// maxExternalOutput is how much of each stream of an external agent is
// kept (in the run's directory).
const maxExternalOutput = 4 << 20

// Argv substitutes the placeholders of an argv template. Each element
// stays one argument whatever the values hold (spaces, quotes, leading
// dashes): nothing goes through a shell.
func Argv(template []string, s *Scenario, c RunConfig, ws string) []string {
	rep := strings.NewReplacer("{task}", s.Task, "{workspace}", ws, "{scenario}", s.Name, "{model}", c.Model)
	out := make([]string, len(template))
	for i, a := range template {
		out[i] = rep.Replace(a)
	}
	return out
}

// runExternal runs an agent CLI (codex exec, claude -p, ...) in ws, in its
// own process group, killed with its children at the timeout. Its output
// is kept in the run's directory; it reports no steps or tokens.
func runExternal(ctx context.Context, s *Scenario, c RunConfig, ws, dir string, tl *timeline, r *Result) error {
	argv := Argv(c.Command, s, c, ws)
	timeout := defaultExternalTimeout
	for _, d := range []Duration{c.Timeout, s.Constraints.TimeBudget} {
		if d > 0 && time.Duration(d) < timeout {
			timeout = time.Duration(d)
		}
	}
	tl.write(benchEvent{Type: "external_start", Command: argv})
	start := time.Now()
	// The agent CLI is the user's own program (from their flags or run
	// config): it gets the API keys that tools never see.
	res, err := runner.Run(ctx, runner.Command{Path: argv[0], Args: argv[1:], Dir: ws, Timeout: timeout,
		MaxOutput: maxExternalOutput, Env: []string{"LANGHOST_BENCH_WORKSPACE=" + ws, CallLogEnv + "=" + filepath.Join(dir, callLogName)},
		PassEnv: childenv.SecretNames(os.Environ())})
	r.LanghostCalls = countCalls(filepath.Join(dir, callLogName))
	ev := benchEvent{Type: "external_end", DurationMS: ms(time.Since(start))}
	r.StopReason = "exited"
	if res != nil {
		code := res.ExitCode
		ev.ExitCode = &code
		for name, text := range map[string]string{"agent.stdout": res.Stdout, "agent.stderr": res.Stderr} {
			if werr := os.WriteFile(filepath.Join(dir, name), tl.red.Bytes([]byte(text)), 0o644); werr != nil && err == nil {
				err = failure.Wrap(failure.Precondition, werr, "keeping the agent's output")
			}
		}
	}
	if err != nil {
		ev.Error = err.Error()
		switch failure.CodeOf(err) {
		case failure.Timeout:
			r.StopReason = "time_budget"
		case failure.Canceled:
			r.StopReason = "canceled"
		default:
			r.StopReason = "error"
		}
	}
	ev.StopReason = r.StopReason
	tl.write(ev)
	return err
}

// countCalls counts the calls in a call log: nil when no langhost mcp
// wrote it (the agent never started one, or its CLI did not pass the
// environment on), else the number of tool calls, maybe 0.
func countCalls(path string) *int {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		var l struct {
			Event string `json:"event"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Event == "call" {
			n++
		}
	}
	return &n
}
