package bench

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host/runner"
	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/internal/privfile"
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

// CallLogFor is the second call log of a run in workspace, for agent CLIs
// that start their MCP servers with a stripped environment (Codex passes a
// short list of variables, not CallLogEnv): a file in the user's state
// directory named by the workspace's real path, derived from HOME alone.
// The bench creates it before the run and removes it after; `langhost mcp`
// appends to it only when it exists, so the workspace cannot make langhost
// write there.
func CallLogFor(workspace string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(home) {
		return "", fmt.Errorf("no home directory for the bench call log: %w", cmp.Or(err, errors.New("HOME is not absolute")))
	}
	real, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", fmt.Errorf("bench call log: %w", err)
	}
	sum := sha256.Sum256([]byte(real))
	return filepath.Join(home, ".local", "state", "langhost", "bench-calls", hex.EncodeToString(sum[:16])+".jsonl"), nil
}

// openStateCallLog creates the run's CallLogFor file, owner-only, and
// returns its path, or "" when it cannot be made (the run still counts
// the calls of CLIs that pass the environment).
func openStateCallLog(ws string) string {
	p, err := CallLogFor(ws)
	if err != nil {
		return ""
	}
	for _, d := range []string{filepath.Dir(filepath.Dir(p)), filepath.Dir(p)} {
		if privfile.Dir(d) != nil {
			return ""
		}
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // in the user's own 0700 directory
	if err != nil {
		return ""
	}
	_ = f.Close()
	return p
}

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
	stateLog := openStateCallLog(ws)
	start := time.Now()
	// The agent CLI is the user's own program (from their flags or run
	// config): it gets the API keys that tools never see.
	res, err := runner.Run(ctx, runner.Command{Path: argv[0], Args: argv[1:], Dir: ws, Timeout: timeout,
		MaxOutput: maxExternalOutput, Env: []string{"LANGHOST_BENCH_WORKSPACE=" + ws, CallLogEnv + "=" + filepath.Join(dir, callLogName)},
		PassEnv: childenv.SecretNames(os.Environ())})
	r.LanghostCalls = countCalls(filepath.Join(dir, callLogName), stateLog)
	if stateLog != "" {
		_ = os.Remove(stateLog)
	}
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

// countCalls counts the calls in the call logs: nil when no langhost mcp
// wrote to one (the agent never started one, or its CLI passed neither
// the environment nor HOME on), else the number of tool calls, maybe 0.
func countCalls(paths ...string) *int {
	var total *int
	for _, path := range paths {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		started, n := false, 0
		for line := range strings.Lines(string(data)) {
			var l struct {
				Event string `json:"event"`
			}
			if json.Unmarshal([]byte(line), &l) != nil {
				continue
			}
			switch l.Event {
			case "start":
				started = true
			case "call":
				n++
			}
		}
		if started {
			if total == nil {
				total = new(int)
			}
			*total += n
		}
	}
	return total
}
