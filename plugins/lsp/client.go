// Package lsp is a small Language Server Protocol client: Content-Length
// framing, one read loop, per-request contexts with $/cancelRequest, and
// answers for the requests a language server sends to its client.
package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// ErrClosed is wrapped by errors of calls on a connection whose peer is gone.
var ErrClosed = errors.New("connection to language server closed")

// Options configure a Client.
type Options struct {
	// Logger receives window/logMessage and protocol diagnostics; nil
	// discards them.
	Logger hclog.Logger
	// Settings answer workspace/configuration, looked up by dotted section
	// path ("gopls", "python.analysis").
	Settings map[string]any
	// WorkspaceFolders answer workspace/workspaceFolders.
	WorkspaceFolders []WorkspaceFolder
	// ApplyEdit handles workspace/applyEdit. When nil the client declines
	// server-initiated edits; the latest are still recorded (see
	// ServerEdits).
	ApplyEdit func(ctx context.Context, edit WorkspaceEdit) (applied bool, reason string)
	// OnProgress is told about every work-done progress event.
	OnProgress func(ProgressEvent)
	// OnLog is told about every window/logMessage and window/showMessage.
	OnLog func(messageType int, message string)
}

// WorkspaceFolder is one root folder.
type WorkspaceFolder struct {
	URI  DocumentURI `json:"uri"`
	Name string      `json:"name"`
}

// ProgressEvent is one $/progress work-done notification.
type ProgressEvent struct {
	Token      string  `json:"token"`
	Kind       string  `json:"kind"` // begin, report or end
	Title      string  `json:"title,omitempty"`
	Message    string  `json:"message,omitempty"`
	Percentage float64 `json:"percentage,omitempty"`
}

// DiagnosticsEntry is the latest publishDiagnostics for one URI; Seq grows
// with every publication the client receives.
type DiagnosticsEntry struct {
	PublishDiagnosticsParams
	Seq uint64
}

// Client is one connection to a language server.
type Client struct {
	opts Options
	log  hclog.Logger
	r    io.Reader
	w    io.WriteCloser
	wmu  sync.Mutex
	id   atomic.Int64

	mu            sync.Mutex
	pending       map[string]chan *message
	handlers      map[string]func(json.RawMessage)
	registrations map[string]Registration
	progress      map[string]ProgressEvent // active work-done progress by token
	diags         map[DocumentURI]DiagnosticsEntry
	diagSeq       uint64
	serverEdits   []WorkspaceEdit
	changed       chan struct{} // closed and replaced on every state change
	lastActivity  time.Time     // when the last message arrived

	answering chan struct{} // one slot per server request being answered

	done    chan struct{}
	doneErr error
}

// maxAnswering bounds the server->client requests answered at once. Each
// answer runs in its own goroutine (a handler such as ApplyEdit may take
// time); without a bound a server sending requests in a loop would make
// the client start goroutines until it runs out of memory.
const maxAnswering = 32

// Bounds of what a server can make the client keep: a server sends what
// it likes for as long as it runs, and nothing else would ever free it.
const (
	// maxServerEdits workspace/applyEdit edits are kept for ServerEdits,
	// the latest; one larger than maxServerEditBytes is not kept.
	maxServerEdits     = 16
	maxServerEditBytes = 1 << 20
	// maxProgress active work-done progress tokens; a begin beyond is
	// passed on but not tracked.
	maxProgress = 1024
	// maxRegistrations capability registrations; more are refused.
	maxRegistrations = 1024
)

// NewClient starts a client reading from r and writing to w.
func NewClient(r io.Reader, w io.WriteCloser, opts Options) *Client {
	log := opts.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	c := &Client{
		opts:          opts,
		log:           log,
		r:             r,
		w:             w,
		pending:       map[string]chan *message{},
		handlers:      map[string]func(json.RawMessage){},
		registrations: map[string]Registration{},
		progress:      map[string]ProgressEvent{},
		diags:         map[DocumentURI]DiagnosticsEntry{},
		changed:       make(chan struct{}),
		answering:     make(chan struct{}, maxAnswering),
		done:          make(chan struct{}),
	}
	go c.readLoop(bufio.NewReader(r))
	return c
}

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended, once Done is closed.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.doneErr
}

