package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// handlerFunc adapts a function to registry.Handler.
type handlerFunc func(ctx context.Context, call registry.Call) (*registry.Result, error)

func (f handlerFunc) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	return f(ctx, call)
}

// testServer serves a registry with the given semantic tools (and one CLI
// tool, demo.cli) on a socket in a temporary directory.
// The returned function waits for Serve to return.
func testServer(t *testing.T, idle time.Duration, tools map[string]registry.Handler) (*Server, *client, func() error) {
	t.Helper()
	reg := registry.New()
	for id, h := range tools {
		if err := reg.Add(&registry.Tool{ID: id, Kind: registry.KindSemantic, Handler: h, Idempotent: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.Add(&registry.Tool{ID: "demo.cli", Kind: registry.KindCLI, Handler: handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) {
		t.Error("the daemon ran a CLI tool")
		return &registry.Result{OK: true}, nil
	})}); err != nil {
		t.Fatal(err)
	}
	return serveRegistry(t, idle, &host.Host{Registry: reg})
}

// serveRegistry serves h's registry on a socket in a temporary directory.
func serveRegistry(t *testing.T, idle time.Duration, h *host.Host) (*Server, *client, func() error) {
	t.Helper()
	socket := filepath.Join(shortTempDir(t), "d.sock")
	ln, err := Listen(context.Background(), socket)
	if err != nil {
		t.Fatal(err)
	}
	id := Identity{Workspace: "/ws", Key: "key", Fingerprint: "fp"}
	srv := NewServer(h, id, Options{IdleTimeout: idle, Logger: hclog.NewNullLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	wait := sync.OnceValue(func() error { return <-served })
	t.Cleanup(func() {
		cancel()
		_ = wait()
	})
	return srv, newClient(socket, id.Fingerprint), wait
}

// shortTempDir is a temporary directory with a path short enough for a
// socket (t.TempDir's can exceed the 104 bytes of sun_path).
func shortTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "lhd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestCallRoundTrip(t *testing.T) {
	_, c, _ := testServer(t, time.Hour, map[string]registry.Handler{
		"demo.echo": handlerFunc(func(_ context.Context, call registry.Call) (*registry.Result, error) {
			data, _ := json.Marshal(map[string]any{"input": call.Input, "confirmed": call.Confirmed})
			return &registry.Result{OK: true, Data: data, DurationMS: 1.5}, nil
		}),
		"demo.fail": handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) {
			return nil, fmt.Errorf("context: %w", &failure.Error{Code: failure.Ambiguous, Field: "symbol", Message: "ambiguous",
				Details: map[string]any{"candidates": []any{"a", "b"}}})
		}),
	})
	ctx := context.Background()
	res, err := c.call(ctx, CallRequest{Tool: "demo.echo", Input: map[string]any{"symbol": "X"}, Confirmed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.DurationMS != 1.5 || string(res.Data) != `{"confirmed":true,"input":{"symbol":"X"}}` {
		t.Errorf("result = %+v data %s", res, res.Data)
	}

	tests := []struct {
		name, tool string
		code       failure.Code
		field      string
		text       string
	}{
		{"classified error keeps text, field and details", "demo.fail", failure.Ambiguous, "symbol", "context: symbol: ambiguous"},
		{"unknown tool", "demo.nope", failure.NotFound, "", `unknown tool "demo.nope"`},
		{"CLI tools run in the caller", "demo.cli", failure.InvalidInput, "tool", "run demo.cli with --no-daemon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.call(ctx, CallRequest{Tool: tt.tool})
			var fe *failure.Error
			if failure.CodeOf(err) != tt.code || !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %v (code %s), want %s field %q containing %q", err, failure.CodeOf(err), tt.code, tt.field, tt.text)
			}
			if tt.tool == "demo.fail" && (err.Error() != tt.text || fmt.Sprint(fe.Details["candidates"]) != "[a b]") {
				t.Errorf("error text %q details %v", err, fe.Details)
			}
		})
	}
}

// TestCancelReachesTheCall: a CLI interrupted with Ctrl-C drops its
// connection, and the call in the daemon is cancelled.
func TestCancelReachesTheCall(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	_, c, _ := testServer(t, time.Hour, map[string]registry.Handler{
		"demo.block": handlerFunc(func(ctx context.Context, _ registry.Call) (*registry.Result, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}),
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.call(ctx, CallRequest{Tool: "demo.block"})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; failure.CodeOf(err) != failure.Canceled {
		t.Errorf("caller got %v, want a canceled failure", err)
	}
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon's call was not cancelled when the caller went away")
	}
}

func TestFingerprintMismatchIsRefused(t *testing.T) {
	_, c, _ := testServer(t, time.Hour, map[string]registry.Handler{
		"demo.echo": handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) {
			t.Error("a call with another fingerprint ran")
			return &registry.Result{OK: true}, nil
		}),
	})
	c.fingerprint = "another build"
	_, err := c.call(context.Background(), CallRequest{Tool: "demo.echo"})
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Delivered || !errors.Is(err, errMismatch) {
		t.Fatalf("err = %v, want an undelivered mismatch", err)
	}
}

