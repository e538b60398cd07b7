package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// peer is the server end of an in-memory connection.
type peer struct {
	t *testing.T
	r *bufio.Reader
	w io.WriteCloser
}

func (p *peer) read() message {
	p.t.Helper()
	body, err := ReadMessage(p.r)
	if err != nil {
		p.t.Fatalf("peer read: %v", err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

func (p *peer) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	body, _ := json.Marshal(v)
	if err := WriteMessage(p.w, body); err != nil {
		p.t.Fatal(err)
	}
}

func newPair(t *testing.T, opts Options) (*Client, *peer) {
	cr, pw := io.Pipe()
	pr, cw := io.Pipe()
	c := NewClient(cr, cw, opts)
	p := &peer{t: t, r: bufio.NewReader(pr), w: pw}
	t.Cleanup(func() { pw.Close(); cw.Close() })
	return c, p
}

func TestCallResultAndError(t *testing.T) {
	c, p := newPair(t, Options{})
	go func() {
		m := p.read()
		p.send(map[string]any{"id": json.RawMessage(m.ID), "result": map[string]int{"n": 7}})
		m = p.read()
		p.send(map[string]any{"id": json.RawMessage(m.ID), "error": map[string]any{"code": -30099, "message": "non-fatal", "data": "x"}})
	}()
	var res struct{ N int }
	if err := c.Call(context.Background(), "a", nil, &res); err != nil || res.N != 7 {
		t.Fatalf("Call = %v, %+v", err, res)
	}
	err := c.Call(context.Background(), "b", nil, nil)
	var re *ResponseError
	if !errors.As(err, &re) || re.Code != CodeRoslynNonFatal || re.Message != "non-fatal" || string(re.Data) != `"x"` {
		t.Fatalf("error = %#v", err)
	}
}

func TestCallCancelSendsCancelRequest(t *testing.T) {
	c, p := newPair(t, Options{})
	got := make(chan message, 2)
	go func() {
		got <- p.read() // the request
		got <- p.read() // $/cancelRequest
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := c.Call(ctx, "slow", nil, nil)
	if failure.CodeOf(err) != failure.Timeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	req, cr := <-got, <-got
	var params struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(cr.Params, &params)
	if cr.Method != "$/cancelRequest" || string(params.ID) != string(req.ID) {
		t.Errorf("cancel = %s %s for request %s", cr.Method, cr.Params, req.ID)
	}
}

func TestServerRequestsAnswered(t *testing.T) {
	var mu sync.Mutex
	var applied []WorkspaceEdit
	var events []ProgressEvent
	c, p := newPair(t, Options{
		Settings: map[string]any{"gopls": map[string]any{"staticcheck": true}, "python": map[string]any{"analysis": map[string]any{"mode": "x"}}},
		ApplyEdit: func(_ context.Context, e WorkspaceEdit) (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			applied = append(applied, e)
			return true, ""
		},
		OnProgress: func(e ProgressEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		},
	})
	ask := func(id int, method string, params any) message {
		p.send(map[string]any{"id": id, "method": method, "params": params})
		return p.read()
	}
	m := ask(1, "workspace/configuration", map[string]any{"items": []any{
		map[string]string{"section": "gopls"}, map[string]string{"section": "python.analysis"}, map[string]string{"section": "nope"}}})
	if string(m.Result) != `[{"staticcheck":true},{"mode":"x"},null]` {
		t.Errorf("configuration = %s", m.Result)
	}
	m = ask(2, "client/registerCapability", map[string]any{"registrations": []any{map[string]string{"id": "w", "method": "workspace/didChangeWatchedFiles"}}})
	if m.Error != nil || !c.Registered("workspace/didChangeWatchedFiles") {
		t.Errorf("register: %+v", m)
	}
	ask(3, "client/unregisterCapability", map[string]any{"unregisterations": []any{map[string]string{"id": "w", "method": "workspace/didChangeWatchedFiles"}}})
	if c.Registered("workspace/didChangeWatchedFiles") {
		t.Error("unregister ignored")
	}
	if m = ask(4, "window/workDoneProgress/create", map[string]string{"token": "t"}); m.Error != nil {
		t.Errorf("progress create: %+v", m.Error)
	}
	m = ask(5, "workspace/applyEdit", map[string]any{"edit": map[string]any{"changes": map[string]any{"file:///a": []any{}}}})
	mu.Lock()
	nApplied := len(applied)
	mu.Unlock()
	if string(m.Result) != `{"applied":true}` || nApplied != 1 || len(c.ServerEdits()) != 1 {
		t.Errorf("applyEdit = %s", m.Result)
	}
	if m = ask(6, "window/showMessageRequest", map[string]any{"type": 1, "message": "?"}); string(m.Result) != "null" || m.Error != nil {
		t.Errorf("showMessageRequest = %+v", m)
	}
	if m = ask(7, "unknown/thing", nil); m.Error == nil || m.Error.Code != CodeMethodNotFound {
		t.Errorf("unknown request = %+v", m)
	}

	custom := make(chan json.RawMessage, 1)
	c.OnNotification("workspace/projectInitializationComplete", func(p json.RawMessage) { custom <- p })
	p.send(map[string]any{"method": "$/progress", "params": map[string]any{"token": 9, "value": map[string]any{"kind": "begin", "title": "Loading"}}})
	p.send(map[string]any{"method": "textDocument/publishDiagnostics", "params": map[string]any{"uri": "file:///a.go", "version": 2, "diagnostics": []any{map[string]any{"range": map[string]any{}, "message": "bad"}}}})
	p.send(map[string]any{"method": "workspace/projectInitializationComplete"})
	<-custom
	if a := c.ActiveProgress(); len(a) != 1 || a[0].Title != "Loading" || a[0].Token != "9" {
		t.Errorf("active progress = %+v", a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	e, err := c.WaitDiagnostics(ctx, "file:///a.go", func(e DiagnosticsEntry) bool { return e.Version != nil && *e.Version == 2 })
	if err != nil || e.Diagnostics[0].Message != "bad" {
		t.Errorf("diagnostics = %+v, %v", e, err)
	}
	idle := make(chan error, 1)
	go func() { idle <- c.WaitIdle(ctx, 10*time.Millisecond) }()
	p.send(map[string]any{"method": "$/progress", "params": map[string]any{"token": 9, "value": map[string]any{"kind": "end"}}})
	err = <-idle
	mu.Lock()
	defer mu.Unlock()
	if err != nil || len(c.ActiveProgress()) != 0 || len(events) != 2 || events[1].Title != "Loading" {
		t.Errorf("after end: %v, %+v", err, events)
	}
}

func TestCallAfterPeerCloses(t *testing.T) {
	c, p := newPair(t, Options{})
	go func() {
		p.read()
		p.w.Close()
	}()
	err := c.Call(context.Background(), "x", nil, nil)
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v", err)
	}
	<-c.Done()
	if err := c.Call(context.Background(), "y", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("second call err = %v", err)
	}
}
