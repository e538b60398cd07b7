package bench

import (
	"context"
	"strings"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/runner"
	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// defaultCheckTimeout bounds a command check that sets no timeout.
const defaultCheckTimeout = 5 * time.Minute

// maxCheckOutput is how much of a failed check's output a result keeps.
const maxCheckOutput = 2048

// CheckResult is the outcome of one acceptance check.
type CheckResult struct {
	Name       string   `json:"name"`
	Tool       string   `json:"tool,omitempty"`
	Command    []string `json:"command,omitempty"`
	OK         bool     `json:"ok"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	Code       string   `json:"code,omitempty"` // failure class when it did not pass
	Message    string   `json:"message,omitempty"`
	Output     string   `json:"output,omitempty"` // the tail of a failed check's output
	DurationMS float64  `json:"duration_ms"`
}

// runChecks runs every acceptance check of s in the workspace ws, in
// order, all of them even after a failure (the report says which failed).
// Tool checks go through the registry unconfirmed: a check may not change
// files. Command checks run with argv, no shell, in ws, in their own
// process group (runner.Run), killed at their timeout.
func runChecks(ctx context.Context, s *Scenario, ws string, openHost func() (*host.Host, error), tl *timeline) []CheckResult {
	out := make([]CheckResult, 0, len(s.Checks))
	for _, c := range s.Checks {
		start := time.Now()
		r := CheckResult{Name: c.Label(), Tool: c.Tool, Command: c.Command}
		if c.Tool != "" {
			toolCheck(ctx, c, openHost, &r)
		} else {
			commandCheck(ctx, c, ws, &r)
		}
		r.DurationMS = ms(time.Since(start))
		if !r.OK && r.Code == "" {
			r.Code = string(failure.ToolFailed)
		}
		tl.write(benchEvent{Type: "check", Check: &r, DurationMS: r.DurationMS})
		out = append(out, r)
	}
	return out
}

func toolCheck(ctx context.Context, c Check, openHost func() (*host.Host, error), r *CheckResult) {
	h, err := openHost()
	if err != nil {
		r.Code, r.Message = string(failure.CodeOf(err)), err.Error()
		return
	}
	input := c.Input
	if input == nil {
		input = map[string]any{}
	}
	ctx, cancel := withTimeout(ctx, time.Duration(c.Timeout))
	defer cancel()
	// Checks run the scenario's own tests on its fixture: what the user
	// asked the bench to run.
	res, err := h.Registry.Call(ctx, c.Tool, registry.Call{Input: input, WorkspaceCode: true})
	if res != nil {
		r.OK = res.OK && err == nil
		if len(res.Command) > 0 {
			code := res.ExitCode
			r.ExitCode = &code
		}
		if !r.OK {
			r.Output = tailOf(cmpNonBlank(res.Stderr, res.Stdout), maxCheckOutput)
			if len(res.Diagnostics) > 0 {
				r.Message = res.Diagnostics[0].String()
			}
		}
	}
	if err != nil {
		r.OK, r.Code, r.Message = false, string(failure.CodeOf(err)), err.Error()
	}
}

func commandCheck(ctx context.Context, c Check, ws string, r *CheckResult) {
	timeout := time.Duration(c.Timeout)
	if timeout <= 0 {
		timeout = defaultCheckTimeout
	}
	res, err := runner.Run(ctx, runner.Command{Path: c.Command[0], Args: c.Command[1:], Dir: ws, Timeout: timeout,
		MaxOutput: 64 << 10})
	if res != nil {
		code := res.ExitCode
		r.ExitCode = &code
		r.OK = code == 0 && err == nil
		if !r.OK {
			r.Output = tailOf(cmpNonBlank(res.Stderr, res.Stdout), maxCheckOutput)
		}
	}
	if err != nil {
		r.OK, r.Code, r.Message = false, string(failure.CodeOf(err)), err.Error()
	}
}

func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func cmpNonBlank(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// tailOf returns the last n bytes of s, from a character boundary,
// marked when cut.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + clip.Tail(s, n)
}
