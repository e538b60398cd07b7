package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/filetools"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultIdleTimeout is how long a daemon waits for a call before it exits
// (config daemon.idle_timeout).
const DefaultIdleTimeout = 10 * time.Minute

// shutdownGrace is how long a stopping daemon lets running calls finish
// before it cancels them.
const shutdownGrace = 10 * time.Second

// Listener is a daemon's socket. Closing it removes the socket file, but
// only while the file is still this listener's: a daemon that stops late
// must not remove the socket of the daemon that replaced it.
type Listener struct {
	*net.UnixListener
	path string
	file os.FileInfo
	once sync.Once
	err  error
}

// Listen creates the socket at path, readable and writable by the owner
// only, in a directory private to the owner. A socket file nobody listens
// on (left by a crashed daemon) is replaced; a live one is an error.
func Listen(ctx context.Context, path string) (*Listener, error) {
	if !supported {
		return nil, errUnsupported
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err == nil {
		c := newClient(path, "")
		if st, err := c.Status(ctx); err == nil {
			return nil, failure.New(failure.Precondition, "daemon %d already serves %s on %s", st.PID, st.Workspace, path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale daemon socket: %w", err)
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	// The directory already keeps other users out; the mode says the same
	// to anyone who looks.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("daemon socket: %w", err)
	}
	return &Listener{UnixListener: ln, path: path, file: fi}, nil
}

// Close removes the socket file if it is still this listener's, then stops
// listening. From then on callers find no daemon and start a new one.
func (l *Listener) Close() error {
	l.once.Do(func() {
		if fi, err := os.Lstat(l.path); err == nil && os.SameFile(fi, l.file) {
			_ = os.Remove(l.path)
		}
		l.err = l.UnixListener.Close()
	})
	return l.err
}

// Options configure a Server.
type Options struct {
	IdleTimeout time.Duration // DefaultIdleTimeout if 0
	Log         string        // the daemon's log file, shown in its status
	Logger      hclog.Logger
}

// Server serves the tools of a host to CLI calls.
type Server struct {
	h       *host.Host
	id      Identity
	opts    Options
	started time.Time
	ln      *Listener

	done     chan struct{}
	stopOnce sync.Once

	mu     sync.Mutex
	reason string // why the daemon stops
	active int
	calls  int64
	last   time.Time // when the last call ended
	idle   *time.Timer
}

// NewServer returns a server of h's semantic tools for callers with
// identity id.
func NewServer(h *host.Host, id Identity, opts Options) *Server {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	now := time.Now()
	return &Server{h: h, id: id, opts: opts, started: now, last: now, done: make(chan struct{})}
}

// Serve answers calls on ln until ctx is done, a stop request arrives or
// no call came for the idle timeout. It removes the socket first, then
// lets running calls finish (cancelling them after a grace period, or at
// once when ctx is done). The caller closes the host afterwards.
func (s *Server) Serve(ctx context.Context, ln *Listener) error {
	s.ln = ln
	calls, cancelCalls := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelCalls()
	hs := &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return calls },
		ErrorLog:          log.New(s.opts.Logger.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true}), "", 0),
	}
	s.mu.Lock()
	s.idle = time.AfterFunc(s.opts.IdleTimeout, s.idleExpired)
	s.mu.Unlock()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var err error
	select {
	case <-ctx.Done():
		s.stop("interrupted")
		cancelCalls()
	case <-s.done:
	case err = <-served:
		select {
		case <-s.done:
			// Stop closed the listener: Serve's error is the expected one.
			err = nil
		default:
			s.stop("listener failed")
		}
	}
	s.mu.Lock()
	s.idle.Stop()
	s.opts.Logger.Info("daemon stopping", "reason", s.reason, "calls", s.calls)
	s.mu.Unlock()
	_ = ln.Close()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil {
		cancelCalls()
		_ = hs.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+pathCall, s.handleCall)
	mux.HandleFunc("GET "+pathStatus, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Status())
	})
	mux.HandleFunc("POST "+pathStop, func(w http.ResponseWriter, _ *http.Request) {
		st := s.Status()
		// The socket goes before the answer: when `daemon stop` returns,
		// the next call starts a new daemon.
		s.stop("stop requested")
		_ = s.ln.Close()
		writeJSON(w, http.StatusOK, st)
	})
	return mux
}

