package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpServer serves the demo host over HTTP in the test process and
// returns the endpoint URL and the token file (when one is generated).
type httpServer struct {
	url, tokenFile string
	stop           func()
}

func serveHTTP(t *testing.T, opts mcpserver.HTTPOptions) *httpServer {
	t.Helper()
	srv, err := mcpserver.New(newHost(t), mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := &httpServer{}
	urls, files := make(chan string, 1), make(chan string, 1)
	opts.Addr = "127.0.0.1:0"
	opts.Ready = func(u string) { urls <- u }
	opts.TokenFile = func(f string) { files <- f }
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- mcpserver.ServeHTTP(ctx, srv, opts) }()
	hs.stop = func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			hs.stop()
		}
	})
	if opts.Token == "" && !opts.NoAuth {
		select {
		case hs.tokenFile = <-files:
		case err := <-errc:
			t.Fatalf("ServeHTTP: %v", err)
		}
	}
	select {
	case hs.url = <-urls:
	case err := <-errc:
		t.Fatalf("ServeHTTP: %v", err)
	}
	return hs
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearerTransport{token}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func post(t *testing.T, endpoint, authorization, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestHTTPGeneratesToken: without a configured token, loopback is served
// behind a generated one, written owner-only to the runtime directory and
// removed at the end; requests without it or with another get 401.
func TestHTTPGeneratesToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runtime")
	hs := serveHTTP(t, mcpserver.HTTPOptions{TokenDir: dir})
	if filepath.Dir(hs.tokenFile) != dir {
		t.Fatalf("token file %s, want one in %s", hs.tokenFile, dir)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, hs.tokenFile: 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, mode %v; want %v", path, err, fi.Mode().Perm(), want)
		}
	}
	raw, err := os.ReadFile(hs.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(raw))
	if len(token) < 20 {
		t.Fatalf("token %q is too short", token)
	}
	for _, auth := range []string{"", "Bearer ", "Bearer " + token + "x", "Bearer " + token[:len(token)-1], "Basic " + token, token} {
		if resp := post(t, hs.url, auth, initialize); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: status %d, want 401", auth, resp.StatusCode)
		}
	}
	if _, err := httpClient(t, hs.url, ""); err == nil {
		t.Error("an SDK client without the token connected")
	}
	cs, err := httpClient(t, hs.url, token)
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := call(t, cs, "demo_echo", map[string]any{"text": "hi"}); res.IsError {
		t.Errorf("call with the token: %s", text(res))
	}
	cs.Close()
	hs.stop()
	if _, err := os.Stat(hs.tokenFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file left behind: %v", err)
	}
}

// TestHTTPConfiguredToken: a configured token is the one required, and
// no file is written.
func TestHTTPConfiguredToken(t *testing.T) {
	dir := t.TempDir()
	hs := serveHTTP(t, mcpserver.HTTPOptions{Token: "s3cret-token", TokenDir: dir})
	if hs.tokenFile != "" {
		t.Errorf("token file %s written for a configured token", hs.tokenFile)
	}
	if resp := post(t, hs.url, "Bearer wrong", initialize); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: status %d, want 401", resp.StatusCode)
	}
	if _, err := httpClient(t, hs.url, "s3cret-token"); err != nil {
		t.Errorf("client with the token: %v", err)
	}
}

func TestHTTPOptionsCheck(t *testing.T) {
	tests := []struct {
		name string
		opts mcpserver.HTTPOptions
		code failure.Code
	}{
		{"loopback, generated token", mcpserver.HTTPOptions{Addr: "127.0.0.1:0"}, ""},
		{"no auth on loopback", mcpserver.HTTPOptions{Addr: "127.0.0.1:0", NoAuth: true}, ""},
		{"no auth off loopback", mcpserver.HTTPOptions{Addr: "0.0.0.0:0", NoAuth: true, Token: ""}, failure.Precondition},
		{"no auth off loopback with a token", mcpserver.HTTPOptions{Addr: "0.0.0.0:0", NoAuth: true, Token: "t"}, failure.Precondition},
		{"no auth and a token", mcpserver.HTTPOptions{Addr: "127.0.0.1:0", NoAuth: true, Token: "t"}, failure.InvalidInput},
		{"off loopback without a token", mcpserver.HTTPOptions{Addr: "0.0.0.0:0"}, failure.Precondition},
	}
	for _, tt := range tests {
		_, err := tt.opts.Check()
		if got := failure.CodeOf(err); (err == nil) != (tt.code == "") || err != nil && got != tt.code {
			t.Errorf("%s: %v (code %q), want code %q", tt.name, err, got, tt.code)
		}
	}
}

