package registry

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// Failure says why a result that ran reports a failure, or "" when it
// does not, by one rule for every language, kind of tool and surface (the
// CLI's exit code and text, the envelope, MCP's isError): tests failed, a
// check listed files it would change (gofmt -l exits 0), the program
// exited with a code its spec does not call success, or a read-only tool
// (a linter, a diagnostics call) reported errors. Warnings alone do not
// fail a run; nor do the diagnostics of a write, which the diagnostics
// gate judges. id names the tool in the message; readOnly is the tool's.
//
// A run that failed with no failed test says what failed instead, from
// its output: the first error diagnostic (a build error, an MSBuild error
// such as a coverage threshold), else the last line the tool printed (a
// crash, "no test files").
func (r *Result) Failure(id string, readOnly bool) string {
	switch {
	case r.Tests != nil && r.Tests.Failed > 0:
		msg := fmt.Sprintf("%s: %d tests failed", id, r.Tests.Failed)
		// The first error says why: a failed assertion, or the build
		// error of a package whose tests never ran.
		if why := r.firstError(); why != "" {
			msg += ": " + why
		}
		return msg
	case len(r.Files) > 0:
		return fmt.Sprintf("%s: %d files would change: %s", id, len(r.Files), clipList(r.Files, 5))
	case !r.OK:
		msg := fmt.Sprintf("%s failed with exit code %d", id, r.ExitCode)
		if r.Tests != nil {
			msg += " and no failed test"
		}
		if why := r.cause(); why != "" {
			msg += ": " + why
		}
		return msg
	case readOnly && r.Counts.Error > 0:
		return fmt.Sprintf("%s reported %d errors", id, r.Counts.Error)
	}
	return ""
}

// Confirmation says when a call of t needs the caller's confirmation (the
// CLI's --yes or tools.allow, an MCP client's approval), from what the
// tool does: "always" for a tool that changes files on every call,
// "to write (apply)" or "to write (unless dry_run)" for an edit tool that
// previews unless asked to write, and "never" for the rest. An edit tool
// goes through a transaction that refuses an unconfirmed write, so its
// RequiresConfirmation is false and says nothing alone.
func (t *Tool) Confirmation() string {
	switch {
	case t.RequiresConfirmation:
		return "always"
	case t.ReadOnly || t.Kind == KindCLI || t.SideEffects != "workspace":
		return "never"
	}
	if t.InputSchema != nil {
		if _, ok := t.InputSchema.Properties["apply"]; ok {
			return "to write (apply)"
		}
		if _, ok := t.InputSchema.Properties["dry_run"]; ok {
			return "to write (unless dry_run)"
		}
	}
	return "always"
}

// maxCause bounds the output line quoted as a failure's cause.
const maxCause = 300

// cause is what a failed run's output says went wrong: its first error
// diagnostic, else the last non-blank line of stderr, else of stdout.
func (r *Result) cause() string {
	if why := r.firstError(); why != "" {
		return why
	}
	if len(r.Diagnostics) > 0 {
		return "" // the diagnostics say why; their last line would repeat one
	}
	for _, out := range []string{r.Stderr, r.Stdout} {
		if l := lastLine(out); l != "" {
			return l
		}
	}
	return ""
}

// firstError is the first error diagnostic, located, with how many more
// there are; "" without one.
func (r *Result) firstError() string {
	for _, d := range r.Diagnostics {
		if d.Severity == diagnostic.Error {
			loc := d.Path
			if d.Line > 0 {
				loc += fmt.Sprintf(":%d", d.Line)
			}
			if loc != "" {
				loc += ": "
			}
			why := loc + d.Message
			if r.Counts.Error > 1 {
				why += fmt.Sprintf(" (and %d more errors)", r.Counts.Error-1)
			}
			return why
		}
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > maxCause {
		l = clip.Head(l, maxCause) + "..."
	}
	return l
}

// clipList joins the first n items, saying how many more there are.
func clipList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
