package roslyntest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/lsp"
)

// peer drives a fakeroslyn process.
type peer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	msgs   chan map[string]any
	nextID int
	// answer decides the reply to a server->client request; nil result
	// and nil error mean "do not answer".
	answer func(method string, params json.RawMessage) (result any, errCode int, reply bool)
	seen   []map[string]any // notifications and server requests, in order
	mu     sync.Mutex
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startPeer(t *testing.T, env []string, args ...string) *peer {
	t.Helper()
	if args == nil {
		args = []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", t.TempDir()}
	}
	return startPeerBin(t, roslyntest.Build(t), env, args...)
}

// startPeerBin starts the fake at bin, whose name says what it behaves
// like.
func startPeerBin(t *testing.T, bin string, env []string, args ...string) *peer {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{t: t, cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, msgs: make(chan map[string]any, 256)}
	p.answer = func(method string, _ json.RawMessage) (any, int, bool) {
		if method == "workspace/configuration" {
			return []any{true, true, "openFiles", "openFiles", false, false, false, true}, 0, true
		}
		return nil, 0, true
	}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			body, err := lsp.ReadMessage(r)
			if err != nil {
				close(p.msgs)
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				p.t.Errorf("server sent invalid JSON %q: %v", body, err)
				continue
			}
			p.msgs <- m
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("fakeroslyn stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func (p *peer) send(v map[string]any) {
	v["jsonrpc"] = "2.0"
	body, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	if err := lsp.WriteMessage(p.stdin, body); err != nil {
		p.t.Fatalf("write to fakeroslyn: %v", err)
	}
}

func (p *peer) notify(method string, params any) {
	p.send(map[string]any{"method": method, "params": params})
}

// handleIncoming records a server message and answers server requests.
func (p *peer) handleIncoming(m map[string]any) {
	p.mu.Lock()
	p.seen = append(p.seen, m)
	p.mu.Unlock()
	method, _ := m["method"].(string)
	id, isReq := m["id"]
	if method == "" || !isReq {
		return
	}
	params, _ := json.Marshal(m["params"])
	result, code, reply := p.answer(method, params)
	switch {
	case !reply:
	case code != 0:
		p.send(map[string]any{"id": id, "error": map[string]any{"code": code, "message": "unsupported"}})
	default:
		p.send(map[string]any{"id": id, "result": result})
	}
}

// call sends a request and waits for its response, answering server
// requests and recording notifications meanwhile.
func (p *peer) call(method string, params any) (json.RawMessage, map[string]any) {
	p.t.Helper()
	p.nextID++
	id := p.nextID
	p.send(map[string]any{"id": id, "method": method, "params": params})
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("%s: server closed the connection\nstderr:\n%s", method, p.stderr.String())
			}
			if _, hasMethod := m["method"]; !hasMethod {
				if rid, _ := m["id"].(float64); int(rid) == id {
					if e, ok := m["error"].(map[string]any); ok {
						return nil, e
					}
					b, _ := json.Marshal(m["result"])
					return b, nil
				}
				continue
			}
			p.handleIncoming(m)
		case <-timeout:
			p.t.Fatalf("%s: no response within 10s", method)
		}
	}
}

// mustCall is call that fails the test on an error response.
func (p *peer) mustCall(method string, params any, result any) {
	p.t.Helper()
	raw, e := p.call(method, params)
	if e != nil {
		p.t.Fatalf("%s: error %v", method, e)
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			p.t.Fatalf("%s: decode %s: %v", method, raw, err)
		}
	}
}

// waitFor reads messages until one with the given method arrives.
func (p *peer) waitFor(method string, d time.Duration) map[string]any {
	p.t.Helper()
	p.mu.Lock()
	for _, m := range p.seen {
		if m["method"] == method {
			p.mu.Unlock()
			return m
		}
	}
	p.mu.Unlock()
	timeout := time.After(d)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("waiting for %s: server closed the connection", method)
			}
			p.handleIncoming(m)
			if m["method"] == method {
				return m
			}
		case <-timeout:
			return nil
		}
	}
}

func (p *peer) seenMethods() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.seen {
		if s, ok := m["method"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

var clientCapabilities = map[string]any{
	"workspace": map[string]any{
		"didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
		"symbol":                map[string]any{"dynamicRegistration": false},
		"configuration":         true,
	},
	"textDocument": map[string]any{
		"implementation": map[string]any{},
		"documentSymbol": map[string]any{"hierarchicalDocumentSymbolSupport": true},
		"codeAction":     map[string]any{"resolveSupport": map[string]any{"properties": []string{"edit"}}},
	},
	"window": map[string]any{"workDoneProgress": true},
}

func fixture(t *testing.T) string {
	abs, err := filepath.Abs("testdata/Shapes")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// handshake runs initialize/initialized and returns the initialize result.
func (p *peer) handshake(root string) map[string]any {
	p.t.Helper()
	var res map[string]any
	p.mustCall("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": fileURI(root), "capabilities": clientCapabilities,
		"workspaceFolders": []any{map[string]any{"uri": fileURI(root), "name": "Shapes"}},
	}, &res)
	p.notify("initialized", map[string]any{})
	return res
}

// openAndWait opens the fixture solution and waits until it is loaded.
func (p *peer) openAndWait(root string) {
	p.t.Helper()
	p.notify("solution/open", map[string]any{"solution": fileURI(filepath.Join(root, "Shapes.sln"))})
	if p.waitFor("workspace/projectInitializationComplete", 10*time.Second) == nil {
		p.t.Fatal("no workspace/projectInitializationComplete within 10s")
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (p *peer) state() map[string]any {
	var st map[string]any
	p.mustCall("fakeroslyn/state", map[string]any{}, &st)
	return st
}
