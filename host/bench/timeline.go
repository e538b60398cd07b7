package bench

import (
	"bufio"
	"encoding/json"
	"os"
	"time"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// benchEvent is a line of a run's timeline written by the bench itself;
// langhost's agent adds its transcript's events (messages, model calls
// with tokens and timings, tool calls and results) between bench_start
// and the checks.
type benchEvent struct {
	Time time.Time `json:"time"`
	Type string    `json:"type"` // bench_start, external_start, external_end, check, bench_end

	Scenario  string `json:"scenario,omitempty"`
	Config    string `json:"config,omitempty"`
	Task      string `json:"task,omitempty"`
	Runner    string `json:"runner,omitempty"`
	Interface string `json:"interface,omitempty"`
	Packet    string `json:"packet,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`

	Command  []string `json:"command,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
	// Tools are the tools of the run that langhost mcp does not serve
	// (mcp_not_served).
	Tools []string `json:"tools,omitempty"`

	Check *CheckResult `json:"check,omitempty"`

	Status     string       `json:"status,omitempty"`
	Success    *bool        `json:"success,omitempty"`
	StopReason string       `json:"stop_reason,omitempty"`
	Steps      int          `json:"steps,omitempty"`
	ToolCalls  int          `json:"tool_calls,omitempty"`
	Tokens     *model.Usage `json:"tokens,omitempty"`
	DurationMS float64      `json:"duration_ms,omitempty"`
	Error      string       `json:"error,omitempty"`
}

// timeline appends JSON lines to a run's timeline file, redacted with red
// (the API keys of the run, and anything shaped like a key).
type timeline struct {
	f   *os.File
	w   *bufio.Writer
	red *redact.Redactor
	err error
}

func createTimeline(path string, red *redact.Redactor) (*timeline, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "timeline")
	}
	return &timeline{f: f, w: bufio.NewWriter(f), red: red}, nil
}

// write appends one event; the first error is kept for Close.
func (t *timeline) write(ev benchEvent) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	t.writeAny(ev)
}

func (t *timeline) writeAny(v any) {
	if t.err != nil || t.f == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.err = err
		return
	}
	_, t.err = t.w.Write(append(t.red.Bytes(b), '\n'))
}

// Close flushes the file; it is safe to call twice.
func (t *timeline) Close() error {
	if t.f == nil {
		return t.err
	}
	if err := t.w.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	if err := t.f.Close(); err != nil && t.err == nil {
		t.err = err
	}
	t.f = nil
	return t.err
}
