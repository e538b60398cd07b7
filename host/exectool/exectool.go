// Package exectool turns a language spec's CLI tool into a registry handler:
// it builds the argv from the validated input, resolves the executable (or
// its fallback when it is not installed), runs it and parses its output.
package exectool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/runner"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Options are the host settings every tool run shares.
type Options struct {
	Workspace *workspace.Root
	// Timeout caps every run; a tool's own shorter timeout wins. 0 means
	// no global cap.
	Timeout time.Duration
	// MaxOutput bounds the bytes kept per stream (runner.DefaultMaxOutput if 0).
	MaxOutput int
	// LookPath finds executables; exec.LookPath if nil.
	LookPath func(string) (string, error)
}

// Tool runs one spec tool. It is safe for concurrent use.
type Tool struct {
	lang   string
	spec   *spec.Tool
	params []param
	opts   Options
}

// New returns the handler of spec tool t of language lang.
func New(lang string, t *spec.Tool, opts Options) *Tool {
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	return &Tool{lang: lang, spec: t, params: params(t), opts: opts}
}

// Register adds every tool of every loaded language to reg.
func Register(reg *registry.Registry, set *spec.Set, opts Options) error {
	for _, f := range set.Languages {
		for _, key := range f.ToolOrder {
			t := f.Tools[key]
			schema, err := InputSchema(t)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Source, err)
			}
			sideEffects := "workspace" // may write build output or, with confirmation, sources
			if t.ReadOnly {
				sideEffects = "none"
			}
			err = reg.Add(&registry.Tool{
				ID:                   t.ID,
				Language:             f.Language.ID,
				Name:                 firstNonEmpty(t.Name, t.ID),
				Description:          t.Description,
				Kind:                 registry.KindCLI,
				Categories:           t.Categories,
				InputSchema:          schema,
				OutputSchema:         OutputSchema(t),
				RequiresConfirmation: t.RequiresConfirmation,
				ReadOnly:             t.ReadOnly,
				Idempotent:           t.Idempotent,
				SideEffects:          sideEffects,
				FailureCodes:         cliFailureCodes,
				Source:               f.Source,
				Command:              append([]string{t.Command}, t.Args...),
				Version:              "1",
				Handler:              New(f.Language.ID, t, opts),
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

var cliFailureCodes = []string{
	string(failure.ToolFailed), string(failure.InvalidInput), string(failure.Precondition),
	string(failure.Timeout), string(failure.Canceled),
}

// Call runs the tool.
func (x *Tool) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	dir := x.opts.Workspace.Dir()
	if wd, ok := call.Input[InputWorkdir].(string); ok && wd != "" {
		abs, err := x.opts.Workspace.Resolve(InputWorkdir, wd)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	values, err := x.values(call.Input, dir)
	if err != nil {
		return nil, err
	}

	command, args, usedFallback, err := x.resolve()
	if err != nil {
		return nil, err
	}
	argv := buildArgs(args, x.params, values)

	var timeout time.Duration
	for _, d := range []time.Duration{time.Duration(x.spec.Timeout), x.opts.Timeout} {
		if d > 0 && (timeout == 0 || d < timeout) {
			timeout = d
		}
	}
	// Output is for parsers and agents, not a terminal; the spec can
	// still set NO_COLOR (or FORCE_COLOR) itself.
	env := make([]string, 0, len(x.spec.Env)+1)
	if _, ok := x.spec.Env["NO_COLOR"]; !ok {
		env = append(env, "NO_COLOR=1")
	}
	for _, k := range sortedKeys(x.spec.Env) {
		env = append(env, k+"="+x.spec.Env[k])
	}

	feed := parsers.NewSet(x.spec.Parsers).Start()
	cmd := runner.Command{
		Path:      command,
		Args:      argv,
		Dir:       dir,
		Env:       env,
		Timeout:   timeout,
		MaxOutput: x.opts.MaxOutput,
	}
	if len(x.spec.Parsers) > 0 {
		cmd.Output = func(s runner.Stream) io.Writer {
			if s == runner.Stderr {
				return feed.Writer(parsers.Stderr)
			}
			return feed.Writer(parsers.Stdout)
		}
	}
	res, runErr := runner.Run(ctx, cmd)
	if res == nil {
		return nil, runErr
	}
	outputs, diags, parseErr := feed.Finish(res.ExitCode)
	out := &registry.Result{
		OK:              runErr == nil && slices.Contains(x.successCodes(), res.ExitCode),
		ExitCode:        res.ExitCode,
		Duration:        res.Duration,
		DurationMS:      float64(res.Duration.Microseconds()) / 1000,
		Command:         append([]string{command}, argv...),
		UsedFallback:    usedFallback,
		Stdout:          res.Stdout,
		Stderr:          res.Stderr,
		StdoutTruncated: res.StdoutTruncated,
		StderrTruncated: res.StderrTruncated,
		Outputs:         outputs,
		Diagnostics:     diags,
	}
	if out.Diagnostics == nil {
		out.Diagnostics = []parsers.Diagnostic{}
	}
	if runErr != nil {
		return out, runErr
	}
	if parseErr != nil {
		return out, failure.Wrap(failure.ToolFailed, parseErr, "%s: parse output", x.spec.ID)
	}
	return out, nil
}

func (x *Tool) successCodes() []int {
	if len(x.spec.SuccessCodes) > 0 {
		return x.spec.SuccessCodes
	}
	return []int{0}
}

// resolve finds the executable, falling back only when the primary one is
// not installed: a fallback must never mask a real failure of the primary.
func (x *Tool) resolve() (path string, args []string, usedFallback bool, err error) {
	path, err = x.opts.LookPath(x.spec.Command)
	if err == nil {
		return path, x.spec.Args, false, nil
	}
	fb := x.spec.Fallback
	if fb == nil {
		return "", nil, false, notInstalled(x.spec.ID, x.spec.Command, x.spec.Install, err)
	}
	path, fbErr := x.opts.LookPath(fb.Command)
	if fbErr != nil {
		e := notInstalled(x.spec.ID, x.spec.Command, x.spec.Install, err)
		e.Message += fmt.Sprintf(", and neither is its fallback %q", fb.Command)
		return "", nil, false, e
	}
	return path, fb.Args, true, nil
}

func notInstalled(id, command, install string, err error) *failure.Error {
	e := &failure.Error{Code: failure.Precondition, Err: err,
		Message: fmt.Sprintf("%s: executable %q is not installed (not found on PATH)", id, command),
		Details: map[string]any{"executable": command}}
	if install != "" {
		e.Details["install"] = install
	}
	return e
}

// values turns validated input into command line strings per parameter.
func (x *Tool) values(input map[string]any, dir string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, p := range x.params {
		v, ok := input[p.name]
		if !ok || v == nil {
			if p.input.Default == nil {
				continue
			}
			v = p.input.Default
		}
		var vals []string
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				vals = append(vals, scalarString(e))
			}
		case bool:
			if p.flag != "" && p.position == nil {
				if v {
					out[p.name] = nil // flag alone
				}
				continue
			}
			vals = []string{strconv.FormatBool(v)}
		default:
			vals = []string{scalarString(v)}
		}
		if p.isPath {
			for i, s := range vals {
				abs, err := x.opts.Workspace.Resolve(p.name, s)
				if err != nil {
					return nil, err
				}
				vals[i] = workspace.Rel(dir, abs)
			}
		}
		out[p.name] = vals
	}
	return out, nil
}

func scalarString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// buildArgs places values into args: positional inserts at their index of
// the original args, then flag inputs, then -1 appends, so that "append"
// really means last.
func buildArgs(args []string, ps []param, values map[string][]string) []string {
	inserts := map[int][]string{}
	var flags, tail []string
	for _, p := range ps {
		vals, ok := values[p.name]
		if !ok {
			continue
		}
		switch {
		case p.position != nil && *p.position >= 0:
			inserts[*p.position] = append(inserts[*p.position], vals...)
		case p.position != nil:
			tail = append(tail, vals...)
		case vals == nil: // boolean flag
			flags = append(flags, p.flag)
		default:
			for _, v := range vals {
				if n := len(p.flag); n > 0 && p.flag[n-1] == '=' {
					flags = append(flags, p.flag+v)
				} else {
					flags = append(flags, p.flag, v)
				}
			}
		}
	}
	out := make([]string, 0, len(args)+len(flags)+len(tail)+4)
	for i := 0; i <= len(args); i++ {
		out = append(out, inserts[i]...)
		if i < len(args) {
			out = append(out, args[i])
		}
	}
	out = append(out, flags...)
	return append(out, tail...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
