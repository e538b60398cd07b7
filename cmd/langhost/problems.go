package main

import (
	"fmt"

	"github.com/langhost/langhost/host/spec"
)

// warning is an envelope warning: something the user must know that did
// not fail the command.
type warning struct {
	Code    string `json:"code"`
	Message string `json:"message"` // file:line:col: field: message
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
}

// specSkipped is the warning code of a problem that made a spec file be
// skipped.
const specSkipped = "spec_skipped"

// specWarnings turns the problems of skipped spec files into envelope
// warnings, one per problem.
func specWarnings(files []*spec.FileError) []warning {
	out := []warning{}
	for _, fe := range files {
		for _, p := range fe.Problems {
			out = append(out, warning{Code: specSkipped, Message: p.String(), File: p.File, Line: p.Line,
				Column: p.Column, Field: p.Field})
		}
	}
	return out
}

// warnProblems tells the user on stderr which spec files were skipped, each
// problem as file:line:col: field: message, so that a typo in a spec never
// silently drops a language. Stderr in every format (in mcp stdout belongs
// to the protocol); in JSON mode the envelope's warnings carry them too.
func warnProblems(f *factory, problems []*spec.FileError) {
	for _, fe := range problems {
		fmt.Fprintf(f.io.ErrOut, "warning: skipped %v\n", fe)
	}
}