// TestHTTPNoTokenDir: nowhere to write a generated token is a clear
// precondition failure, not a server without authentication.
func TestHTTPNoTokenDir(t *testing.T) {
	srv, err := mcpserver.New(newHost(t), mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	err = mcpserver.ServeHTTP(context.Background(), srv, mcpserver.HTTPOptions{Addr: "127.0.0.1:0"})
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "LANGHOST_MCP_TOKEN") {
		t.Errorf("err = %v, want a precondition failure naming LANGHOST_MCP_TOKEN", err)
	}
}

// TestHTTPSessionCap: the initialize beyond MaxSessions gets 503 with a
// JSON-RPC error; once a session ends, a new one may open.
func TestHTTPSessionCap(t *testing.T) {
	hs := serveHTTP(t, mcpserver.HTTPOptions{Token: "tok", Limits: mcpserver.HTTPLimits{MaxSessions: 2}})
	first, err := httpClient(t, hs.url, "tok")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpClient(t, hs.url, "tok"); err != nil {
		t.Fatal(err)
	}
	resp := post(t, hs.url, "Bearer tok", initialize)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many MCP sessions") ||
		!strings.Contains(string(body), `"id":1`) {
		t.Errorf("third initialize: status %d, body %s", resp.StatusCode, body)
	}
	// The SDK client shows a 503's status, not its body.
	if _, err := httpClient(t, hs.url, "tok"); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("SDK client beyond the cap: %v", err)
	}
	first.Close() // DELETE ends the session
	if _, err := httpClient(t, hs.url, "tok"); err != nil {
		t.Errorf("client after a session ended: %v", err)
	}
}

// TestHTTPBodyTooLarge: a body over MaxBodyBytes gets 413.
func TestHTTPBodyTooLarge(t *testing.T) {
	hs := serveHTTP(t, mcpserver.HTTPOptions{Token: "tok", Limits: mcpserver.HTTPLimits{MaxBodyBytes: 1024}})
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":%q}}`, strings.Repeat("x", 2048))
	if resp := post(t, hs.url, "Bearer tok", big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", resp.StatusCode)
	}
}

// TestHTTPSlowBodyClosed: a client that sends the header and part of the
// body, then nothing, has its connection closed once BodyTimeout passes,
// with or without a valid token, and so does one that never finishes its
// header.
func TestHTTPSlowBodyClosed(t *testing.T) {
	hs := serveHTTP(t, mcpserver.HTTPOptions{Token: "tok",
		Limits: mcpserver.HTTPLimits{BodyTimeout: 200 * time.Millisecond, HeaderTimeout: 200 * time.Millisecond}})
	u, err := url.Parse(hs.url)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, request string }{
		{"partial body", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer tok\r\n" +
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"},
		{"partial body without token", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\n" +
			"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":"},
		{"chunked body that stops", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer tok\r\n" +
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"jso\r\n"},
		{"partial header", "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bea"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", u.Host)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.request); err != nil {
				t.Fatal(err)
			}
			// Generous, so that only a server that never closes fails.
			_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
			got, err := io.ReadAll(bufio.NewReader(conn))
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("connection still open; read %q", got)
			}
			if strings.HasPrefix(tt.name, "partial body") && !strings.HasPrefix(tt.name, "partial body without") &&
				!strings.Contains(string(got), " 408 ") {
				t.Errorf("response %q, want 408", got)
			}
		})
	}
}
