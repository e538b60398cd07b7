// Package modeltest is a scripted model server for tests and benchmarks.
// It speaks the real wire formats — OpenAI chat completions
// (POST /v1/chat/completions, JSON or SSE) and Anthropic messages
// (POST /v1/messages, JSON or SSE) — and replays a Script: the i-th
// request is answered with the i-th turn. A request that does not meet the
// turn's expectations, is malformed or comes after the script ended gets
// HTTP 400 with a message saying why, so the test fails with a reason.
// Every request is recorded for assertions.
package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langhost/langhost/host/agent/model"
)

// maxRequestBytes bounds a request body.
const maxRequestBytes = 32 << 20

// Request is one request the server received, normalized to the model
// package's shapes whatever the wire format.
type Request struct {
	API       string // "openai" or "anthropic"
	Header    http.Header
	Body      json.RawMessage
	Stream    bool
	Model     string
	System    string
	Messages  []model.Message
	Tools     []string
	MaxTokens int
	Turn      int    // index of the turn that answered; -1 if none did
	Error     string // why the request was refused, if it was
}

// Server is a running scripted model server.
type Server struct {
	url   string
	close func()

	mu       sync.Mutex
	script   *Script
	next     int
	requests []Request
}

// NewServer starts a server on a loopback port. With t non-nil it is
// closed when the test ends.
func NewServer(t testing.TB, script *Script) *Server {
	s := &Server{script: script}
	hs := httptest.NewServer(s.handler())
	s.url, s.close = hs.URL, hs.Close
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// Start serves script on addr (host:port; port 0 picks one) outside tests,
// for `langhost bench` and manual runs.
func Start(addr string, script *Script) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("scripted model server: %w", err)
	}
	s := &Server{script: script, url: "http://" + ln.Addr().String()}
	hs := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	s.close = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
	return s, nil
}

// URL is the server's root, the Anthropic base URL.
func (s *Server) URL() string { return s.url }

// OpenAIURL is the OpenAI base URL (the root plus /v1).
func (s *Server) OpenAIURL() string { return s.url + "/v1" }

// Close stops the server. It is safe to call twice.
func (s *Server) Close() {
	s.mu.Lock()
	c := s.close
	s.close = nil
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining is the number of turns not yet played.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script.Turns) - s.next
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, openAIWire{}) })
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, anthropicWire{}) })
	return mux
}

// wire is one API's request parsing and answer writing.
type wire interface {
	name() string
	parse(body []byte, req *Request) error
	writeError(w http.ResponseWriter, status int, msg string)
	write(w http.ResponseWriter, req *Request, reply *Reply) error
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, api wire) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	rec := Request{API: api.name(), Header: r.Header.Clone(), Body: body, Turn: -1}
	if err == nil {
		err = api.parse(body, &rec)
	}
	if err == nil {
		err = checkToolResults(rec.Messages)
	}
	s.mu.Lock()
	var turn *Turn
	if err == nil {
		if s.next >= len(s.script.Turns) {
			err = fmt.Errorf("scripted model: request %d arrived after the script's %d turns ended", len(s.requests)+1, len(s.script.Turns))
		} else {
			turn = &s.script.Turns[s.next]
			if err = turn.Expect.check(&rec); err != nil {
				err = fmt.Errorf("scripted model: turn %d: %w", s.next, err)
			} else {
				rec.Turn = s.next
				s.next++
			}
		}
	}
	if err != nil {
		rec.Error = err.Error()
	}
	s.requests = append(s.requests, rec)
	s.mu.Unlock()

	if err != nil {
		api.writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if raw := turn.Reply.Raw; raw != nil {
		writeRaw(w, raw)
		return
	}
	// The client is gone when writing fails; there is no one to tell.
	_ = api.write(w, &rec, &turn.Reply)
}

func writeRaw(w http.ResponseWriter, raw *Raw) {
	ct := raw.ContentType
	if ct == "" {
		ct = "application/json"
	}
	status := raw.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, raw.Body)
}

// checkToolResults does what both real APIs do: a tool result must answer
// a call of the assistant message before it.
func checkToolResults(msgs []model.Message) error {
	var calls []model.ToolCall
	for i, m := range msgs {
		switch m.Role {
		case model.Assistant:
			calls = m.ToolCalls
		case model.Tool:
			found := false
			for _, c := range calls {
				found = found || c.ID == m.ToolCallID
			}
			if !found {
				return fmt.Errorf("scripted model: message %d is a tool result for call %q, which the assistant message before it did not make", i, m.ToolCallID)
			}
		default:
			calls = nil
		}
	}
	return nil
}

func (e *Expect) check(r *Request) error {
	if e == nil {
		return nil
	}
	var fails []string
	for _, s := range e.SystemContains {
		if !strings.Contains(r.System, s) {
			fails = append(fails, fmt.Sprintf("system prompt lacks %q", s))
		}
	}
	if e.LastUserContains != "" {
		if m := last(r.Messages, model.User); m == nil || !strings.Contains(m.Content, e.LastUserContains) {
			fails = append(fails, fmt.Sprintf("last user message lacks %q (got %q)", e.LastUserContains, content(m)))
		}
	}
	if e.LastToolResultContains != "" {
		if m := last(r.Messages, model.Tool); m == nil || !strings.Contains(m.Content, e.LastToolResultContains) {
			fails = append(fails, fmt.Sprintf("last tool result lacks %q (got %q)", e.LastToolResultContains, content(m)))
		}
	}
	if e.LastToolResultIsError != nil {
		if m := last(r.Messages, model.Tool); m == nil || m.IsError != *e.LastToolResultIsError {
			fails = append(fails, fmt.Sprintf("last tool result is_error is not %v", *e.LastToolResultIsError))
		}
	}
	for _, name := range e.ToolsInclude {
		if !contains(r.Tools, name) {
			fails = append(fails, fmt.Sprintf("tool list lacks %q (got %s)", name, strings.Join(r.Tools, ", ")))
		}
	}
	for _, name := range e.ToolsExclude {
		if contains(r.Tools, name) {
			fails = append(fails, fmt.Sprintf("tool list has %q, which must not be offered", name))
		}
	}
	if e.Stream != nil && r.Stream != *e.Stream {
		fails = append(fails, fmt.Sprintf("stream is %v, want %v", r.Stream, *e.Stream))
	}
	if len(fails) > 0 {
		return errors.New(strings.Join(fails, "; "))
	}
	return nil
}

func last(msgs []model.Message, role model.Role) *model.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == role {
			return &msgs[i]
		}
	}
	return nil
}

func content(m *model.Message) string {
	if m == nil {
		return "no such message"
	}
	const n = 300
	if len(m.Content) > n {
		return m.Content[:n] + "…"
	}
	return m.Content
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// usage is the reply's usage, or an estimate of four bytes a token.
func usage(req *Request, reply *Reply, args []string) Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	out := len(reply.Text)
	for _, a := range args {
		out += len(a)
	}
	return Usage{InputTokens: len(req.Body)/4 + 1, OutputTokens: out/4 + 1}
}

// chunks splits s into pieces of about n bytes on rune boundaries, so a
// streaming client must reassemble them.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && !utf8Start(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func callID(c Call, turn, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d_%d", turn, i)
}
