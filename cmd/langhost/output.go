package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/prereqs"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// envelope is the JSON output of every command (the CLI contract).
type envelope struct {
	OK        bool        `json:"ok"`
	CommandID string      `json:"command_id"`
	Version   string      `json:"version"`
	Data      any         `json:"data"`
	Errors    []errorItem `json:"errors"`
	// Warnings are problems that did not fail the command, such as spec
	// files skipped because they are invalid.
	Warnings []warning `json:"warnings"`
	TraceID  string    `json:"trace_id"`
}

type errorItem struct {
	Code    failure.Code   `json:"code"`
	Message string         `json:"message"`
	Field   string         `json:"field,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// printer writes a command's result in the chosen format.
type printer struct{ f *factory }

// result prints data. text renders it for humans; in JSON mode the data is
// wrapped in the envelope. A non-nil err makes the envelope ok=false, and
// the returned error carries only the exit code.
func (p printer) result(commandID string, data any, err error, text func(w io.Writer) error) error {
	if p.f.format() == "json" {
		env := envelope{OK: err == nil, CommandID: commandID, Version: host.Version, Data: data,
			Errors: errorItems(err), Warnings: []warning{}, TraceID: traceID()}
		if p.f.host != nil {
			env.Warnings = specWarnings(p.f.host.Specs.Problems)
		}
		if p.f.jq != nil {
			jerr := p.f.jq.apply(p.f.cmd.Context(), p.f.io.Out, env)
			if err != nil {
				// The filter sees the whole envelope, errors included, but
				// what it selects may leave them out (a failed run's .data
				// is null). As with gh, a failed command's message goes to
				// stderr whatever the filter printed, so no failure is mute.
				printTextError(p.f.io.ErrOut, err)
			}
			if jerr != nil {
				// The command's own outcome is still the one that counts
				// when it failed; a failing filter is reported beside it.
				printTextError(p.f.io.ErrOut, jerr)
				if err == nil {
					err = jerr
				}
				return &reportedError{code: failure.CodeOf(err)}
			}
		} else {
			enc := json.NewEncoder(p.f.io.Out)
			enc.SetIndent("", "  ")
			if werr := enc.Encode(env); werr != nil {
				return werr
			}
		}
	} else {
		if text != nil {
			if werr := text(p.f.io.Out); werr != nil {
				return werr
			}
		}
		if err != nil {
			printTextError(p.f.io.ErrOut, err)
		}
	}
	if err != nil {
		return &reportedError{code: failure.CodeOf(err)}
	}
	return nil
}

// failure prints an error that ended a command before it produced data.
func (p printer) failure(commandID string, err error) {
	_ = p.result(commandID, nil, err, nil)
}

func printTextError(w io.Writer, err error) {
	fmt.Fprintf(w, "error: %s\n", printable(err.Error()))
	var fe *failure.Error
	if !errors.As(err, &fe) {
		return
	}
	if install, ok := fe.Details["install"].(string); ok {
		if command, err := prereqs.InstallCommand(install); err == nil {
			fmt.Fprintf(w, "install: %s  (%s)\n", command, install)
		} else {
			fmt.Fprintf(w, "install: %s\n", install)
		}
	}
	// "Did you mean" and ambiguity lists: one candidate per line.
	if cands, ok := fe.Details["candidates"].([]any); ok {
		for _, c := range cands {
			fmt.Fprintf(w, "  %s\n", printable(candidateLine(c)))
		}
	}
}

// candidateLine renders a candidate: a tool id, or a symbol with its
// location.
func candidateLine(c any) string {
	m, ok := c.(map[string]any)
	if !ok {
		return fmt.Sprint(c)
	}
	line := fmt.Sprint(m["name"])
	if k, ok := m["kind"]; ok {
		line += fmt.Sprintf(" (%v)", k)
	}
	if cont, ok := m["container"].(string); ok && cont != "" {
		line += " in " + cont
	}
	if file, ok := m["file"]; ok {
		line += fmt.Sprintf("  %v:%v", file, m["line"])
	}
	return line
}

func errorItems(err error) []errorItem {
	if err == nil {
		return []errorItem{}
	}
	var items []errorItem
	// errors.Join from validation gives one item per problem.
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			items = append(items, errorItems(e)...)
		}
		return items
	}
	item := errorItem{Code: failure.CodeOf(err), Message: err.Error()}
	var fe *failure.Error
	if errors.As(err, &fe) {
		item.Field, item.Details = fe.Field, fe.Details
	}
	return []errorItem{item}
}

func traceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// table writes aligned columns, the first row a header (bold on a
// terminal).
func (f *factory) table(w io.Writer, rows [][]string) error {
	return f.style().table(w, rows, nil)
}

// commandPath is the command id used in envelopes, e.g. "tools.list".
func commandPath(cmd *cobra.Command) string {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name())
	return strings.ReplaceAll(strings.TrimSpace(path), " ", ".")
}

// checkOutputFlags validates --jq, --color and --format before a command
// does anything, so that a typo never costs a tool run.
func (f *factory) checkOutputFlags() error {
	flags := f.cmd.Flags()
	if fl := flags.Lookup("color"); fl != nil {
		if err := colorMode(fl.Value.String()); err != nil {
			return err
		}
	}
	if fl := flags.Lookup("format"); fl != nil {
		switch v := fl.Value.String(); v {
		case "", "json", "text":
		case "markdown":
			if f.cmd.Name() != "prereqs" && f.cmd.Annotations["markdown"] != "true" {
				return &failure.Error{Code: failure.InvalidInput, Field: "--format",
					Message: "--format markdown: only prereqs writes markdown (and bench report); use json or text"}
			}
			if jq := flags.Lookup("jq"); jq != nil && jq.Value.String() != "" {
				return &failure.Error{Code: failure.InvalidInput, Field: "--jq",
					Message: "--jq filters JSON; it cannot be used with --format markdown"}
			}
		default:
			return &failure.Error{Code: failure.InvalidInput, Field: "--format",
				Message: fmt.Sprintf("--format: %q is not json or text", v)}
		}
	}
	if fl := flags.Lookup("jq"); fl != nil && fl.Value.String() != "" {
		jq, err := compileJQ(fl.Value.String())
		if err != nil {
			return err
		}
		f.jq = jq
	}
	return nil
}

// style is how text output is coloured for this command.
func (f *factory) style() style {
	mode := ""
	if f.cmd != nil {
		if fl := f.cmd.Flags().Lookup("color"); fl != nil {
			mode = fl.Value.String()
		}
	}
	env := f.env
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	st := newStyle(mode, f.io.OutTTY, env)
	st.width = f.io.Width
	// COLUMNS, as for ls and git, sets the width where none is known (a
	// pipe) or overrides the terminal's.
	if v, ok := env("COLUMNS"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			st.width = n
		}
	}
	return st
}

// document prints a document that is itself the output (a JSON Schema,
// markdown): written as is, so that `langhost schema > file` saves the
// schema, unless JSON was asked for explicitly (--format json or --jq),
// which wraps it in the envelope like every other result.
func (p printer) document(commandID string, data any, write func(w io.Writer) error) error {
	if p.f.explicitJSON() {
		return p.result(commandID, data, nil, nil)
	}
	return write(p.f.io.Out)
}

// explicitJSON reports whether the user asked for JSON on this command
// line, rather than getting it because stdout is not a terminal.
func (f *factory) explicitJSON() bool {
	if f.jq != nil {
		return true
	}
	fl := f.cmd.Flags().Lookup("format")
	return fl != nil && fl.Changed && fl.Value.String() == "json"
}
