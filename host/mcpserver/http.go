package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/privfile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EndpointPath is where the streamable HTTP endpoint is mounted.
const EndpointPath = "/mcp"

// Defaults of HTTPLimits. A session holds little, but 18k of them held
// 300 MB; a body of 4 MiB fits any tool input an agent sends.
const (
	DefaultMaxSessions    = 64
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxBodyBytes   = 4 << 20
	DefaultBodyTimeout    = 30 * time.Second
	DefaultHeaderTimeout  = 10 * time.Second
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxHeaderBytes = 64 << 10
)

// HTTPLimits bound what clients of the HTTP transport can make the server
// hold. Zero fields take the defaults above.
type HTTPLimits struct {
	// MaxSessions caps the open MCP sessions; one more initialize gets
	// HTTP 503 with a JSON-RPC error until a session ends.
	MaxSessions int
	// SessionTimeout closes a session after this long without a request.
	SessionTimeout time.Duration
	// MaxBodyBytes caps a request body (HTTP 413 beyond it).
	MaxBodyBytes int64
	// BodyTimeout bounds reading a request's body; a client that sends
	// it slower is answered 408 and its connection closed. It does not
	// bound the call the request makes.
	BodyTimeout time.Duration
	// HeaderTimeout bounds reading a request's header, IdleTimeout a
	// kept-alive connection without requests.
	HeaderTimeout  time.Duration
	IdleTimeout    time.Duration
	MaxHeaderBytes int
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.MaxSessions <= 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	if l.SessionTimeout <= 0 {
		l.SessionTimeout = DefaultSessionTimeout
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return l
}

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port to listen on. A missing host (":8080" or "8080")
	// means 127.0.0.1; port 0 picks a free port.
	Addr string
	// Token must be sent as "Authorization: Bearer <token>" on every
	// request. If it is empty, a random token is generated and written to
	// a file in TokenDir (see TokenFile): loopback is no boundary between
	// the users of one machine.
	Token string
	// TokenDir is the user's private runtime directory; ServeHTTP makes it
	// private (0700) if it is not, and writes mcp-<port>.token there.
	TokenDir string
	// NoAuth serves without any token, on loopback only: every local
	// user can call the tools. For tests and single-user machines.
	NoAuth bool
	Limits HTTPLimits
	Logger hclog.Logger
	// Ready, if set, is called with the endpoint URL once listening.
	Ready func(url string)
	// TokenFile, if set, is called with the path of a generated token's
	// file once it is written. The file is removed when serving stops.
	TokenFile func(path string)
}

// ListenAddr normalises addr as ServeHTTP does and reports whether it is a
// loopback address. Only literal loopback IPs and "localhost" count.
func ListenAddr(addr string) (string, bool, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr // a bare port
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, &failure.Error{Code: failure.InvalidInput, Field: "http", Message: fmt.Sprintf("bad address %q (want host:port)", addr), Err: err}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	return net.JoinHostPort(host, port), loopback, nil
}

// CheckHTTP normalises addr (see ListenAddr) and refuses, with
// failure.Precondition, a non-loopback address without a token the
// owner configured: a generated one would have to be copied to another
// machine first.
func CheckHTTP(addr, token string) (string, error) {
	addr, loopback, err := ListenAddr(addr)
	if err != nil {
		return "", err
	}
	if !loopback && token == "" {
		return "", &failure.Error{Code: failure.Precondition, Field: "http",
			Message: fmt.Sprintf("refusing to serve MCP on non-loopback address %s without a bearer token: set mcp.token in the config or LANGHOST_MCP_TOKEN", addr)}
	}
	return addr, nil
}

// Check normalises opts.Addr as ServeHTTP does and checks it against the
// authentication opts ask for: CheckHTTP, and NoAuth only on loopback
// and without a token.
func (opts HTTPOptions) Check() (string, error) {
	if !opts.NoAuth {
		return CheckHTTP(opts.Addr, opts.Token)
	}
	addr, loopback, err := ListenAddr(opts.Addr)
	switch {
	case err != nil:
		return "", err
	case !loopback:
		return "", &failure.Error{Code: failure.Precondition, Field: "http-insecure-no-auth",
			Message: fmt.Sprintf("refusing to serve MCP without authentication on non-loopback address %s", addr)}
	case opts.Token != "":
		return "", &failure.Error{Code: failure.InvalidInput, Field: "http-insecure-no-auth",
			Message: "a bearer token is configured (mcp.token or LANGHOST_MCP_TOKEN) and authentication is turned off: choose one"}
	}
	return addr, nil
}

