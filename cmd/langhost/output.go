package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/langhost/langhost/host"
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
		enc := json.NewEncoder(p.f.io.Out)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(env); werr != nil {
			return werr
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
	fmt.Fprintf(w, "error: %v\n", err)
	var fe *failure.Error
	if !errors.As(err, &fe) {
		return
	}
	if install, ok := fe.Details["install"]; ok {
		fmt.Fprintf(w, "install: %v\n", install)
	}
	// "Did you mean" and ambiguity lists: one candidate per line.
	if cands, ok := fe.Details["candidates"].([]any); ok {
		for _, c := range cands {
			fmt.Fprintf(w, "  %s\n", candidateLine(c))
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

// table writes aligned columns; the first row is the header.
func table(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// commandPath is the command id used in envelopes, e.g. "tools.list".
func commandPath(cmd *cobra.Command) string {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name())
	return strings.ReplaceAll(strings.TrimSpace(path), " ", ".")
}
