package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Limits of the text summary in a result's content; structuredContent
// always has everything.
const (
	maxSummaryDiagnostics = 20
	maxSummaryTail        = 4 << 10
)

// handler runs t for MCP. Whatever happens, the client gets a tool result:
// failures are isError results, and a panic is logged and turned into an
// internal failure so the server keeps serving.
func (s *server) handler(t *registry.Tool, confirmed bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (result *mcp.CallToolResult, _ error) {
		start := time.Now()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("tool call panicked", "tool", t.ID, "panic", v, "stack", string(debug.Stack()))
				result = toolResult(t.ID, nil, failure.New(failure.Internal, "%s: internal error: %v", t.ID, v))
			}
		}()
		input, err := decodeArguments(req.Params.Arguments)
		if err != nil {
			return toolResult(t.ID, nil, err), nil
		}
		if compactByDefault(t) {
			if _, ok := input["detail"]; !ok {
				input["detail"] = mcpDetail
			}
		}
		// A tool that runs the workspace's code says so in its description
		// and is not annotated read-only in an untrusted workspace
		// (lean.go): the client's approval of the call is the consent.
		call := registry.Call{Input: input, Confirmed: confirmed, WorkspaceCode: true}
		var p *progress
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			p = &progress{session: req.Session, token: token, ctx: ctx}
			p.report(t.ID+" started", -1)
			call.Progress = p.report
			stop := p.heartbeat(s.interval, start)
			defer stop()
		}
		res, err := s.h.Registry.Call(ctx, t.ID, call)
		if res == nil && err == nil {
			err = failure.New(failure.Internal, "%s returned no result", t.ID)
		}
		if p != nil {
			p.stopHeartbeat()
			p.finish(fmt.Sprintf("%s finished in %s", t.ID, time.Since(start).Round(time.Millisecond)))
		}
		s.log.Debug("tool call", "tool", t.ID, "duration", time.Since(start), "code", codeOf(res, err))
		out := toolResult(t.ID, res, err)
		if st, ok := out.StructuredContent.(structured); ok && t.Kind == registry.KindSemantic {
			st.answerOnly = true
			out.StructuredContent = st
		}
		return out, nil
	}
}

// mcpDetail is the detail of semantic results over MCP when the client
// does not ask for one. An agent pays for every token of a result and
// mostly needs locations; snippets and containing members (standard) or
// end positions (full) are one argument away. The CLI keeps the tools'
// own default, standard.
const mcpDetail = "compact"

// compactByDefault reports whether t is a semantic tool whose input has a
// detail key that takes mcpDetail.
func compactByDefault(t *registry.Tool) bool {
	if t.Kind != registry.KindSemantic || t.InputSchema == nil {
		return false
	}
	p, ok := t.InputSchema.Properties["detail"]
	if !ok || p == nil {
		return false
	}
	return len(p.Enum) == 0 || slices.Contains(p.Enum, any(mcpDetail))
}

// withMCPDefaults returns the input schema served over MCP for t: a copy
// of in whose detail key says that it defaults to compact here.
func withMCPDefaults(t *registry.Tool, in *jsonschema.Schema) *jsonschema.Schema {
	if !compactByDefault(t) {
		return in
	}
	c := *in
	c.Properties = maps.Clone(in.Properties)
	d := *c.Properties["detail"]
	d.Default = json.RawMessage(`"` + mcpDetail + `"`)
	d.Description = "output detail: compact (the default over MCP), standard (adds snippets, containing members, hover text) or full (adds end positions)"
	c.Properties["detail"] = &d
	return &c
}

// decodeArguments reads the call's arguments object; absent means {}.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	input := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return input, nil
	}
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "arguments",
			Message: "tool arguments must be a JSON object", Err: err}
	}
	return input, nil
}