// TestHostileBodies: whatever arrives on the socket gets a JSON answer
// with a classified error, never a panic or a call.
func TestHostileBodies(t *testing.T) {
	_, c, _ := testServer(t, time.Hour, map[string]registry.Handler{
		"demo.echo": handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) {
			return &registry.Result{OK: true}, nil
		}),
	})
	tests := []struct {
		name, body string
		status     int
	}{
		{"not JSON", "{tool:", http.StatusBadRequest},
		{"unknown field", `{"tool": "demo.echo", "sudo": true}`, http.StatusBadRequest},
		{"input not an object", `{"tool": "demo.echo", "input": [1]}`, http.StatusBadRequest},
		{"too large", `{"tool": "demo.echo", "input": {"x": "` + strings.Repeat("a", maxRequest) + `"}}`, http.StatusBadRequest},
		{"empty tool", `{}`, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "http://langhost"+pathCall, strings.NewReader(tt.body))
			req.Header.Set(fingerprintHeader, c.fingerprint)
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out callResponse
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatalf("answer is not JSON: %v", err)
			}
			if resp.StatusCode != tt.status || len(out.Errors) != 1 || out.Result != nil {
				t.Errorf("HTTP %d %+v, want %d and one error", resp.StatusCode, out, tt.status)
			}
		})
	}
}

func FuzzCallBody(f *testing.F) {
	f.Add([]byte(`{"tool": "demo.echo", "input": {"symbol": "X"}, "confirmed": true}`))
	f.Add([]byte(`{"tool": "demo.cli"}`))
	f.Add([]byte(`{"tool": "demo.panic", "input": null}`))
	f.Add([]byte(`{"tool": 1}`))
	f.Add([]byte(`[]`))
	reg := registry.New()
	for id, h := range map[string]registry.Handler{
		"demo.echo":  handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) { return &registry.Result{OK: true}, nil }),
		"demo.panic": handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) { panic("boom") }),
	} {
		if err := reg.Add(&registry.Tool{ID: id, Kind: registry.KindSemantic, Handler: h}); err != nil {
			f.Fatal(err)
		}
	}
	srv := NewServer(&host.Host{Registry: reg}, Identity{Fingerprint: "fp"}, Options{Logger: hclog.NewNullLogger()})
	srv.idle = time.NewTimer(time.Hour)
	handler := srv.routes()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, pathCall, bytes.NewReader(body))
		req.Header.Set(fingerprintHeader, "fp")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		var out callResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer is not JSON: %v: %s", err, rec.Body)
		}
		if (out.Result == nil) == (len(out.Errors) == 0) {
			t.Fatalf("want a result or errors: %s", rec.Body)
		}
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("HTTP %d", rec.Code)
		}
	})
}

