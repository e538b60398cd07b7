package mcpserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EndpointPath is where the streamable HTTP endpoint is mounted.
const EndpointPath = "/mcp"

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Addr is host:port to listen on. A missing host (":8080" or "8080")
	// means 127.0.0.1; port 0 picks a free port.
	Addr string
	// Token, if set, must be sent as "Authorization: Bearer <token>" on
	// every request. It is required when Addr is not a loopback address.
	Token  string
	Logger hclog.Logger
	// Ready, if set, is called with the endpoint URL once listening.
	Ready func(url string)
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
// failure.Precondition, a non-loopback address without a token.
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

// shutdownGrace bounds each step of stopping the HTTP server: waiting for
// the canceled tool calls to return, then for their responses to go out.
// Together they stay within the 5 seconds a supervisor typically waits.
const shutdownGrace = 2 * time.Second

// ServeHTTP serves srv over streamable HTTP until ctx is done. It refuses
// (failure.Precondition) to listen on a non-loopback address without a
// token. When ctx ends, tool calls in flight are canceled (their process
// groups killed) and their results sent before the server stops.
func ServeHTTP(ctx context.Context, srv *mcp.Server, opts HTTPOptions) error {
	addr, err := CheckHTTP(opts.Addr, opts.Token)
	if err != nil {
		return err
	}
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "listen on %s", addr)
	}
	requests := bindRequests(ctx, srv)
	mux := http.NewServeMux()
	mux.Handle(EndpointPath, Handler(srv, opts.Token, logger))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: logger.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
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

// Handler is the streamable HTTP handler of srv, behind a bearer token
// check when token is set. A tool call ends when the client that posted
// it disconnects: with no event store to resume from, nobody would ever
// read its result.
func Handler(srv *mcp.Server, token string, logger hclog.Logger) http.Handler {
	posts := newPostContexts()
	srv.AddReceivingMiddleware(posts.middleware)
	h := posts.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Logger: slogLogger(logger), SessionTimeout: 30 * time.Minute}))
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			logger.Warn("rejected MCP request without a valid bearer token", "remote", r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="langhost"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
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
