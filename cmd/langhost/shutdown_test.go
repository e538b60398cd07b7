package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langhost/langhost/internal/procgroup"
)

// The shutdown tests stop real langhost processes (signals, SIGKILL, client
// disconnects) in the middle of tool calls and look in /proc for anything
// left running.

// stopWithin is the contract: a signaled langhost is gone within 5 seconds.
const stopWithin = 5 * time.Second

// shutdownSpec has a tool whose child escapes the process group with
// setsid before the tool's short timeout.
const shutdownSpec = `language:
  id: shutdowntest
  name: Shutdown test
tools:
  escape:
    command: sh
    args: ["-c", "setsid sleep \"$1\" & sleep \"$1\"", "escape"]
    timeout: 1s
    inputs:
      seconds: {type: string, required: true, arg: -1}
`

// newMarker returns a sleep duration no other process uses, so /proc
// tells this test's tool processes by their command line.
func newMarker() string {
	return fmt.Sprintf("1000.%09d", time.Now().UnixNano()%1_000_000_000)
}

// waitSleeping waits until n sleep processes have marker among their
// arguments.
func waitSleeping(t *testing.T, marker string, n int) {
	t.Helper()
	mcpWaitFor(t, fmt.Sprintf("%d sleep processes", n), time.Minute, func() bool {
		sleeps := 0
		for _, args := range processesWith(t, marker) {
			if filepath.Base(args[0]) == "sleep" {
				sleeps++
			}
		}
		return sleeps == n
	})
}