// handleCall runs one tool call. The call runs under the request's
// context, which net/http cancels when the caller disconnects: a CLI
// interrupted with Ctrl-C cancels its call here.
func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	if got := r.Header.Get(fingerprintHeader); got != s.id.Fingerprint {
		err := failure.New(failure.Precondition, "daemon %d runs another langhost build or other specs (fingerprint %s, caller %q)", os.Getpid(), s.id.Fingerprint, got)
		writeJSON(w, http.StatusConflict, callResponse{Errors: encodeErrors(err)})
		return
	}
	var req CallRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		err = &failure.Error{Code: failure.InvalidInput, Message: "daemon call: body must be one JSON object {tool, input, confirmed}", Err: err}
		writeJSON(w, http.StatusBadRequest, callResponse{Errors: encodeErrors(err)})
		return
	}
	start := time.Now()
	res, err := s.call(r.Context(), req)
	if res == nil && err == nil {
		err = failure.New(failure.Internal, "%s returned no result", req.Tool)
	}
	s.opts.Logger.Debug("call", "tool", req.Tool, "duration", time.Since(start), "code", failure.CodeOf(err))
	writeJSON(w, http.StatusOK, callResponse{Result: res, Errors: encodeErrors(err)})
}

// call runs req as registry.Registry.Call does in the CLI's own process.
// A panic becomes an internal failure and the daemon keeps serving.
func (s *Server) call(ctx context.Context, req CallRequest) (res *registry.Result, err error) {
	t, err := s.h.Registry.Tool(req.Tool)
	if err != nil {
		return nil, err
	}
	// Other tools run commands with the caller's environment and working
	// directory, which the daemon does not have. A workspace write is
	// served when it goes to a semantic tool (edit_file), never when a
	// gate tool would check it.
	if !Serves(s.h, t, req.Input) {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "tool",
			Message: fmt.Sprintf("the daemon serves semantic tools and writes a language server checks only; run %s with --no-daemon", t.ID)}
	}
	s.begin()
	defer s.end()
	defer func() {
		if v := recover(); v != nil {
			s.opts.Logger.Error("tool call panicked", "tool", t.ID, "panic", v, "stack", string(debug.Stack()))
			res, err = nil, failure.New(failure.Internal, "%s: internal error: %v", t.ID, v)
		}
	}()
	return s.h.Registry.Call(ctx, t.ID, registry.Call{Input: req.Input, Confirmed: req.Confirmed,
		WorkspaceCode: req.WorkspaceCode || s.h.Config != nil && s.h.Config.Trust.Trusted})
}

// Serves reports whether a daemon of h runs a call of t with input: a
// semantic tool, or a workspace write forwarded to one. The CLI sends the
// daemon these calls only.
func Serves(h *host.Host, t *registry.Tool, input map[string]any) bool {
	return t.Kind == registry.KindSemantic || filetools.SemanticTool(h.Specs, h.Registry, t.ID, input) != ""
}

func (s *Server) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active++
	s.calls++
	s.idle.Stop()
}

func (s *Server) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	s.last = time.Now()
	if s.active == 0 {
		s.idle.Reset(s.opts.IdleTimeout)
	}
}

// idleExpired stops the daemon unless a call began after the timer fired.
func (s *Server) idleExpired() {
	s.mu.Lock()
	idle := s.active == 0 && time.Since(s.last) >= s.opts.IdleTimeout
	s.mu.Unlock()
	if idle {
		s.stop(fmt.Sprintf("no call for %s", s.opts.IdleTimeout))
	}
}

// StopReason says why Serve returned: interrupted, stop requested, idle.
func (s *Server) StopReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reason
}

func (s *Server) stop(reason string) {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		s.reason = reason
		s.mu.Unlock()
		close(s.done)
	})
}

// Status describes the daemon now.
func (s *Server) Status() *Status {
	now := time.Now()
	s.mu.Lock()
	st := &Status{
		PID:           os.Getpid(),
		Version:       host.Version,
		Workspace:     s.id.Workspace,
		Log:           s.opts.Log,
		Fingerprint:   s.id.Fingerprint,
		PathHash:      s.id.PathHash,
		Started:       s.started,
		UptimeMS:      now.Sub(s.started).Milliseconds(),
		IdleTimeoutMS: s.opts.IdleTimeout.Milliseconds(),
		Calls:         s.calls,
		Active:        s.active,
	}
	if s.active == 0 {
		st.IdleMS = now.Sub(s.last).Milliseconds()
	}
	s.mu.Unlock()
	if s.ln != nil {
		st.Socket = s.ln.path
	}
	st.Processes, st.RSSBytes = processTree(st.PID)
	return st
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
