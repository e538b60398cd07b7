package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// badServerEnv switches the test binary into a scripted language server
// that answers initialize and then breaks the protocol in one of the ways
// listed in badFrames, in answer to the request "bad".
const badServerEnv = "LANGHOST_LSP_BADSERVER"

// badFrames are the raw bytes a misbehaving server sends instead of an answer.
var badFrames = map[string]string{
	"length-nonnumeric": "Content-Length: twelve\r\n\r\n{}",
	"length-negative":   "Content-Length: -12\r\n\r\n{}",
	"length-10GB":       "Content-Length: 10737418240\r\n\r\n{",
	"header-endless":    "Content-Length: 2\r\nX-Pad: " + strings.Repeat("y", 3<<20),
	"body-not-json":     "Content-Length: 11\r\n\r\nhello world",
	"body-array":        "Content-Length: 2\r\n\r\n[]",
	"error-not-object":  "Content-Length: 34\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":7}",
}

// TestBadServerProcess is not a test: it is the body of the scripted server
// when the test binary runs with badServerEnv set.
func TestBadServerProcess(t *testing.T) {
	mode := os.Getenv(badServerEnv)
	if mode == "" {
		return
	}
	r := bufio.NewReader(os.Stdin)
	for {
		body, err := ReadMessage(r)
		if err != nil {
			os.Exit(0)
		}
		var m message
		json.Unmarshal(body, &m)
		switch m.Method {
		case "initialize", "good", "shutdown":
			reply, _ := json.Marshal(message{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage(`{"capabilities":{}}`)})
			WriteMessage(os.Stdout, reply)
		case "bad":
			os.Stdout.WriteString(badFrames[mode])
		case "exit":
			os.Exit(0)
		}
	}
}

// TestMalformedServerOutput runs a real server process that breaks the
// framing or sends a body that is not JSON-RPC while a call is pending: the
// call fails at once with an internal error saying so, the connection ends
// (later calls fail the same way instead of hanging) and the server can
// still be stopped.
func TestMalformedServerOutput(t *testing.T) {
	want := map[string]string{
		"length-nonnumeric": `Content-Length "twelve" is not a byte count`,
		"length-negative":   `Content-Length "-12" is not a byte count`,
		"length-10GB":       "Content-Length 10737418240 exceeds the limit of 268435456 bytes",
		"header-endless":    "header longer than 65536 bytes",
		"body-not-json":     `body "hello world" is not a JSON object`,
		"body-array":        `body "[]" is not a JSON object`,
		"error-not-object":  "is not a JSON-RPC message",
	}
	for mode := range badFrames {
		t.Run(mode, func(t *testing.T) {
			s, err := Start([]string{os.Args[0], "-test.run=^TestBadServerProcess$"}, t.TempDir(),
				append(os.Environ(), badServerEnv+"="+mode), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.Call(ctx, "initialize", nil, nil); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			err = s.Call(ctx, "bad", nil, nil)
			if failure.CodeOf(err) != failure.Internal || !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrClosed) {
				t.Fatalf("err = %v (class %q), want internal wrapping ErrMalformed and ErrClosed", err, failure.CodeOf(err))
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "bad: ") || !strings.Contains(msg, "language server sent malformed output") || !strings.Contains(msg, want[mode]) {
				t.Errorf("message %q lacks %q", msg, want[mode])
			}
			select {
			case <-s.Done():
			default:
				t.Fatal("connection still open after malformed output")
			}
			if err := s.Call(ctx, "good", nil, nil); !errors.Is(err, ErrMalformed) {
				t.Errorf("call after the connection broke: %v", err)
			}
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
			select {
			case <-s.Exited():
			default:
				t.Error("server process still running after Close")
			}
		})
	}
}