// waitNoneMarked waits until no process has marker among its arguments.
// A zombie has no command line, so a killed process waiting for its
// reaper counts as gone.
func waitNoneMarked(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesWith(t, marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tool processes still running: %q", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proc is one process read from /proc.
type proc struct {
	pid, ppid int
	zombie    bool
	args      []string
}

func readProc(pid int) (proc, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid ...; comm may contain spaces and ')'.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 2 {
		return proc{}, false
	}
	p := proc{pid: pid, zombie: fields[0] == "Z" || fields[0] == "X"}
	p.ppid, _ = strconv.Atoi(fields[1])
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	p.args = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	return p, true
}

// descendants returns the processes below pid.
func descendants(t *testing.T, pid int) []proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("the process check needs /proc: %v", err)
	}
	children := map[int][]proc{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(n); ok {
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	var out []proc
	queue := []int{pid}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	p, ok := readProc(pid)
	return ok && !p.zombie
}

// findProc returns the first process in ps whose arguments satisfy match.
func findProc(ps []proc, match func(args []string) bool) (proc, bool) {
	i := slices.IndexFunc(ps, func(p proc) bool { return match(p.args) })
	if i < 0 {
		return proc{}, false
	}
	return ps[i], true
}

func isGopls(args []string) bool { return filepath.Base(args[0]) == "gopls" }

func isPlugin(args []string) bool {
	return len(args) >= 3 && args[len(args)-3] == "plugin" && args[len(args)-2] == "serve"
}

// waitAllGone waits until none of ps runs.
func waitAllGone(t *testing.T, what string, ps []proc) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, p := range ps {
			if running(p.pid) {
				left = append(left, fmt.Sprintf("%d %q", p.pid, p.args))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still running:\n%s", what, strings.Join(left, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// server is a langhost process under test.
type server struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	exited chan struct{} // closed when Wait returned; err is then set
	err    error
}

func startServer(t *testing.T, cmd *exec.Cmd) *server {
	t.Helper()
	s := &server{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	if cmd.Stderr == nil {
		cmd.Stderr = s.stderr
	}
	// Dies with the test binary (SIGTERM: it stops its own children), so a
	// test that times out leaves no server behind.
	if err := procgroup.New(cmd, syscall.SIGTERM).Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	// Stopped as a client stops it, and waited for with everything it
	// started: a descendant still running (gopls, a tool) could write into
	// the test's temporary directories while they are removed.
	t.Cleanup(func() {
		tree := descendants(t, cmd.Process.Pid)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(stopWithin):
			_ = cmd.Process.Kill()
			<-s.exited
		}
		deadline := time.Now().Add(stopWithin)
		for _, p := range tree {
			for running(p.pid) {
				if time.Now().After(deadline) {
					t.Errorf("%q (pid %d) outlived langhost mcp's stop", strings.Join(p.args, " "), p.pid)
					if leftover, err := os.FindProcess(p.pid); err == nil {
						_ = leftover.Kill()
					}
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return s
}

// signalAndWait sends sig and returns the exit code, failing the test if
// the process is not gone within stopWithin.
func (s *server) signalAndWait(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(stopWithin):
		t.Fatalf("langhost still running %s after %v; stderr:\n%s", stopWithin, sig, s.stderr)
	}
	var exit *exec.ExitError
	if s.err != nil && !errors.As(s.err, &exit) {
		t.Fatal(s.err)
	}
	return s.cmd.ProcessState.ExitCode()
}

// startStdioServer starts `langhost mcp` with the SDK client connected
// over pipes the test owns, so that it can signal and wait for the process.
func startStdioServer(t *testing.T, f mcpFixture, args ...string) (*server, *mcp.ClientSession) {
	t.Helper()
	cmd := f.command(t, args...)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	// Closing a client session waits for its calls in flight: only after
	// the server is gone (startServer's cleanup, which runs after this).
	var cs *mcp.ClientSession
	t.Cleanup(func() {
		if cs != nil {
			_ = cs.Close()
		}
		inW.Close()
		outR.Close()
	})
	s := startServer(t, cmd)
	inR.Close()
	outW.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-shutdown-test", Version: "1"}, nil)
	cs, err = client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr)
	}
	return s, cs
}

// startHTTPServer starts `langhost mcp --http` on a free loopback port,
// with bearer token testToken in the user config (procgroup keeps
// LANGHOST_MCP_TOKEN from children), and returns it with the endpoint URL
// it printed.
func startHTTPServer(t *testing.T, f mcpFixture, env []string, args ...string) (*server, string) {
	t.Helper()
	write(t, filepath.Join(f.config, "langhost", "config.yaml"), "mcp:\n  token: "+testToken+"\n")
	cmd := f.command(t, append([]string{"--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	s := startServer(t, cmd)
	var url string
	mcpWaitFor(t, "the server to print its address", time.Minute, func() bool {
		for line := range strings.Lines(s.stderr.String()) {
			if _, u, ok := strings.Cut(strings.TrimSpace(line), "serving streamable HTTP on "); ok {
				url = u
				return true
			}
		}
		return false
	})
	return s, url
}

// callInBackground starts a tool call whose result the test ignores.
func callInBackground(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		done <- err
	}()
	return done
}

func TestMCPStdioStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s, cs := startStdioServer(t, newMCPFixture(t))
			marker := newMarker()
			callInBackground(context.Background(), cs, "mcptest_sleep", map[string]any{"seconds": marker})
			waitSleeping(t, marker, 2)
			if code := s.signalAndWait(t, sig); code != 0 {
				t.Errorf("exit code %d, want 0 (a clean shutdown); stderr:\n%s", code, s.stderr)
			}
			waitNoneMarked(t, marker)
		})
	}
}

func TestMCPHTTPStopsOnSignal(t *testing.T) {
	s, url := startHTTPServer(t, newMCPFixture(t), nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "langhost-shutdown-test"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearerTransport{testToken, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	marker := newMarker()
	callInBackground(context.Background(), cs, "mcptest_sleep", map[string]any{"seconds": marker})
	waitSleeping(t, marker, 2)
	if code := s.signalAndWait(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit code %d, want 0 (a clean shutdown); stderr:\n%s", code, s.stderr)
	}
	waitNoneMarked(t, marker)
}

// connRecorder dials like the default transport and remembers the
// connections, so a test can cut them as a crashing client would.
type connRecorder struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (r *connRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.mu.Unlock()
	}
	return c, err
}

func (r *connRecorder) cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
}

// TestMCPHTTPClientDisconnectCancelsCall cuts the connections of a real
// SDK client with a call in flight, as when the client process dies: the
// SDK server keeps running such calls (nobody could ever read their
// results), langhost cancels them. (The SDK client's own Close waits for
// its calls in flight, so it cannot be used to walk away from one.)
func TestMCPHTTPClientDisconnectCancelsCall(t *testing.T) {
	_, url := startHTTPServer(t, newMCPFixture(t), nil)
	rec := &connRecorder{}
	httpClient := &http.Client{Transport: bearerTransport{testToken, &http.Transport{DialContext: rec.dial}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "langhost-shutdown-test"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	marker := newMarker()
	done := callInBackground(context.Background(), cs, "mcptest_sleep", map[string]any{"seconds": marker})
	waitSleeping(t, marker, 2)
	rec.cut()
	waitNoneMarked(t, marker)
	if err := <-done; err == nil {
		t.Error("the call of a disconnected client returned a result")
	}
	_ = cs.Close()
}

func TestRunStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			f := newMCPFixture(t)
			marker := newMarker()
			cmd := f.command(t)
			cmd.Args = []string{cmd.Path, "run", "mcptest.sleep", "seconds=" + marker,
				"--workspace", f.workspace, "--languages", f.specs, "--format", "json"}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			s := startServer(t, cmd)
			waitSleeping(t, marker, 2)
			if code := s.signalAndWait(t, sig); code != 130 {
				t.Errorf("exit code %d, want 130 (canceled); stderr:\n%s", code, s.stderr)
			}
			var env envelope
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || len(env.Errors) == 0 || env.Errors[0].Code != "canceled" {
				t.Errorf("envelope %s (%v), want error code canceled", stdout.String(), err)
			}
			waitNoneMarked(t, marker)
		})
	}
}

// TestRunTimeoutKillsEscapedProcess: a tool's child that left the process
// group with setsid is killed with the group on timeout.
func TestRunTimeoutKillsEscapedProcess(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.specs, "shutdowntest.yaml"), shutdownSpec)
	marker := newMarker()
	cmd := f.command(t)
	cmd.Args = []string{cmd.Path, "run", "shutdowntest.escape", "seconds=" + marker,
		"--workspace", f.workspace, "--languages", f.specs, "--format", "json"}
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 5 {
		t.Fatalf("exit = %v, want code 5 (timeout)\n%s", err, out)
	}
	waitNoneMarked(t, marker)
}