func TestIdleTimeoutStopsTheDaemon(t *testing.T) {
	srv, c, served := testServer(t, 50*time.Millisecond, map[string]registry.Handler{
		"demo.echo": handlerFunc(func(context.Context, registry.Call) (*registry.Result, error) { return &registry.Result{OK: true}, nil }),
	})
	if _, err := c.call(context.Background(), CallRequest{Tool: "demo.echo"}); err != nil {
		t.Fatal(err)
	}
	// Without the idle timeout this waits until the test binary's timeout.
	if err := served(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(c.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	if !strings.HasPrefix(srv.reason, "no call for") {
		t.Errorf("stopped because %q", srv.reason)
	}
}

func TestStopRemovesSocketBeforeAnswering(t *testing.T) {
	_, c, served := testServer(t, time.Hour, nil)
	st, err := c.Stop(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() {
		t.Errorf("status pid %d", st.PID)
	}
	if _, err := os.Lstat(c.socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there when stop answered: %v", err)
	}
	if err := served(); err != nil {
		t.Fatal(err)
	}
}

func TestListen(t *testing.T) {
	t.Run("stale socket is replaced", func(t *testing.T) {
		socket := filepath.Join(shortTempDir(t), "s.sock")
		stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		stale.SetUnlinkOnClose(false)
		stale.Close() // a crashed daemon's socket file: nobody listens
		ln, err := Listen(context.Background(), socket)
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
	})
	t.Run("live daemon is kept", func(t *testing.T) {
		_, c, _ := testServer(t, time.Hour, nil)
		_, err := Listen(context.Background(), c.socket)
		if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "already serves") {
			t.Fatalf("err = %v", err)
		}
		if _, err := c.Status(context.Background()); err != nil {
			t.Errorf("the running daemon was disturbed: %v", err)
		}
	})
	t.Run("socket is owner-only", func(t *testing.T) {
		dir := filepath.Join(shortTempDir(t), "d")
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		ln, err := Listen(context.Background(), filepath.Join(dir, "s.sock"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		for path, want := range map[string]os.FileMode{dir: 0o700, ln.path: 0o600} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v (%v)", path, fi.Mode().Perm(), want, err)
			}
		}
	})
	t.Run("symlinked directory is refused", func(t *testing.T) {
		base := shortTempDir(t)
		elsewhere := filepath.Join(base, "elsewhere")
		if err := os.Mkdir(elsewhere, 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(base, "link")
		if err := os.Symlink(elsewhere, link); err != nil {
			t.Fatal(err)
		}
		if _, err := Listen(context.Background(), filepath.Join(link, "s.sock")); err == nil || !strings.Contains(err.Error(), "not a directory") {
			t.Fatalf("err = %v", err)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("socket created through the symlink: %v", entries)
		}
	})
	t.Run("late close keeps the replacement's socket", func(t *testing.T) {
		socket := filepath.Join(shortTempDir(t), "s.sock")
		old, err := Listen(context.Background(), socket)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(socket); err != nil { // as a caller does after finding it dead
			t.Fatal(err)
		}
		replacement, err := Listen(context.Background(), socket)
		if err != nil {
			t.Fatal(err)
		}
		defer replacement.Close()
		old.Close()
		if _, err := os.Lstat(socket); err != nil {
			t.Errorf("closing the old listener removed the new socket: %v", err)
		}
	})
}

func TestPathsFor(t *testing.T) {
	rt := shortTempDir(t)
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(rt, "cache"))
	p, err := PathsFor("abc")
	if err != nil {
		t.Fatal(err)
	}
	want := Paths{Socket: filepath.Join(rt, "langhost", "abc.sock"), Lock: filepath.Join(rt, "langhost", "abc.lock"),
		Log: filepath.Join(rt, "cache", "langhost", "daemons", "abc.log")}
	if p != want {
		t.Errorf("paths = %+v, want %+v", p, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(rt, strings.Repeat("x", 100)))
	if _, err := PathsFor("abc"); err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("too long a socket path: err = %v", err)
	}
}

func TestIdentity(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	specs := t.TempDir()
	trusted := false
	identity := func(env map[string]string) Identity {
		t.Helper()
		cfg, err := config.Load(config.Paths{}, nil, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		cfg.Languages = []string{specs}
		cfg.Trust.Trusted = trusted
		id, err := NewIdentity(cfg, ws)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	base := identity(nil)
	if again := identity(nil); again != base {
		t.Fatalf("identity not stable: %+v vs %+v", again, base)
	}
	if id := identity(map[string]string{"LANGHOST_DAEMON_IDLE_TIMEOUT": "1s", "LANGHOST_FORMAT": "text"}); id != base {
		t.Errorf("daemon settings and output format changed the identity")
	}
	if id := identity(map[string]string{"LANGHOST_TIMEOUT": "1m"}); id.Key == base.Key || id.Fingerprint == base.Fingerprint {
		t.Errorf("another timeout kept the key")
	}
	trusted = true
	if id := identity(nil); id.Key == base.Key {
		t.Errorf("trusting the workspace kept the key")
	}
	trusted = false
	if err := os.WriteFile(filepath.Join(specs, "x.yaml"), []byte("language: {id: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := identity(nil)
	if edited.Key != base.Key || edited.Fingerprint == base.Fingerprint {
		t.Errorf("a new spec file: key changed %v, fingerprint kept %v", edited.Key != base.Key, edited.Fingerprint == base.Fingerprint)
	}
	if err := os.WriteFile(filepath.Join(specs, "x.yaml"), []byte("language: {id: x, name: X}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if id := identity(nil); id.Fingerprint == edited.Fingerprint {
		t.Errorf("an edited spec file kept the fingerprint")
	}
}

// TestLostDaemonIsDelivered: a daemon that dies after reading a call may
// have run it, so the caller must not run it again unless it is harmless;
// one that was never reached certainly did not.
func TestLostDaemonIsDelivered(t *testing.T) {
	socket := filepath.Join(shortTempDir(t), "d.sock")
	c := newClient(socket, "fp")
	_, err := c.call(context.Background(), CallRequest{Tool: "demo.echo"})
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Delivered {
		t.Fatalf("no daemon: err = %v, want undelivered", err)
	}

	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = http.ReadRequest(bufio.NewReader(conn)) // the call arrives, then the daemon dies
		conn.Close()
	}()
	_, err = c.call(context.Background(), CallRequest{Tool: "demo.echo"})
	if !errors.As(err, &ue) || !ue.Delivered {
		t.Fatalf("daemon lost during the call: err = %v, want delivered", err)
	}
}
