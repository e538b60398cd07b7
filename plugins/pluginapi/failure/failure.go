// Package failure classifies errors into the failure classes of the CLI
// contract. Every class maps to one process exit code and one stable string
// code used in JSON envelopes and MCP results.
package failure

import (
	"context"
	"errors"
	"fmt"
)

// Code is a failure class.
type Code string

// Failure classes. The exit codes are part of the CLI contract (see README).
const (
	ToolFailed   Code = "tool_failed"         // the tool ran and reported failure
	InvalidInput Code = "invalid_input"       // bad input, usage or spec
	NotFound     Code = "not_found"           // unknown tool, file or symbol
	Precondition Code = "precondition_failed" // missing executable, needs confirmation, not permitted
	Timeout      Code = "timeout"             // a deadline expired
	Ambiguous    Code = "ambiguous_target"    // a name matched several symbols
	Internal     Code = "internal"            // plugin or host bug
	Unsupported  Code = "unsupported_by_server"
	Canceled     Code = "canceled"

	// Classes of edit transactions (see README, Transactions).
	AnchorNotResolved    Code = "anchor_not_resolved"    // the text or symbol an edit is anchored to is not there
	Postcondition        Code = "postcondition_failed"   // the edit applied but did not have the effect it promised
	DiagnosticRegression Code = "diagnostic_regression"  // the edit was rejected: it adds diagnostics the policy forbids
	WorkspaceApplyFailed Code = "workspace_apply_failed" // writing an accepted edit to disk failed; nothing was changed
)

// ExitCode is the process exit code for the class.
func (c Code) ExitCode() int {
	switch c {
	case "":
		return 0
	case ToolFailed:
		return 1
	case InvalidInput:
		return 2
	case NotFound:
		return 3
	case Precondition, Unsupported:
		return 4
	case Timeout:
		return 5
	case Ambiguous:
		return 6
	case AnchorNotResolved:
		return 8
	case Postcondition:
		return 9
	case DiagnosticRegression:
		return 10
	case WorkspaceApplyFailed:
		return 11
	case Canceled:
		return 130
	default:
		return 7
	}
}

// Error is an error with a failure class and optional structured details
// (for example "did you mean" candidates or the offending input key).
type Error struct {
	Code    Code
	Message string
	Field   string         // input key or spec field the error is about, if any
	Details map[string]any // extra machine-readable context
	Err     error          // wrapped cause
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" {
		msg = fmt.Sprintf("%s: %s", e.Field, msg)
	}
	if e.Err != nil {
		if msg == "" {
			return e.Err.Error()
		}
		return msg + ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an Error of class code with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error of class code wrapping err with a message.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the class of err: the class of the first *Error in its
// chain, Timeout/Canceled for context errors, Internal otherwise.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Code
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, context.Canceled):
		return Canceled
	}
	return Internal
}