// warmGopls starts a semantic call through gopls on a server over the
// fixture, whose go spec is the shipped one (with gopls), and returns the
// plugin and gopls processes.
func warmGopls(t *testing.T, s *server, cs *mcp.ClientSession) (plugin, gopls proc) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does both)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "go_file_symbols", Arguments: map[string]any{"file": "main.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("go.file_symbols: %s\nstderr:\n%s", resultText(res), s.stderr)
	}
	tree := descendants(t, s.cmd.Process.Pid)
	plugin, ok := findProc(tree, isPlugin)
	if !ok {
		t.Fatalf("no plugin process below langhost: %v", tree)
	}
	gopls, ok = findProc(tree, isGopls)
	if !ok {
		t.Fatalf("no gopls below langhost: %v", tree)
	}
	return plugin, gopls
}

// semanticFixture is the MCP fixture with the shipped go spec, which
// names gopls.
func semanticFixture(t *testing.T) mcpFixture {
	f := newMCPFixture(t)
	if err := os.Remove(filepath.Join(f.specs, "go.yaml")); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestHostKilledLeavesNoProcesses kills langhost with SIGKILL, which it
// cannot handle, while gopls is warm and a tool runs: its plugin, gopls and
// the tool's processes must all go away.
func TestHostKilledLeavesNoProcesses(t *testing.T) {
	s, cs := startStdioServer(t, semanticFixture(t))
	warmGopls(t, s, cs)
	marker := newMarker()
	callInBackground(context.Background(), cs, "mcptest_sleep", map[string]any{"seconds": marker})
	waitSleeping(t, marker, 2)
	tree := descendants(t, s.cmd.Process.Pid)

	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.exited
	waitAllGone(t, "after langhost was killed", tree)
	waitNoneMarked(t, marker)
}
