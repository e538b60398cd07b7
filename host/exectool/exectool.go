// Package exectool turns a language spec's CLI tool into a registry handler:
// it builds the argv from the validated input, resolves the executable (or
// its fallback when it is not installed), runs it and parses its output.
package exectool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

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
	// packet is the language's default feedback packet (packet.go).
	packet string
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
				ID:          t.ID,
				Language:    f.Language.ID,
				Name:        firstNonEmpty(t.Name, t.ID),
				Description: t.Description,
				Kind:        registry.KindCLI,
				Categories:  t.Categories,
				InputSchema: schema,
				// The output schema is built when the tool is first looked
				// up: a run needs one tool's, and building every tool's
				// took a tenth of the host's start.
				LoadSchemas:          func() (in, out *jsonschema.Schema) { return schema, OutputSchema(t) },
				RequiresConfirmation: t.RequiresConfirmation,
				ReadOnly:             t.ReadOnly,
				Idempotent:           t.Idempotent,
				SideEffects:          sideEffects,
				FailureCodes:         cliFailureCodes,
				WorkspaceCode:        t.RunsWorkspaceCode(),
				Source:               f.Source,
				Command:              append([]string{t.Command}, t.Args...),
				Version:              "1",
				Handler:              New(f.Language.ID, t, opts).withDefaultPacket(f.Packet),
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
	dir, values, err := x.arguments(call.Input)
	if err != nil {
		return nil, err
	}
	packet, err := x.packetMode(call.Input)
	if err != nil {
		return nil, err
	}

	command, args, usedFallback, err := x.resolve()
	if err != nil {
		return nil, err
	}
	argv := buildArgs(args, x.params, values, x.spec.EndOfOptions)

	var timeout time.Duration
	for _, d := range []time.Duration{time.Duration(x.spec.Timeout), x.opts.Timeout} {
		if d > 0 && (timeout == 0 || d < timeout) {
			timeout = d
		}
	}
	// Output is for parsers and agents, not a terminal: colour off by the
	// conventions tools follow (NO_COLOR; TERM=dumb for those that colour
	// a pipe when the terminal can, as rustfmt does; cargo's own). The
	// spec can still set any of them itself.
	env := make([]string, 0, len(x.spec.Env)+3)
	for _, kv := range []string{"NO_COLOR=1", "TERM=dumb", "CARGO_TERM_COLOR=never"} {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := x.spec.Env[name]; !set {
			env = append(env, kv)
		}
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
		PassEnv:   x.spec.PassEnv,
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
	Shape(out, x.opts.Workspace.Dir(), dir)
	if runErr != nil {
		return out, runErr
	}
	if parseErr != nil {
		return out, failure.Wrap(failure.ToolFailed, parseErr, "%s: parse output", x.spec.ID)
	}
	return out, shapePacket(out, packet)
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

// ValidateInput implements registry.InputValidator: it checks what the
// schema cannot, such as paths leaving the workspace and values the
// wrapped program would read as options, without running anything.
func (x *Tool) ValidateInput(input map[string]any) error {
	if _, _, err := x.arguments(input); err != nil {
		return err
	}
	_, err := x.packetMode(input)
	return err
}

// arguments resolves the working directory and the command line values
// of input.
func (x *Tool) arguments(input map[string]any) (dir string, values map[string][]string, err error) {
	dir = x.opts.Workspace.Dir()
	if wd, ok := input[InputWorkdir].(string); ok && wd != "" {
		if dir, err = x.opts.Workspace.Resolve(InputWorkdir, wd); err != nil {
			return "", nil, err
		}
		// Checked here, before anything runs: exec would report a
		// missing directory as a missing executable.
		st, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", nil, &failure.Error{Code: failure.NotFound, Field: InputWorkdir, Message: fmt.Sprintf("directory %q does not exist in the workspace", wd)}
		case err != nil:
			return "", nil, &failure.Error{Code: failure.Precondition, Field: InputWorkdir, Message: fmt.Sprintf("directory %q", wd), Err: err}
		case !st.IsDir():
			return "", nil, &failure.Error{Code: failure.InvalidInput, Field: InputWorkdir, Message: fmt.Sprintf("%q is not a directory", wd)}
		}
	}
	values, err = x.values(input, dir)
	return dir, values, err
}

// values turns validated input into command line strings per parameter.
// It is the one place every caller's input passes on its way into argv, so
// it refuses here what the tool could read as something other than data.
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
		_, isArray := v.([]any)
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				vals = append(vals, scalarString(e))
			}
		case bool:
			if p.Flag != "" && p.Position == nil {
				if v {
					out[p.name] = nil // flag alone
				}
				continue
			}
			vals = []string{strconv.FormatBool(v)}
		default:
			vals = []string{scalarString(v)}
		}
		for i, s := range vals {
			elem := -1
			if isArray {
				elem = i
			}
			if err := x.checkArg(p, elem, s); err != nil {
				return nil, err
			}
			if p.Path {
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

// checkArg refuses a value of p (element elem of an array, or -1) that
// argv cannot carry or that the tool could read as an option:
// "-toolexec=./x.sh" as a package pattern would make a read-only go vet
// run any program. Paths are exempt: they are passed as "./relative",
// which never looks like an option.
func (x *Tool) checkArg(p param, elem int, s string) error {
	what := fmt.Sprintf("value %q", s)
	if elem >= 0 {
		what = fmt.Sprintf("element %d (%q)", elem, s)
	}
	switch {
	case strings.ContainsRune(s, 0):
		return &failure.Error{Code: failure.InvalidInput, Field: p.name,
			Message: what + " contains a NUL byte, which no command line can carry; nothing was run"}
	case p.Path || p.optionLike || !spec.OptionLike(s):
		return nil
	}
	as := "an option"
	if s[0] == '@' {
		as = "a file of options"
	}
	msg := fmt.Sprintf("%s starts with %q, which %s would read as %s; nothing was run", what, s[:1], x.spec.Command, as)
	if p.input.Type == "" || p.input.Type == "string" || p.input.Type == "array" {
		msg += fmt.Sprintf(" (a file named so can be passed as %q)", "./"+s)
	}
	return &failure.Error{Code: failure.InvalidInput, Field: p.name, Message: msg, Details: map[string]any{"value": s}}
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
// really means last. With endOfOptions a "--" precedes the appended values
// (validation makes every positional input append).
func buildArgs(args []string, ps []param, values map[string][]string, endOfOptions bool) []string {
	inserts := map[int][]string{}
	var flags, tail []string
	for _, p := range ps {
		vals, ok := values[p.name]
		if !ok {
			continue
		}
		switch {
		case p.Position != nil && *p.Position >= 0:
			inserts[*p.Position] = append(inserts[*p.Position], vals...)
		case p.Position != nil:
			tail = append(tail, vals...)
		case vals == nil: // boolean flag
			flags = append(flags, p.Flag)
		default:
			for _, v := range vals {
				if p.Joined() {
					flags = append(flags, p.Flag+v)
				} else {
					flags = append(flags, p.Flag, v)
				}
			}
		}
	}
	out := make([]string, 0, len(args)+len(flags)+len(tail)+5)
	for i := 0; i <= len(args); i++ {
		out = append(out, inserts[i]...)
		if i < len(args) {
			out = append(out, args[i])
		}
	}
	out = append(out, flags...)
	if endOfOptions && len(tail) > 0 {
		out = append(out, "--")
	}
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
