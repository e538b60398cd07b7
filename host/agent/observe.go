package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultObservationTokens bounds one observation unless the budget says
// otherwise.
const DefaultObservationTokens = 2000

// bytesPerToken is the rough size of a token, for budgets: models count
// tokens, not bytes, and the exact count needs the model's tokenizer.
const bytesPerToken = 4

// observation is what the model is told about one tool call: the outcome
// in the fewest tokens that let it act. Diagnostics are a compact feedback
// packet; a failed call says its failure class and, for a rejected edit,
// the diagnostics it would have added.
type observation struct {
	Tool        string              `json:"tool"`
	OK          bool                `json:"ok"`
	ExitCode    *int                `json:"exit_code,omitempty"`
	Error       *observedError      `json:"error,omitempty"`
	Diagnostics *diagnostic.Packet  `json:"diagnostics,omitempty"`
	Tests       *parsers.TestReport `json:"tests,omitempty"`
	Files       []string            `json:"files,omitempty"`
	Data        json.RawMessage     `json:"data,omitempty"`
	Output      string              `json:"output,omitempty"` // the output's tail, when it failed without diagnostics
	Truncated   string              `json:"truncated,omitempty"`
}

type observedError struct {
	Code    failure.Code `json:"code"`
	Message string       `json:"message"`
	Field   string       `json:"field,omitempty"`
	// NewDiagnostics are the diagnostics a rejected edit would have added.
	NewDiagnostics *diagnostic.Packet `json:"new_diagnostics,omitempty"`
	Candidates     any                `json:"candidates,omitempty"`
}

// observe shapes the outcome of a tool call for the model, within budget
// tokens. It also returns the failure class ("" for success) and whether
// the model should see it as an error.
func observe(id string, res *registry.Result, err error, budget int) (text string, code failure.Code, isError bool) {
	o := observation{Tool: id}
	switch {
	case err != nil:
		code = failure.CodeOf(err)
		o.Error = observeError(err)
	case res == nil:
		code = failure.Internal
		o.Error = &observedError{Code: code, Message: id + " returned no result"}
	default:
		o.OK = res.OK
		if len(res.Command) > 0 {
			o.ExitCode = &res.ExitCode
		}
		if len(res.Diagnostics) > 0 {
			p := diagnostic.Compact(res.Diagnostics, nil)
			o.Diagnostics = &p
		}
		o.Tests, o.Files, o.Data = res.Tests, res.Files, res.Data
		if !res.OK {
			code = failure.ToolFailed
			if len(res.Diagnostics) == 0 && (res.Tests == nil || len(res.Tests.Failures) == 0) {
				o.Output = cmpNonBlank(res.Stderr, res.Stdout)
			}
		}
	}
	return fit(o, budget), code, code != ""
}

func cmpNonBlank(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

func observeError(err error) *observedError {
	oe := &observedError{Code: failure.CodeOf(err), Message: err.Error()}
	var fe *failure.Error
	if !errors.As(err, &fe) {
		return oe
	}
	oe.Field, oe.Candidates = fe.Field, fe.Details["candidates"]
	if tx, ok := fe.Details["transaction"]; ok {
		// The transaction's shape is the plugin's: read only its delta.
		var t struct {
			Delta diagnostic.Delta `json:"delta"`
		}
		if b, err := json.Marshal(tx); err == nil && json.Unmarshal(b, &t) == nil && len(t.Delta.New) > 0 {
			p := diagnostic.Compact(t.Delta.New, nil)
			oe.NewDiagnostics = &p
		}
	}
	return oe
}

// fit encodes o in at most budget tokens, dropping what matters least
// first: the tail of long outputs and data, then diagnostics beyond the
// first few, saying what was cut.
func fit(o observation, budget int) string {
	if budget <= 0 {
		budget = DefaultObservationTokens
	}
	limit := budget * bytesPerToken
	var cut []string
	var dataText string
	for range 32 {
		b, err := json.Marshal(o)
		if err != nil {
			return fmt.Sprintf(`{"tool":%q,"ok":false,"error":{"code":"internal","message":"observation: %s"}}`, o.Tool, err)
		}
		if len(b) <= limit {
			return string(b)
		}
		over := len(b) - limit
		switch {
		case len(o.Output) > 256:
			o.Output = "..." + clip.Tail(o.Output, max(len(o.Output)-over-64, 256))
			cut = appendOnce(cut, "output (the beginning)")
		case len(o.Data) > 256:
			// Data is an operation's JSON; a prefix is no longer JSON,
			// so it travels as a string, cut from the original text
			// (escaping it again on every round would only grow it).
			if dataText == "" {
				dataText = string(o.Data)
			}
			// Escaping grows the text: cut in proportion.
			keep := len(dataText) - (over+64)*len(dataText)/len(o.Data) - 1
			if keep < 256 {
				o.Data = nil
				cut = appendOnce(cut, "data (all of it)")
				break
			}
			dataText = dataText[:keep]
			o.Data, _ = json.Marshal(dataText + "...")
			cut = appendOnce(cut, "data (the end)")
		case o.Diagnostics != nil && len(o.Diagnostics.Items) > 1:
			n := len(o.Diagnostics.Items) / 2
			o.Diagnostics.Items = o.Diagnostics.Items[:n]
			cut = appendOnce(cut, "diagnostics (counts has them all)")
		case o.Error != nil && o.Error.NewDiagnostics != nil && len(o.Error.NewDiagnostics.Items) > 1:
			o.Error.NewDiagnostics.Items = o.Error.NewDiagnostics.Items[:len(o.Error.NewDiagnostics.Items)/2]
			cut = appendOnce(cut, "new diagnostics (counts has them all)")
		case o.Tests != nil && len(o.Tests.Failures) > 1:
			t := *o.Tests
			t.Failures = t.Failures[:len(t.Failures)/2]
			o.Tests = &t
			cut = appendOnce(cut, "test failures")
		case len(o.Files) > 1:
			o.Files = o.Files[:len(o.Files)/2]
			cut = appendOnce(cut, "files")
		case o.Error != nil && len(o.Error.Message) > 256:
			o.Error.Message = o.Error.Message[:max(len(o.Error.Message)-over-64, 256)] + "..."
			cut = appendOnce(cut, "error message")
		default:
			return overBudget(o, budget)
		}
		o.Truncated = "cut to fit " + fmt.Sprint(budget) + " tokens: " + strings.Join(cut, ", ")
	}
	return overBudget(o, budget)
}

// overBudget is what is left of an observation nothing could cut to fit:
// its outcome, still JSON.
func overBudget(o observation, budget int) string {
	small := observation{Tool: o.Tool, OK: o.OK, ExitCode: o.ExitCode,
		Truncated: fmt.Sprintf("the result does not fit %d tokens; narrow the call", budget)}
	if o.Error != nil {
		small.Error = &observedError{Code: o.Error.Code, Message: "(cut)"}
	}
	b, _ := json.Marshal(small)
	return string(b)
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
