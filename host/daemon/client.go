package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const (
	// readyTimeout bounds a daemon's start: loading specs and listening
	// (language servers start on the first call).
	readyTimeout = 15 * time.Second
	// statusTimeout bounds a status or stop request: a daemon that
	// accepts connections but does not answer counts as gone.
	statusTimeout = 5 * time.Second
	// exitTimeout bounds the wait for a stopped daemon to exit: it stops
	// its plugins and language servers first.
	exitTimeout = 30 * time.Second
)

// UnavailableError reports that no daemon could run a call. Delivered is
// false when no daemon received the call, so that running it elsewhere
// cannot run it twice; when true, the daemon was lost during the call.
type UnavailableError struct {
	Delivered bool
	Err       error
}

func (e *UnavailableError) Error() string {
	if e.Delivered {
		return "connection to the langhost daemon lost during the call: " + e.Err.Error()
	}
	return "langhost daemon unavailable: " + e.Err.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// errMismatch: the daemon runs another build or other specs.
var errMismatch = errors.New("the daemon runs another langhost build or other specs")

// Command is how to start a daemon: the langhost executable with the
// arguments of `langhost serve`, its working directory and environment.
type Command struct {
	Path string
	Args []string
	Dir  string
	Env  []string
	// Notify, if set, is told why a running daemon is replaced when the
	// user can act on it (it was started with another PATH).
	Notify func(msg string)
}

// Call runs req in the daemon of id. A missing, stale or crashed daemon is
// started first with start, and one with another fingerprint replaced. An
// *UnavailableError means no daemon ran the call.
func Call(ctx context.Context, id Identity, start Command, req CallRequest) (*registry.Result, error) {
	if !supported {
		return nil, &UnavailableError{Err: errUnsupported}
	}
	paths, err := PathsFor(id.Key)
	if err != nil {
		return nil, &UnavailableError{Err: err}
	}
	c := newClient(paths.Socket, id.Fingerprint)
	res, err := c.call(ctx, req)
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Delivered {
		return res, err
	}
	if err := EnsureRunning(ctx, id, paths, start); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, failure.Wrap(failure.CodeOf(cerr), cerr, "start the langhost daemon")
		}
		return nil, &UnavailableError{Err: err}
	}
	return c.call(ctx, req)
}

// EnsureRunning makes sure a daemon with id's fingerprint listens on
// paths.Socket. It holds the lock file while it checks, stops an outdated
// daemon, removes a socket nobody listens on and starts a new daemon, so
// that callers racing to start one end with one.
func EnsureRunning(ctx context.Context, id Identity, paths Paths, start Command) error {
	unlock, err := lock(ctx, paths.Lock, readyTimeout+statusTimeout+exitTimeout)
	if err != nil {
		return err
	}
	defer unlock()
	c := newClient(paths.Socket, id.Fingerprint)
	st, err := c.Status(ctx)
	switch {
	case err == nil && st.Fingerprint == id.Fingerprint:
		return nil // another caller started it
	case err == nil:
		if st.PathHash != "" && st.PathHash != id.PathHash && start.Notify != nil {
			start.Notify(fmt.Sprintf("the workspace's daemon (pid %d) was started with another PATH: replacing it, so that language servers are looked up on this one", st.PID))
		}
		// Stop removes the socket before it answers.
		if _, err := c.Stop(ctx); err != nil {
			return fmt.Errorf("stop outdated daemon %d: %w", st.PID, err)
		}
	default:
		// Nothing answers: the socket of a daemon that crashed, if any.
		if err := os.Remove(paths.Socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale daemon socket: %w", err)
		}
	}
	exited, err := spawn(start, paths.Log)
	if err != nil {
		return err
	}
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err := c.Status(ctx); err == nil {
			if st.Fingerprint != id.Fingerprint {
				_, _ = c.Stop(ctx)
				return fmt.Errorf("the daemon started (pid %d) has fingerprint %s, want %s; log: %s", st.PID, st.Fingerprint, id.Fingerprint, paths.Log)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err() // the daemon may still come up and serve the next call
		case werr := <-exited:
			return fmt.Errorf("daemon exited while starting (%v): %s", werr, logTail(paths.Log))
		case <-deadline.C:
			return fmt.Errorf("daemon did not answer within %s; log: %s", readyTimeout, paths.Log)
		case <-tick.C:
		}
	}
}

