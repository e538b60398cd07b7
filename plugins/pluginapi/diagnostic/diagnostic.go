// Package diagnostic is the one shape of a problem report in langhost:
// CLI tools' parsed output, language servers' diagnostics, transaction
// deltas and every surface (CLI, MCP, plugins) use it. It is part of the
// plugin contract and imports nothing of langhost.
package diagnostic

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// Diagnostic is one problem with 1-based positions. Path is relative to
// the workspace root with "/" separators when the file is inside it. A
// zero Line or Column means the tool did not give one.
type Diagnostic struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
	Severity  string `json:"severity" jsonschema:"error, warning, info or hint"`
	Code      string `json:"code,omitempty"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty" jsonschema:"the tool or server that reported it"`
}

// Severities, most severe first.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
	Hint    = "hint"
)

// Rank orders severities: 1 for error to 4 for hint, 5 for anything else.
func Rank(severity string) int {
	switch severity {
	case Error:
		return 1
	case Warning:
		return 2
	case Info:
		return 3
	case Hint:
		return 4
	}
	return 5
}

// NormalizeSeverity maps the many ways tools spell a severity ("E",
// "ERROR", "warn", "fatal error", "note", "information", LSP's 1..4) to
// error, warning, info or hint. It returns "" for text it does not know.
func NormalizeSeverity(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "e", "err", "error", "fatal", "fatal error", "critical", "failure", "fail", "1":
		return Error
	case "w", "warn", "warning", "2":
		return Warning
	case "i", "info", "information", "informational", "n", "note", "notice", "message", "3":
		return Info
	case "h", "hint", "help", "suggestion", "style", "4":
		return Hint
	}
	return ""
}

// RelPath returns p as a workspace path: relative to root with "/"
// separators when p is root or inside it; otherwise p cleaned, in "/"
// form. A relative p is taken as relative to root already.
func RelPath(root, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// Counts are the number of diagnostics per severity. Every field is
// always present in JSON.
type Counts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
	Hint    int `json:"hint"`
}

// Count counts ds by severity; an unknown severity counts as info.
func Count(ds []Diagnostic) Counts {
	var c Counts
	for _, d := range ds {
		switch d.Severity {
		case Error:
			c.Error++
		case Warning:
			c.Warning++
		case Hint:
			c.Hint++
		default:
			c.Info++
		}
	}
	return c
}

// Compare orders diagnostics by path, position, severity, then text.
func Compare(a, b Diagnostic) int {
	return cmp.Or(
		strings.Compare(a.Path, b.Path),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(Rank(a.Severity), Rank(b.Severity)),
		strings.Compare(a.Code, b.Code),
		strings.Compare(a.Message, b.Message),
		strings.Compare(a.Source, b.Source),
		cmp.Compare(a.EndLine, b.EndLine),
		cmp.Compare(a.EndColumn, b.EndColumn),
	)
}

// Normalize returns ds sorted with exact duplicates removed, never nil.
func Normalize(ds []Diagnostic) []Diagnostic {
	out := slices.Clone(ds)
	slices.SortFunc(out, Compare)
	out = slices.Compact(out)
	if out == nil {
		out = []Diagnostic{}
	}
	return out
}

// Delta is how diagnostics changed across an edit.
type Delta struct {
	New       []Diagnostic `json:"new"`
	Fixed     []Diagnostic `json:"fixed"`
	Unchanged []Diagnostic `json:"unchanged"`
}

// Diff computes the delta from before to after. Edits move lines, so two
// diagnostics are the same problem when path, severity, code, message and
// source agree, whatever their position; among several such, each
// "before" is matched to at most one "after", nearest lines first.
// Unchanged holds the "after" versions. The lists are sorted, never nil.
func Diff(before, after []Diagnostic) Delta {
	type key struct{ path, severity, code, message, source string }
	keyOf := func(d Diagnostic) key { return key{d.Path, d.Severity, d.Code, d.Message, d.Source} }
	pending := map[key][]Diagnostic{}
	for _, d := range Normalize(before) {
		pending[keyOf(d)] = append(pending[keyOf(d)], d)
	}
	delta := Delta{New: []Diagnostic{}, Fixed: []Diagnostic{}, Unchanged: []Diagnostic{}}
	for _, d := range Normalize(after) {
		k := keyOf(d)
		cands := pending[k]
		if len(cands) == 0 {
			delta.New = append(delta.New, d)
			continue
		}
		best := 0
		for i, c := range cands {
			if abs(c.Line-d.Line) < abs(cands[best].Line-d.Line) {
				best = i
			}
		}
		pending[k] = slices.Delete(cands, best, best+1)
		delta.Unchanged = append(delta.Unchanged, d)
	}
	for _, rest := range pending {
		delta.Fixed = append(delta.Fixed, rest...)
	}
	slices.SortFunc(delta.Fixed, Compare)
	return delta
}

// Worse reports whether the delta adds a diagnostic at least as severe as
// severity (Error or Warning).
func (d Delta) Worse(severity string) bool {
	for _, n := range d.New {
		if Rank(n.Severity) <= Rank(severity) {
			return true
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
