// Package runner runs one external command safely: argv only (never a
// shell), its own process group killed as a whole on timeout or
// cancellation, output captured with a size cap and streamed line by line to
// observers such as output parsers.
package runner

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultMaxOutput is the number of bytes kept per stream when a Command
// sets none.
const DefaultMaxOutput = 1 << 20

// Stream identifies stdout or stderr.
type Stream int

const (
	Stdout Stream = iota
	Stderr
)

// Command is one process to run.
type Command struct {
	Path string   // executable, absolute or looked up on PATH
	Args []string // arguments after the executable name
	Dir  string
	// Env are extra KEY=VALUE pairs on top of the host environment,
	// from which secret variables (provider keys, tokens) are removed
	// (see childenv).
	Env []string
	// PassEnv names host variables the command gets even when they look
	// secret: the spec's passEnv, for a tool that needs a token.
	PassEnv []string
	Timeout time.Duration
	// MaxOutput bounds the bytes kept per stream; the rest is dropped and
	// the result marked truncated. Observers still see every line.
	MaxOutput int
	// Output, if set, receives every byte of both streams as it arrives,
	// for example a line splitter feeding parsers. Calls for one stream are
	// sequential; the two streams may call concurrently.
	Output func(Stream) io.Writer
}

// Result is what a finished process left behind.
type Result struct {
	ExitCode        int           `json:"exit_code"`
	Duration        time.Duration `json:"duration"`
	Stdout          string        `json:"stdout"`
	Stderr          string        `json:"stderr"`
	StdoutTruncated bool          `json:"stdout_truncated,omitempty"`
	StderrTruncated bool          `json:"stderr_truncated,omitempty"`
	StdoutBytes     int64         `json:"stdout_bytes"`
	StderrBytes     int64         `json:"stderr_bytes"`
}

// Truncated reports whether either stream was cut.
func (r *Result) Truncated() bool { return r.StdoutTruncated || r.StderrTruncated }

// Run starts the command and waits for it. A non-zero exit is not an error:
// it is reported in Result.ExitCode. Errors are a missing executable
// (failure.Precondition), a timeout (failure.Timeout) and cancellation; with
// the last two the partial Result is returned as well.
func Run(ctx context.Context, c Command) (*Result, error) {
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	limit := c.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	stdout, stderr := newCapture(limit), newCapture(limit)

	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Stdin = nil // /dev/null: a tool waiting for input must not hang on ours
	cmd.Stdout, cmd.Stderr = io.Writer(stdout), io.Writer(stderr)
	if c.Output != nil {
		cmd.Stdout = io.MultiWriter(stdout, c.Output(Stdout))
		cmd.Stderr = io.MultiWriter(stderr, c.Output(Stderr))
	}
	// The tool leads its own process group, so a timeout or cancellation
	// kills its grandchildren too (a test runner's workers, a shell's
	// children), even those that started their own session; and it dies
	// with the host.
	group := procgroup.New(cmd, syscall.SIGKILL)
	// New left the host's environment without its secrets; what the
	// spec names or sets comes on top (later entries win).
	cmd.Env = slices.Concat(cmd.Env, childenv.Pass(c.PassEnv), c.Env)
	cmd.Cancel = group.Kill
	// Grandchildren that outlive the child may hold the pipes open; stop
	// waiting for them shortly after the child is gone.
	cmd.WaitDelay = 2 * time.Second

	start := time.Now()
	err := group.Start()
	if err != nil {
		if c.Dir != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			// exec reports a missing working directory as the
			// executable's ENOENT: say which it is.
			if st, serr := os.Stat(c.Dir); serr != nil {
				return nil, failure.Wrap(failure.NotFound, serr, "working directory %q does not exist", c.Dir)
			} else if !st.IsDir() {
				return nil, failure.New(failure.Precondition, "working directory %q is not a directory", c.Dir)
			}
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return nil, failure.Wrap(failure.Precondition, err, "executable %q not found", c.Path)
		}
		return nil, failure.Wrap(failure.Internal, err, "start %s", c.Path)
	}
	err = cmd.Wait()
	// The child is gone; kill anything it left behind in its group. What
	// deliberately detached from a tool that finished on its own (a build
	// server) is left alone.
	_ = group.KillGroup()

	res := &Result{
		ExitCode:        cmd.ProcessState.ExitCode(),
		Duration:        time.Since(start),
		Stdout:          stdout.String(),
		Stderr:          stderr.String(),
		StdoutTruncated: stdout.Truncated(),
		StderrTruncated: stderr.Truncated(),
		StdoutBytes:     stdout.Total(),
		StderrBytes:     stderr.Total(),
	}
	switch ctxErr := ctx.Err(); {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return res, failure.Wrap(failure.Timeout, ctxErr, "%s did not finish within %s; its process group was killed", c.Path, c.Timeout)
	case errors.Is(ctxErr, context.Canceled):
		return res, failure.Wrap(failure.Canceled, ctxErr, "%s canceled; its process group was killed", c.Path)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, failure.Wrap(failure.Internal, err, "wait for %s", c.Path)
	}
	return res, nil
}