// shutdownGrace bounds each step of stopping the HTTP server: waiting for
// the canceled tool calls to return, then for their responses to go out.
// Together they stay within the 5 seconds a supervisor typically waits.
const shutdownGrace = 2 * time.Second

// ServeHTTP serves srv over streamable HTTP until ctx is done. Every
// request needs the bearer token (opts.Token, or one generated for this
// run) unless opts.NoAuth. It refuses (failure.Precondition) to listen on
// a non-loopback address without a configured token. When ctx ends, tool
// calls in flight are canceled (their process groups killed) and their
// results sent before the server stops.
func ServeHTTP(ctx context.Context, srv *mcp.Server, opts HTTPOptions) error {
	addr, err := opts.Check()
	if err != nil {
		return err
	}
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
		opts.Logger = logger
	}
	lim := opts.Limits.withDefaults()
	opts.Limits = lim
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "listen on %s", addr)
	}
	if opts.NoAuth {
		logger.Warn("serving MCP over HTTP WITHOUT AUTHENTICATION: every local user can call the tools", "addr", ln.Addr().String())
	} else if opts.Token == "" {
		file, token, err := writeToken(opts.TokenDir, ln.Addr())
		if err != nil {
			ln.Close()
			return err
		}
		defer os.Remove(file)
		opts.Token = token
		if opts.TokenFile != nil {
			opts.TokenFile(file)
		}
	}
	requests := bindRequests(ctx, srv)
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, Handler(srv, opts))
	hs := &http.Server{Handler: mux,
		ReadHeaderTimeout: lim.HeaderTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
		ErrorLog:          logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
	if opts.Ready != nil {
		opts.Ready("http://" + ln.Addr().String() + EndpointPath)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return failure.Wrap(failure.Internal, err, "serve HTTP on %s", addr)
	case <-ctx.Done():
	}
	if requests.wait(shutdownGrace) {
		// Ends the sessions' open event streams, which never finish on
		// their own; closing waits for requests, so only once none runs.
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	} else {
		logger.Warn("MCP requests still running after cancellation; stopping anyway")
	}
	// Let the last responses go out, then cut.
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return failure.Wrap(failure.Internal, err, "serve HTTP on %s", addr)
	}
	return nil
}

// writeToken generates a token and writes it, owner-only, to
// mcp-<port>.token in dir, which it makes private to the user.
func writeToken(dir string, addr net.Addr) (file, token string, err error) {
	if dir == "" {
		return "", "", &failure.Error{Code: failure.Precondition, Field: "http",
			Message: "no bearer token is configured and there is no runtime directory to write one to: set mcp.token in the user config or LANGHOST_MCP_TOKEN"}
	}
	if err := privfile.Dir(dir); err != nil {
		return "", "", failure.Wrap(failure.Precondition, err, "token directory")
	}
	port := "0"
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = strconv.Itoa(ta.Port)
	}
	token = rand.Text()
	file = filepath.Join(dir, "mcp-"+port+".token")
	if err := atomicfile.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		return "", "", failure.Wrap(failure.Precondition, err, "write the bearer token to %s", file)
	}
	return file, token, nil
}

// Handler is the streamable HTTP handler of srv: behind a bearer token
// check when opts.Token is set, then opts.Limits (sessions, body size and
// read time). A tool call ends when the client that posted it
// disconnects: with no event store to resume from, nobody would ever read
// its result.
func Handler(srv *mcp.Server, opts HTTPOptions) http.Handler {
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	lim := opts.Limits.withDefaults()
	posts := newPostContexts()
	srv.AddReceivingMiddleware(posts.middleware)
	h := posts.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Logger: slogLogger(logger), SessionTimeout: lim.SessionTimeout,
			MaxRequestBodyBytes: lim.MaxBodyBytes}))
	gate := &sessionGate{srv: srv, max: lim.MaxSessions, log: logger}
	h = readBody(gate.wrap(h), lim, logger)
	if opts.Token != "" {
		h = bearer(h, opts.Token, logger)
	}
	return deadline(h, lim.BodyTimeout)
}

// deadline bounds reading each request's body from its start. readBody
// lifts the bound once the body is in; a request turned away before
// keeps it, so that draining its body cannot take longer either.
func deadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		h.ServeHTTP(w, r)
	})
}