// errorInfo is the error object of structuredContent.
type errorInfo struct {
	Code    failure.Code   `json:"code"`
	Message string         `json:"message"`
	Field   string         `json:"field,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// structured is a result's structuredContent: the registry result, whose
// ok is overridden by the outcome of the whole call, and the error.
type structured struct {
	*registry.Result
	OK    bool       `json:"ok"`
	Error *errorInfo `json:"error,omitempty"`
	// answerOnly marks a semantic operation's result: its exit code is
	// always 0, and its duration and empty diagnostics say nothing the
	// answer does not, so only the answer, ok and any diagnostics are
	// sent (each fact once).
	answerOnly bool
}

// MarshalJSON writes the result's object with ok and error set; without
// it the embedded Result's own MarshalJSON would drop them. A successful
// result is written as it is, with ok: decoding a large result into a map
// to add keys costs more than the rest of the call.
func (s structured) MarshalJSON() ([]byte, error) {
	fields := map[string]json.RawMessage{}
	if s.answerOnly && s.Result != nil && bytes.HasPrefix(bytes.TrimSpace(s.Result.Data), []byte("{")) {
		if err := json.Unmarshal(s.Result.Data, &fields); err != nil {
			return nil, err
		}
		if len(s.Result.Diagnostics) > 0 {
			fields["diagnostics"], _ = json.Marshal(s.Result.Diagnostics)
			fields["counts"], _ = json.Marshal(s.Result.Counts)
		}
	} else if s.Result != nil {
		r := *s.Result
		r.OK = s.OK
		b, err := json.Marshal(r)
		if err != nil || s.Error == nil {
			return b, err
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return nil, err
		}
	}
	fields["ok"], _ = json.Marshal(s.OK)
	if s.Error != nil {
		b, err := json.Marshal(s.Error)
		if err != nil {
			return nil, err
		}
		fields["error"] = b
	}
	return json.Marshal(fields)
}

func codeOf(res *registry.Result, err error) failure.Code {
	if err == nil && res != nil && !res.OK {
		return failure.ToolFailed
	}
	return failure.CodeOf(err)
}

// toolResult turns the outcome of a registry call into an MCP result.
func toolResult(id string, res *registry.Result, err error) *mcp.CallToolResult {
	code := codeOf(res, err)
	st := structured{Result: res, OK: code == ""}
	if code != "" {
		st.Error = &errorInfo{Code: code}
		if err != nil {
			st.Error.Message = err.Error()
			var fe *failure.Error
			if errors.As(err, &fe) {
				st.Error.Field, st.Error.Details = fe.Field, fe.Details
			}
		} else {
			// Why it failed, by the rule the CLI uses: the exit code
			// alone does not say that a coverage threshold failed.
			st.Error.Message = res.Failure(id, false)
		}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: summary(id, res, st.Error)}},
		StructuredContent: st,
		IsError:           code != "",
	}
}

// summary is the short text of a result, e.g.
//
//	go.build failed (exit 1): 2 errors
//	main.go:5:2: error: undefined: x
func summary(id string, res *registry.Result, e *errorInfo) string {
	var b strings.Builder
	switch {
	case res == nil:
		fmt.Fprintf(&b, "%s: %s: %s\n", id, e.Code, e.Message)
		return strings.TrimRight(b.String(), "\n")
	case e == nil:
		fmt.Fprintf(&b, "%s ok (exit %d, %.0f ms)", id, res.ExitCode, res.DurationMS)
	case e.Code == failure.ToolFailed:
		fmt.Fprintf(&b, "%s failed (exit %d)", id, res.ExitCode)
	default:
		fmt.Fprintf(&b, "%s: %s: %s", id, e.Code, e.Message)
	}
	if counts := severityCounts(res); counts != "" {
		b.WriteString(": " + counts)
	}
	b.WriteString("\n")
	if e != nil && e.Code == failure.ToolFailed && len(res.Diagnostics) == 0 {
		// No diagnostic below says why it failed; the reason does (files
		// a check would change, a crash, a coverage threshold).
		b.WriteString(e.Message + "\n")
	}
	for i, d := range res.Diagnostics {
		if i == maxSummaryDiagnostics {
			fmt.Fprintf(&b, "... and %d more (see structuredContent.diagnostics)\n", len(res.Diagnostics)-i)
			break
		}
		loc := d.Path
		if d.Line > 0 {
			loc += fmt.Sprintf(":%d", d.Line)
			if d.Column > 0 {
				loc += fmt.Sprintf(":%d", d.Column)
			}
		}
		code := ""
		if d.Code != "" {
			code = " " + d.Code
		}
		fmt.Fprintf(&b, "%s: %s%s: %s\n", loc, d.Severity, code, d.Message)
	}
	for _, name := range sortedKeys(res.Outputs) {
		if _, isDiags := res.Outputs[name].([]diagnostic.Diagnostic); isDiags {
			continue // already listed above
		}
		v, _ := json.Marshal(res.Outputs[name])
		fmt.Fprintf(&b, "%s: %s\n", name, clipSummary(string(v)))
	}
	if len(res.Data) > 0 {
		b.WriteString(clipSummary(string(res.Data)) + "\n")
	}
	if len(res.Diagnostics) == 0 && (e != nil || (len(res.Outputs) == 0 && len(res.Data) == 0)) {
		out := res.Stdout
		if e != nil && strings.TrimSpace(res.Stderr) != "" {
			out = res.Stderr
		}
		b.WriteString(tail(out))
	}
	return strings.TrimRight(b.String(), "\n")
}

// severityCounts says "2 errors, 1 warning".
func severityCounts(res *registry.Result) string {
	n := map[string]int{}
	var order []string
	for _, d := range res.Diagnostics {
		if n[d.Severity] == 0 {
			order = append(order, d.Severity)
		}
		n[d.Severity]++
	}
	parts := make([]string, len(order))
	for i, sev := range order {
		word := sev
		if n[sev] != 1 {
			word += "s"
		}
		parts[i] = fmt.Sprintf("%d %s", n[sev], word)
	}
	return strings.Join(parts, ", ")
}

func clipSummary(s string) string {
	if len(s) <= maxSummaryTail {
		return s
	}
	return clip.Head(s, maxSummaryTail) + "... (truncated; see structuredContent)"
}

// tail keeps the end of s, where tools print their conclusion.
func tail(s string) string {
	if len(s) > maxSummaryTail {
		s = "...\n" + clip.Tail(s, maxSummaryTail)
	}
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// progress sends notifications/progress for one call. Progress values
// strictly increase as the protocol requires: percentages a tool reports
// are used as they are (total 100) when they move forward, other reports
// nudge the value up.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	mu    sync.Mutex
	last  float64
	total float64

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// maxRunning is the most a running call reports of total 100: a tool
// that says 100% has work left (the result to shape and send), and a
// client shown 100/100 followed by silence takes the call for hung; 100
// comes with the end (finish).
const maxRunning = 99

// report sends message; percent < 0 means unknown.
func (p *progress) report(message string, percent float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	value := p.last + 1
	if percent >= 0 && percent <= 100 {
		p.total = 100
		value = min(percent, maxRunning)
	}
	if p.total > 0 && value > maxRunning {
		// Heartbeats past the tool's last percentage: creep toward
		// 100 without reaching it.
		value = p.last + (p.total-p.last)/10
	}
	if value <= p.last {
		value = p.last + (p.total-p.last)/10
		if p.total == 0 {
			value = p.last + 0.001
		}
	}
	p.send(message, value)
}

// finish sends the last notification, before the result: 100 of 100 when
// the tool reported percentages.
func (p *progress) finish(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	value := p.last + 1
	if p.total > 0 {
		value = p.total
	}
	p.send(message, value)
}

// send notifies value, which must exceed the last; the caller holds mu.
func (p *progress) send(message string, value float64) {
	if value <= p.last {
		return
	}
	p.last = value
	// Best effort: a client that went away must not fail the call.
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token, Message: message, Progress: value, Total: p.total,
	})
}

// heartbeat reports "running for Ns" every interval until stopped.
func (p *progress) heartbeat(interval time.Duration, start time.Time) (stop func()) {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-p.ctx.Done():
				return
			case <-tick.C:
				p.report(fmt.Sprintf("running for %ds", int(time.Since(start).Seconds())), -1)
			}
		}
	}()
	return p.stopHeartbeat
}

// stopHeartbeat stops the heartbeat and waits for it, so that no
// notification follows the final one.
func (p *progress) stopHeartbeat() {
	p.stopOnce.Do(func() { close(p.stop) })
	<-p.done
}
