package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
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

// ServeHTTP serves srv over streamable HTTP until ctx is done. It refuses
// (failure.Precondition) to listen on a non-loopback address without a
// token.
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
	// Open event streams never finish on their own: give requests a moment, then cut.
	shutCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
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
// check when token is set.
func Handler(srv *mcp.Server, token string, logger hclog.Logger) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Logger: slogLogger(logger), SessionTimeout: 30 * time.Minute})
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