// Call sends a request and decodes its result into result (which may be
// nil, or a *json.RawMessage to keep it raw). A null result leaves result
// untouched. When ctx ends first, Call sends $/cancelRequest and returns a
// failure.Timeout or failure.Canceled error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := c.id.Add(1)
	key := strconv.FormatInt(id, 10)
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.doneErr != nil {
		c.mu.Unlock()
		return c.closedError(method)
	}
	c.pending[key] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}()

	if err := c.send(&message{ID: json.RawMessage(key), Method: method}, params); err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return m.Error
		}
		if result == nil || len(m.Result) == 0 || string(m.Result) == "null" {
			return nil
		}
		if raw, ok := result.(*json.RawMessage); ok {
			*raw = append((*raw)[:0], m.Result...)
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("decoding %s result: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		// Best effort: the server may ignore the cancellation.
		_ = c.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id})
		code := failure.Canceled
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			code = failure.Timeout
		}
		return failure.Wrap(code, ctx.Err(), "LSP request %s", method)
	case <-c.done:
		return c.closedError(method)
	}
}

// closedError is the error of a call on a connection that has ended.
func (c *Client) closedError(method string) error {
	err := c.Err()
	if errors.Is(err, ErrMalformed) {
		// Not the server's answer but the client's verdict: classify it so
		// callers pass the message on as it is.
		return failure.Wrap(failure.Internal, err, "%s", method)
	}
	return fmt.Errorf("%s: %w", method, err)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.send(&message{Method: method}, params); err != nil {
		return fmt.Errorf("sending %s: %w", method, err)
	}
	return nil
}

// OnNotification routes a custom server notification to h, which runs on
// the read loop and must not block.
func (c *Client) OnNotification(method string, h func(params json.RawMessage)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// Registered reports whether the server dynamically registered method.
func (c *Client) Registered(method string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.registrations {
		if r.Method == method {
			return true
		}
	}
	return false
}

// Registrations returns the server's current dynamic registrations.
func (c *Client) Registrations() []Registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Collect(maps.Values(c.registrations))
}

// ActiveProgress returns the work-done progress that has begun and not ended.
func (c *Client) ActiveProgress() []ProgressEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Collect(maps.Values(c.progress))
}

// ServerEdits returns the latest workspace edits the server asked the
// client to apply (at most maxServerEdits, none over maxServerEditBytes).
func (c *Client) ServerEdits() []WorkspaceEdit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]WorkspaceEdit(nil), c.serverEdits...)
}

// Diagnostics returns the latest published diagnostics for uri.
func (c *Client) Diagnostics(uri DocumentURI) (DiagnosticsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.diags[uri]
	return e, ok
}

// AllDiagnostics returns the latest published diagnostics of every URI.
func (c *Client) AllDiagnostics() []DiagnosticsEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]DiagnosticsEntry, 0, len(c.diags))
	for _, e := range c.diags {
		out = append(out, e)
	}
	return out
}

// DiagnosticsSeq is the sequence number of the latest publication.
func (c *Client) DiagnosticsSeq() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.diagSeq
}

// WaitDiagnostics waits until the latest publication for uri satisfies ok.
func (c *Client) WaitDiagnostics(ctx context.Context, uri DocumentURI, ok func(DiagnosticsEntry) bool) (DiagnosticsEntry, error) {
	for {
		c.mu.Lock()
		e, found := c.diags[uri]
		changed := c.changed
		c.mu.Unlock()
		if found && ok(e) {
			return e, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return e, ctx.Err()
		case <-c.done:
			return e, c.Err()
		}
	}
}

// WaitIdle waits until no work-done progress is active and the server has
// sent nothing for quiet: servers that report no progress while loading
// still log or ask for configuration, and then fall silent when done.
func (c *Client) WaitIdle(ctx context.Context, quiet time.Duration) error {
	for {
		c.mu.Lock()
		active := len(c.progress)
		changed := c.changed
		wait := quiet - time.Since(c.lastActivity)
		c.mu.Unlock()
		if active == 0 && wait <= 0 {
			return nil
		}
		var timer <-chan time.Time
		if active == 0 {
			timer = time.After(wait)
		}
		select {
		case <-changed:
		case <-timer:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.done:
			return c.Err()
		}
	}
}

// Close closes the write side; the read loop ends when the peer closes.
func (c *Client) Close() error { return c.w.Close() }

func (c *Client) send(m *message, params any) error {
	m.JSONRPC = "2.0"
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("encoding params: %w", err)
		}
		m.Params = raw
	}
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteMessage(c.w, body)
}