// TestOddButWellFormedMessages checks that messages a server may send
// legitimately or by mistake without breaking the stream neither end the
// connection nor disturb the pending call.
func TestOddButWellFormedMessages(t *testing.T) {
	c, p := newPair(t, Options{})
	replies := make(chan message, 8)
	// The peer's last writes may still be in flight when the calls have
	// their answers; the test must not end (closing the pipes) before them.
	done := make(chan struct{})
	t.Cleanup(func() {
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a failed test left it blocked
		}
	})
	go func() {
		defer close(done)
		req := p.read()
		// A late answer to a canceled request and a repeated one.
		p.send(map[string]any{"id": 9999, "result": 1})
		p.send(map[string]any{"id": "nope", "error": map[string]any{"code": 1, "message": "x"}})
		// Notifications with params of the wrong type.
		for _, method := range []string{"textDocument/publishDiagnostics", "$/progress", "window/logMessage", "custom/thing"} {
			p.send(map[string]any{"method": method, "params": "a string"})
		}
		p.send(map[string]any{"method": "$/progress", "params": 42})
		// A request with params of the wrong type gets an error answer.
		p.send(map[string]any{"id": "q1", "method": "workspace/configuration", "params": []int{1}})
		replies <- p.read()
		// An empty object is a notification without a method.
		p.send(map[string]any{})
		p.send(map[string]any{"id": json.RawMessage(req.ID), "result": map[string]int{"n": 3}})
		p.send(map[string]any{"id": json.RawMessage(req.ID), "result": map[string]int{"n": 4}})
	}()
	var res struct{ N int }
	if err := c.Call(context.Background(), "a", nil, &res); err != nil || res.N != 3 {
		t.Fatalf("Call = %v, %+v", err, res)
	}
	if r := <-replies; r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Errorf("reply to bad workspace/configuration = %+v", r)
	}
	if c.Err() != nil {
		t.Fatalf("connection ended: %v", c.Err())
	}
	go func() {
		req := p.read()
		p.send(map[string]any{"id": json.RawMessage(req.ID), "result": map[string]int{"n": 5}})
	}()
	if err := c.Call(context.Background(), "b", nil, &res); err != nil || res.N != 5 {
		t.Fatalf("second Call = %v, %+v", err, res)
	}
}

// TestResultOfWrongType keeps the connection: only the call fails.
func TestResultOfWrongType(t *testing.T) {
	c, p := newPair(t, Options{})
	go func() {
		req := p.read()
		p.send(map[string]any{"id": json.RawMessage(req.ID), "result": "not an object"})
	}()
	var res struct{ N int }
	err := c.Call(context.Background(), "a", nil, &res)
	if err == nil || !strings.Contains(err.Error(), "decoding a result") {
		t.Fatalf("err = %v", err)
	}
	if c.Err() != nil {
		t.Fatalf("connection ended: %v", c.Err())
	}
}

// TestServerRequestFloodIsBounded: a server sending requests faster than
// they are answered gets busy errors beyond maxAnswering, instead of
// making the client start a goroutine per request.
func TestServerRequestFloodIsBounded(t *testing.T) {
	release := make(chan struct{})
	var handled atomic.Int32
	c, p := newPair(t, Options{ApplyEdit: func(context.Context, WorkspaceEdit) (bool, string) {
		handled.Add(1)
		<-release // hold the slot until every other request was answered
		return true, ""
	}})
	const flood = 100
	replies := make(chan message, flood)
	go func() {
		for range flood {
			replies <- p.read()
		}
	}()
	for i := range flood {
		p.send(map[string]any{"id": i, "method": "workspace/applyEdit", "params": map[string]any{"edit": map[string]any{}}})
	}
	busy := 0
	for range flood - maxAnswering {
		m := <-replies
		if m.Error == nil || m.Error.Code != CodeRequestFailed || !strings.Contains(m.Error.Message, "busy") {
			t.Fatalf("reply while flooded = %+v", m)
		}
		busy++
	}
	close(release)
	for range maxAnswering {
		if m := <-replies; m.Error != nil || string(m.Result) != `{"applied":true}` {
			t.Errorf("answer = %+v", m)
		}
	}
	if handled.Load() != maxAnswering || busy != flood-maxAnswering {
		t.Errorf("%d requests handled, %d busy replies; want %d and %d", handled.Load(), busy, maxAnswering, flood-maxAnswering)
	}
	if c.Err() != nil {
		t.Errorf("connection ended: %v", c.Err())
	}
}