// List returns the status of every running daemon of this user, by
// workspace.
func List(ctx context.Context) ([]*Status, error) {
	if !supported {
		return nil, nil
	}
	dir, err := SocketDir()
	if err != nil {
		return nil, err
	}
	sockets, err := filepath.Glob(filepath.Join(dir, "*.sock"))
	if err != nil {
		return nil, err
	}
	var list []*Status
	for _, s := range sockets {
		if st, err := newClient(s, "").Status(ctx); err == nil {
			list = append(list, st)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Workspace != list[j].Workspace {
			return list[i].Workspace < list[j].Workspace
		}
		return list[i].PID < list[j].PID
	})
	return list, nil
}

// Stop stops the daemon st describes and waits until its process, which
// first stops its plugins and language servers, has exited.
func Stop(ctx context.Context, st *Status) error {
	if _, err := newClient(st.Socket, "").Stop(ctx); err != nil {
		return fmt.Errorf("stop daemon %d: %w", st.PID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, exitTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for alive(st.PID) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("daemon %d still running after stop: %w", st.PID, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// client talks HTTP to the daemon on one socket.
type client struct {
	socket      string
	fingerprint string
	hc          *http.Client
}

func newClient(socket, fingerprint string) *client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		// One CLI process makes a call or two: nothing to keep alive.
		DisableKeepAlives: true,
	}
	return &client{socket: socket, fingerprint: fingerprint, hc: &http.Client{Transport: tr}}
}

// call runs req. Errors of the tool come back as the daemon classified
// them; failing to reach the daemon is an *UnavailableError.
func (c *client) call(ctx context.Context, req CallRequest) (*registry.Result, error) {
	var resp callResponse
	code, err := c.do(ctx, http.MethodPost, pathCall, req, &resp)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, failure.Wrap(failure.CodeOf(cerr), cerr, "%s", req.Tool)
		}
		return nil, err
	}
	switch code {
	case http.StatusOK:
		return resp.Result, decodeErrors(resp.Errors)
	case http.StatusConflict:
		return nil, &UnavailableError{Err: errMismatch}
	default:
		if err := decodeErrors(resp.Errors); err != nil {
			return nil, err
		}
		return nil, failure.New(failure.Internal, "langhost daemon answered HTTP %d to %s", code, req.Tool)
	}
}

// Status asks the daemon for its status.
func (c *client) Status(ctx context.Context) (*Status, error) {
	return c.status(ctx, http.MethodGet, pathStatus)
}

// Stop asks the daemon to stop. It has removed its socket when this
// returns.
func (c *client) Stop(ctx context.Context) (*Status, error) {
	return c.status(ctx, http.MethodPost, pathStop)
}

func (c *client) status(ctx context.Context, method, path string) (*Status, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	var st Status
	code, err := c.do(ctx, method, path, nil, &st)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK || st.PID == 0 {
		return nil, fmt.Errorf("%s %s: HTTP %d", method, path, code)
	}
	return &st, nil
}

// do sends one request and decodes the JSON answer into out. It returns
// an *UnavailableError when the daemon could not be reached or did not
// answer.
func (c *client) do(ctx context.Context, method, path string, body, out any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, failure.Wrap(failure.InvalidInput, err, "encode the call for the daemon")
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://langhost"+path, r)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(fingerprintHeader, c.fingerprint)
	resp, err := c.hc.Do(req)
	if err != nil {
		var op *net.OpError
		dialed := !(errors.As(err, &op) && op.Op == "dial")
		return 0, &UnavailableError{Delivered: dialed && body != nil, Err: err}
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return 0, &UnavailableError{Delivered: body != nil, Err: fmt.Errorf("read the daemon's answer: %w", err)}
	}
	return resp.StatusCode, nil
}

// logTail is the end of a daemon's log, for the error of a failed start.
func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "no log: " + err.Error()
	}
	const max = 2 << 10
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return fmt.Sprintf("log %s:\n%s", path, strings.TrimSpace(string(data)))
}