func (c *Client) readLoop(r *bufio.Reader) {
	err := c.readMessages(r)
	if errors.Is(err, io.EOF) {
		err = ErrClosed
	} else {
		err = fmt.Errorf("%w: %w", ErrClosed, err)
	}
	if errors.Is(err, ErrMalformed) {
		c.log.Error("closing the connection", "error", err)
	}
	c.mu.Lock()
	c.doneErr = err
	c.mu.Unlock()
	close(c.done)
	// End both directions: a server reading its stdin sees EOF, one still
	// writing gets EPIPE; either way it stops instead of lingering.
	_ = c.w.Close()
	if rc, ok := c.r.(io.Closer); ok {
		_ = rc.Close()
	}
}

// readMessages dispatches messages until the stream ends or breaks.
func (c *Client) readMessages(r *bufio.Reader) error {
	for {
		body, err := ReadMessage(r)
		if err != nil {
			return err
		}
		var m message
		// A body that is not a JSON-RPC object might have been the answer
		// to a pending call, which would then wait forever: end the
		// connection instead, so calls fail now and the server is replaced.
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '{' {
			return fmt.Errorf("%w: body %.80q is not a JSON object", ErrMalformed, body)
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("%w: body %.80q is not a JSON-RPC message: %v", ErrMalformed, body, err)
		}
		c.log.Trace("received", "method", m.Method, "id", string(m.ID))
		c.mu.Lock()
		c.lastActivity = time.Now()
		c.mu.Unlock()
		switch {
		case m.isResponse():
			// Taken out under the lock so that a repeated id is delivered
			// once; the channel's one slot then never blocks the loop.
			key := idKey(m.ID)
			c.mu.Lock()
			ch := c.pending[key]
			delete(c.pending, key)
			c.mu.Unlock()
			if ch == nil {
				// Normal after $/cancelRequest: the server answered anyway.
				c.log.Debug("response to no pending request", "id", string(m.ID))
				continue
			}
			ch <- &m
		case len(m.ID) > 0:
			select {
			case c.answering <- struct{}{}:
				go func() {
					defer func() { <-c.answering }()
					c.answer(&m)
				}()
			default:
				c.reply(&m, nil, &ResponseError{Code: CodeRequestFailed,
					Message: fmt.Sprintf("client is busy answering %d requests", maxAnswering)})
			}
		default:
			c.notification(&m)
		}
	}
}

// idKey normalises a JSON-RPC id (number or string) to a map key.
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(id))
}

func (c *Client) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// answer replies to a server->client request.
func (c *Client) answer(m *message) {
	result, rerr := c.serve(m.Method, m.Params)
	c.reply(m, result, rerr)
}

// reply sends the answer to request m: rerr, or else result.
func (c *Client) reply(m *message, result any, rerr *ResponseError) {
	reply := &message{JSONRPC: "2.0", ID: m.ID, Error: rerr}
	if rerr == nil {
		raw, err := json.Marshal(result)
		if err != nil {
			reply.Error = &ResponseError{Code: CodeInternalError, Message: err.Error()}
		} else {
			reply.Result = raw
		}
	}
	body, err := json.Marshal(reply)
	if err != nil {
		c.log.Error("encoding LSP reply", "method", m.Method, "error", err)
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := WriteMessage(c.w, body); err != nil {
		c.log.Debug("writing LSP reply", "method", m.Method, "error", err)
	}
}

func (c *Client) serve(method string, params json.RawMessage) (any, *ResponseError) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				ScopeURI string `json:"scopeUri"`
				Section  string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = lookupSection(c.opts.Settings, it.Section)
		}
		return out, nil
	case "client/registerCapability":
		var p struct {
			Registrations []Registration `json:"registrations"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
		}
		c.mu.Lock()
		for _, r := range p.Registrations {
			if _, ok := c.registrations[r.ID]; !ok && len(c.registrations) >= maxRegistrations {
				c.changedLocked()
				c.mu.Unlock()
				return nil, &ResponseError{Code: CodeInvalidParams, Message: fmt.Sprintf("more than %d capability registrations", maxRegistrations)}
			}
			c.registrations[r.ID] = r
		}
		c.changedLocked()
		c.mu.Unlock()
		return nil, nil
	case "client/unregisterCapability":
		var p struct {
			Unregisterations []Registration `json:"unregisterations"` // sic, per the LSP spec
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
		}
		c.mu.Lock()
		for _, r := range p.Unregisterations {
			delete(c.registrations, r.ID)
		}
		c.changedLocked()
		c.mu.Unlock()
		return nil, nil
	case "window/workDoneProgress/create":
		return nil, nil
	case "workspace/applyEdit":
		var p struct {
			Label string        `json:"label"`
			Edit  WorkspaceEdit `json:"edit"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &ResponseError{Code: CodeInvalidParams, Message: err.Error()}
		}
		if len(params) <= maxServerEditBytes {
			c.mu.Lock()
			if len(c.serverEdits) == maxServerEdits {
				c.serverEdits = slices.Delete(c.serverEdits, 0, 1)
			}
			c.serverEdits = append(c.serverEdits, p.Edit)
			c.changedLocked()
			c.mu.Unlock()
		} else {
			c.log.Debug("server edit not recorded: too large", "bytes", len(params), "limit", maxServerEditBytes)
		}
		type result struct {
			Applied       bool   `json:"applied"`
			FailureReason string `json:"failureReason,omitempty"`
		}
		if c.opts.ApplyEdit == nil {
			return result{FailureReason: "this client does not apply server-initiated edits"}, nil
		}
		applied, reason := c.opts.ApplyEdit(context.Background(), p.Edit)
		return result{Applied: applied, FailureReason: reason}, nil
	case "window/showMessageRequest":
		return nil, nil
	case "window/showDocument":
		return map[string]bool{"success": false}, nil
	case "workspace/workspaceFolders":
		return c.opts.WorkspaceFolders, nil
	case "workspace/semanticTokens/refresh", "workspace/codeLens/refresh",
		"workspace/inlayHint/refresh", "workspace/inlineValue/refresh",
		"workspace/diagnostic/refresh", "workspace/foldingRange/refresh":
		return nil, nil
	}
	c.log.Debug("unhandled server request", "method", method)
	return nil, &ResponseError{Code: CodeMethodNotFound, Message: "client does not handle " + method}
}