// bearer lets through only requests with "Authorization: Bearer token",
// compared in constant time.
func bearer(h http.Handler, token string, logger hclog.Logger) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			logger.Warn("rejected MCP request without a valid bearer token", "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="langhost"`)
			w.Header().Set("Connection", "close")
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// readBody reads a request's body whole, within the size and the time
// lim allows, before the SDK sees the request; then the connection has no
// read deadline left, so that a long tool call's request stays open.
func readBody(h http.Handler, lim HTTPLimits, logger hclog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, lim.MaxBodyBytes))
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				w.Header().Set("Connection", "close")
				writeRPCError(w, http.StatusRequestEntityTooLarge, nil,
					fmt.Sprintf("request body larger than %d bytes", lim.MaxBodyBytes))
				return
			case err != nil:
				logger.Warn("MCP request body not read in time; closing the connection", "remote", r.RemoteAddr, "limit", lim.BodyTimeout, "error", err)
				w.Header().Set("Connection", "close")
				writeRPCError(w, http.StatusRequestTimeout, nil,
					fmt.Sprintf("request body not received within %s", lim.BodyTimeout))
				return
			}
			r.Body = wholeBody{bytes.NewReader(body), body}
		}
		_ = rc.SetReadDeadline(time.Time{})
		h.ServeHTTP(w, r)
	})
}

// sessionGate caps the sessions of srv. A POST without a session id may
// open one; such POSTs run one at a time, so that the count of open
// sessions each sees is exact. They are quick: the body is already read,
// and an initialize runs no tool.
type sessionGate struct {
	srv *mcp.Server
	max int
	log hclog.Logger
	mu  sync.Mutex
}

func (g *sessionGate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			h.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		n := 0
		for range g.srv.Sessions() {
			n++
		}
		if n >= g.max {
			g.log.Warn("refused a new MCP session: too many open", "remote", r.RemoteAddr, "max", g.max)
			w.Header().Set("Retry-After", "60")
			writeRPCError(w, http.StatusServiceUnavailable, bodyID(r),
				fmt.Sprintf("too many MCP sessions (%d open, the limit is mcp.max_sessions): close one or retry later", n))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// wholeBody is a body read whole by readBody.
type wholeBody struct {
	*bytes.Reader
	data []byte
}

func (wholeBody) Close() error { return nil }

// bodyID is the id of the JSON-RPC request in r's body, if read whole.
func bodyID(r *http.Request) json.RawMessage {
	if b, ok := r.Body.(wholeBody); ok {
		return requestID(b.data)
	}
	return nil
}

// writeRPCError answers with status and a JSON-RPC error object, which
// MCP clients show to the user.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, message string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32000, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// postHeader carries the id under which a POST's context is registered
// into the SDK, which hands each message's HTTP header to the handlers
// (RequestExtra.Header) but runs them on the session's context. Any value
// a client sends is replaced.
const postHeader = "X-Langhost-Post"

// postContexts maps POST ids to the POST requests' contexts, which end
// when the client disconnects or the POST has been answered.
type postContexts struct {
	prefix string // tells this handler's ids from another's on the same server
	mu     sync.Mutex
	next   uint64
	ctxs   map[string]context.Context
}

func newPostContexts() *postContexts {
	return &postContexts{prefix: rand.Text()[:8] + "-", ctxs: map[string]context.Context{}}
}

// wrap registers each POST for as long as it is being served.
func (p *postContexts) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(postHeader)
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.next++
		id := p.prefix + strconv.FormatUint(p.next, 10)
		p.ctxs[id] = r.Context()
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.ctxs, id)
			p.mu.Unlock()
		}()
		r.Header.Set(postHeader, id)
		h.ServeHTTP(w, r)
	})
}

// middleware ends a tool call when its POST's context ends. A POST is
// registered before the SDK sees its messages, so an id that is no longer
// registered means the POST ended before the call started: the client is
// gone, since a POST stays open until its calls are answered.
func (p *postContexts) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if method != "tools/call" || extra == nil || extra.Header == nil {
			return next(ctx, method, req)
		}
		id := extra.Header.Get(postHeader)
		if !strings.HasPrefix(id, p.prefix) {
			return next(ctx, method, req)
		}
		p.mu.Lock()
		postCtx, ok := p.ctxs[id]
		p.mu.Unlock()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if !ok {
			cancel()
		} else {
			defer context.AfterFunc(postCtx, cancel)()
		}
		return next(ctx, method, req)
	}
}