// lookupSection finds a dotted section path in settings; "" is everything.
func lookupSection(settings map[string]any, section string) any {
	if section == "" {
		if settings == nil {
			return nil
		}
		return settings
	}
	if v, ok := settings[section]; ok {
		return v
	}
	var cur any = settings
	for _, part := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

func (c *Client) notification(m *message) {
	switch m.Method {
	case "$/progress":
		var p struct {
			Token json.RawMessage `json:"token"`
			Value struct {
				Kind       string   `json:"kind"`
				Title      string   `json:"title"`
				Message    string   `json:"message"`
				Percentage *float64 `json:"percentage"`
			} `json:"value"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.Value.Kind == "" {
			return // not work-done progress
		}
		ev := ProgressEvent{Token: idKey(p.Token), Kind: p.Value.Kind, Title: p.Value.Title, Message: p.Value.Message}
		if p.Value.Percentage != nil {
			ev.Percentage = *p.Value.Percentage
		}
		c.mu.Lock()
		switch ev.Kind {
		case "begin":
			if _, ok := c.progress[ev.Token]; ok || len(c.progress) < maxProgress {
				c.progress[ev.Token] = ev
			}
		case "report":
			if prev, ok := c.progress[ev.Token]; ok || len(c.progress) < maxProgress {
				ev.Title = prev.Title
				c.progress[ev.Token] = ev
			}
		case "end":
			ev.Title = c.progress[ev.Token].Title
			delete(c.progress, ev.Token)
		}
		c.changedLocked()
		c.mu.Unlock()
		if c.opts.OnProgress != nil {
			c.opts.OnProgress(ev)
		}
	case "textDocument/publishDiagnostics":
		var p PublishDiagnosticsParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			c.log.Warn("malformed publishDiagnostics", "error", err)
			return
		}
		c.mu.Lock()
		c.diagSeq++
		c.diags[p.URI] = DiagnosticsEntry{PublishDiagnosticsParams: p, Seq: c.diagSeq}
		c.changedLocked()
		c.mu.Unlock()
	case "window/logMessage", "window/showMessage":
		var p struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if c.opts.OnLog != nil {
			c.opts.OnLog(p.Type, p.Message)
		}
		// One level down: a server's own log is diagnostics of the server,
		// and servers log errors during routine shutdown.
		switch p.Type {
		case 1:
			c.log.Warn(p.Message)
		case 2:
			c.log.Info(p.Message)
		case 3:
			c.log.Debug(p.Message)
		default:
			c.log.Trace(p.Message)
		}
	default:
		c.mu.Lock()
		h := c.handlers[m.Method]
		c.mu.Unlock()
		if h != nil {
			h(m.Params)
		} else {
			c.log.Trace("unhandled server notification", "method", m.Method)
		}
	}
}
