package plugins_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// testPlugin is the path of the test plugin binary built by TestMain.
var testPlugin string

func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		// Started as a built-in plugin process, as the langhost binary
		// is (TestBuiltinDescribedInProcessAsByItsProcess).
		if err := builtin.Serve(os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(helperHostEnv); path != "" {
		// Re-executed as the host of TestPluginsExitWhenHostDies.
		testPlugin = path
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "langhost-plugins-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testPlugin = filepath.Join(dir, "testplugin")
	build := exec.Command("go", "build", "-o", testPlugin,
		"github.com/langhost/langhost/plugins/pluginapi/internal/testagent/testplugin")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "build test plugin: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testSpec(root string, child bool) plugins.Spec {
	return plugins.Spec{
		Launch: plugins.Launch{Name: "testagent", Path: testPlugin},
		Open: pluginapi.OpenRequest{
			Root:     root,
			Language: "test",
			Config:   json.RawMessage(`{"child":` + strconv.FormatBool(child) + `}`),
		},
	}
}

func newManager(t testing.TB, logger hclog.Logger) *plugins.Manager {
	t.Helper()
	m := plugins.NewManager(logger, plugins.WithShutdownTimeout(5*time.Second))
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func get(t testing.TB, m *plugins.Manager, spec plugins.Spec) *plugins.Plugin {
	t.Helper()
	p, err := m.Get(context.Background(), spec, nil)
	if err != nil {
		t.Fatalf("Get(%s): %v", spec.Open.Root, err)
	}
	return p
}

func invoke(ctx context.Context, p *plugins.Plugin, op, input string) (json.RawMessage, error) {
	return p.Invoke(ctx, pluginapi.InvokeRequest{Operation: op, Input: json.RawMessage(input)}, nil)
}

func echo(t *testing.T, p *plugins.Plugin) {
	t.Helper()
	out, err := invoke(context.Background(), p, "echo", `{"ping":1}`)
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if string(out) != `{"ping":1}` {
		t.Fatalf("echo = %s", out)
	}
}

// openedOutput is the test agent's "opened" output (testagent.OpenedOutput).
type openedOutput struct {
	Request pluginapi.OpenRequest `json:"request"`
	Opens   int                   `json:"opens"`
	PID     int                   `json:"pid"`
}

func opened(t *testing.T, p *plugins.Plugin) openedOutput {
	t.Helper()
	out, err := invoke(context.Background(), p, "opened", `{}`)
	if err != nil {
		t.Fatalf("opened: %v", err)
	}
	var o openedOutput
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

func serverPID(t *testing.T, p *plugins.Plugin) int {
	t.Helper()
	st, err := p.Status(context.Background())
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	if st.ServerPID == 0 {
		t.Fatalf("Status = %+v, want a child process", st)
	}
	return st.ServerPID
}

// gone reports whether pid no longer runs. A zombie counts as gone: an
// orphan's reaper is outside the test's control.
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still running", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestGetDescribeInvokeClose(t *testing.T) {
	m := newManager(t, nil)
	spec := testSpec(t.TempDir(), true)
	var progress []pluginapi.Progress
	p, err := m.Get(context.Background(), spec, func(pr pluginapi.Progress) { progress = append(progress, pr) })
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	wantProgress := []pluginapi.Progress{{Message: "loading workspace", Percent: 50}, {Message: "workspace loaded", Percent: 100}}
	if !reflect.DeepEqual(progress, wantProgress) {
		t.Errorf("Open progress = %+v, want %+v", progress, wantProgress)
	}
	if p.Key() != (plugins.Key{Language: "test", Root: spec.Open.Root}) {
		t.Errorf("Key = %+v", p.Key())
	}

	desc, err := p.Describe(context.Background())
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if desc.Name != "testagent" || len(desc.Operations) == 0 || string(desc.Operations[0].InputSchema) != `{"type":"object"}` {
		t.Errorf("Describe = %+v", desc)
	}
	echo(t, p)
	o := opened(t, p)
	if !reflect.DeepEqual(o.Request, spec.Open) || o.PID != p.PID() {
		t.Errorf("plugin saw %+v in pid %d, want %+v in pid %d", o.Request, o.PID, spec.Open, p.PID())
	}

	again, err := m.Get(context.Background(), spec, nil)
	if err != nil || again != p {
		t.Errorf("second Get = %p, %v; want the same plugin %p", again, err, p)
	}

	pluginPID, childPID := p.PID(), serverPID(t, p)
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitGone(t, "plugin", pluginPID)
	waitGone(t, "language server stand-in", childPID)
	if _, err := m.Get(context.Background(), spec, nil); err == nil {
		t.Error("Get after Close succeeded")
	}
}

func TestErrorClassAcrossProcess(t *testing.T) {
	m := newManager(t, nil)
	p := get(t, m, testSpec(t.TempDir(), false))
	tests := []struct {
		op, input string
		want      failure.Code
		text      string
	}{
		{"fail", `{"symbol":"Foo"}`, failure.NotFound, `symbol: no symbol named "Foo"`},
		{"fail", `{"symbol":"Foo","wrap":true}`, failure.NotFound, `resolve symbol: symbol: no symbol named "Foo"`},
		{"sleep", `{"ms":"soon"}`, failure.InvalidInput, "decode input: json: cannot unmarshal"},
		{"nope", `{}`, failure.NotFound, `operation: unknown operation "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.op+tt.input, func(t *testing.T) {
			_, err := invoke(context.Background(), p, tt.op, tt.input)
			if failure.CodeOf(err) != tt.want {
				t.Fatalf("error = %v (%s), want %s", err, failure.CodeOf(err), tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.text) {
				t.Errorf("error text = %q, want prefix %q", err.Error(), tt.text)
			}
		})
	}
	_, err := invoke(context.Background(), p, "fail", `{"symbol":"Foo"}`)
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Field != "symbol" ||
		!reflect.DeepEqual(fe.Details, map[string]any{"candidates": []any{"Foos", "_Foo"}}) {
		t.Errorf("failure = %#v, want field symbol with candidates", fe)
	}
}

func TestCancellationReachesPlugin(t *testing.T) {
	m := newManager(t, nil)
	p := get(t, m, testSpec(t.TempDir(), false))
	marker := filepath.Join(t.TempDir(), "canceled")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := invoke(ctx, p, "sleep", fmt.Sprintf(`{"ms":60000,"marker":%q}`, marker))
	if failure.CodeOf(err) != failure.Canceled {
		t.Fatalf("error = %v (%s), want canceled", err, failure.CodeOf(err))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(marker); err == nil && string(b) == "canceled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the plugin's context was never cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	echo(t, p) // the plugin is still healthy
}

func TestProgressInOrder(t *testing.T) {
	m := newManager(t, nil)
	p := get(t, m, testSpec(t.TempDir(), false))
	var got []string
	out, err := p.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "progress", Input: json.RawMessage(`{"count":100}`)},
		func(pr pluginapi.Progress) { got = append(got, pr.Message) })
	if err != nil {
		t.Fatalf("progress: %v", err)
	}
	if string(out) != `{"count":100}` || len(got) != 100 {
		t.Fatalf("output %s after %d progress messages, want 100", out, len(got))
	}
	for i, msg := range got {
		if want := "step " + strconv.Itoa(i+1); msg != want {
			t.Fatalf("progress[%d] = %q, want %q", i, msg, want)
		}
	}
}

func TestCrashDuringCall(t *testing.T) {
	m := newManager(t, nil)
	spec := testSpec(t.TempDir(), true)
	p := get(t, m, spec)
	oldPID, oldChild := p.PID(), serverPID(t, p)

	_, err := invoke(context.Background(), p, "crash", `{}`)
	if failure.CodeOf(err) != failure.Internal {
		t.Fatalf("crash error = %v (%s), want internal", err, failure.CodeOf(err))
	}
	if want := "plugin testagent exited: exit status 3"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("crash error = %q, want prefix %q", err.Error(), want)
	}
	waitGone(t, "crashed plugin", oldPID)
	waitGone(t, "crashed plugin's child", oldChild)

	echo(t, p)
	o := opened(t, p)
	if o.PID == oldPID || o.Opens != 1 || !reflect.DeepEqual(o.Request, spec.Open) {
		t.Errorf("after crash: pid %d (old %d), %d opens of %+v; want a new process opened once with %+v",
			o.PID, oldPID, o.Opens, o.Request, spec.Open)
	}
}

func TestShutdownThenRestart(t *testing.T) {
	m := newManager(t, nil)
	p := get(t, m, testSpec(t.TempDir(), true))
	oldPID, oldChild := p.PID(), serverPID(t, p)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	waitGone(t, "plugin", oldPID)
	waitGone(t, "child", oldChild)
	if p.PID() != 0 {
		t.Errorf("PID after Shutdown = %d, want 0", p.PID())
	}
	echo(t, p)
	if p.PID() == 0 || p.PID() == oldPID {
		t.Errorf("PID after restart = %d (old %d)", p.PID(), oldPID)
	}
}

func TestCloseLeavesNoProcesses(t *testing.T) {
	m := newManager(t, nil)
	var pids []int
	for range 3 {
		p := get(t, m, testSpec(t.TempDir(), true))
		pids = append(pids, p.PID(), serverPID(t, p))
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, pid := range pids {
		waitGone(t, "process", pid)
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := newManager(t, nil)
	spec := testSpec(t.TempDir(), false)
	const n = 50
	pids := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p, err := m.Get(context.Background(), spec, nil)
			if err != nil {
				errs[i] = err
				return
			}
			input := fmt.Sprintf(`{"i":%d}`, i)
			out, err := invoke(context.Background(), p, "echo", input)
			if err == nil && string(out) != input {
				err = fmt.Errorf("echo = %s, want %s", out, input)
			}
			errs[i], pids[i] = err, p.PID()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	for i, pid := range pids {
		if pid != pids[0] {
			t.Fatalf("goroutine %d used pid %d, goroutine 0 pid %d: want one process", i, pid, pids[0])
		}
	}
	p := get(t, m, spec)
	if o := opened(t, p); o.Opens != 1 {
		t.Errorf("workspace opened %d times, want 1", o.Opens)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestPluginLogsReachHostLogger(t *testing.T) {
	var logs syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Name: "host", Level: hclog.Debug, Output: &logs})
	m := newManager(t, logger)
	root := t.TempDir()
	p := get(t, m, testSpec(root, false))
	echo(t, p)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	tests := [][]string{
		{"[INFO]  host.testagent.testplugin: workspace opened:", "root=" + root, "@module=testagent"},
		// Debug reaches the host because the manager passes its level on.
		{"[DEBUG] host.testagent.testplugin: invoke:", "operation=echo"},
	}
	for _, parts := range tests {
		if !hasLine(out, parts) {
			t.Errorf("host log has no line with %q; log:\n%s", parts, out)
		}
	}
}

// hasLine reports whether one line of log contains all parts (the order
// of a forwarded entry's key/value pairs varies).
func hasLine(log string, parts []string) bool {
	for line := range strings.Lines(log) {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// helperHostEnv, when set to the test plugin's path, makes the test binary
// act as a host process for TestPluginsExitWhenHostDies.
const helperHostEnv = "LANGHOST_TEST_HELPER_HOST"

// TestPluginsExitWhenHostDies kills a host process with SIGKILL, so it
// cannot close its manager, and checks that its plugin and the plugin's
// child process go away on their own.
func TestPluginsExitWhenHostDies(t *testing.T) {
	if os.Getenv(helperHostEnv) != "" {
		m := plugins.NewManager(nil)
		p := get(t, m, testSpec(t.TempDir(), true))
		fmt.Printf("pids %d %d\n", p.PID(), serverPID(t, p))
		time.Sleep(time.Minute) // until killed
		return
	}
	host := exec.Command(os.Args[0], "-test.run=^TestPluginsExitWhenHostDies$")
	host.Env = append(os.Environ(), helperHostEnv+"="+testPlugin)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	var pluginPID, childPID int
	if _, err := fmt.Fscanf(out, "pids %d %d\n", &pluginPID, &childPID); err != nil {
		t.Fatalf("read pids from helper host: %v", err)
	}
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	waitGone(t, "orphaned plugin", pluginPID)
	waitGone(t, "orphaned plugin's child", childPID)
}

func TestStartFailures(t *testing.T) {
	m := newManager(t, nil)
	notPlugin := testSpec(t.TempDir(), false)
	notPlugin.Launch.Path = "true" // exits at once, without a handshake
	badConfig := testSpec(t.TempDir(), false)
	badConfig.Open.Config = json.RawMessage(`{"child":"yes"}`)
	tests := []struct {
		name string
		spec plugins.Spec
		want failure.Code
	}{
		{"missing executable", func() plugins.Spec {
			s := testSpec(t.TempDir(), false)
			s.Launch.Path = filepath.Join(t.TempDir(), "no-such-plugin")
			return s
		}(), failure.Precondition},
		{"relative root", testSpec("relative/root", false), failure.InvalidInput},
		{"not a plugin", notPlugin, failure.Internal},
		{"open fails", badConfig, failure.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Get(context.Background(), tt.spec, nil)
			if failure.CodeOf(err) != tt.want {
				t.Fatalf("Get error = %v (%s), want %s", err, failure.CodeOf(err), tt.want)
			}
		})
	}
}

func TestBuiltin(t *testing.T) {
	l, err := plugins.Builtin("semantic")
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if l.Path != exe || !reflect.DeepEqual(l.Args, []string{"plugin", "serve", "semantic"}) || l.Name != "semantic" {
		t.Errorf("Builtin = %+v", l)
	}
}

func BenchmarkInvokeEcho(b *testing.B) {
	m := newManager(b, nil)
	p := get(b, m, testSpec(b.TempDir(), false))
	ctx := context.Background()
	req := pluginapi.InvokeRequest{Operation: "echo", Input: json.RawMessage(`{"file":"main.go","line":12,"column":4}`)}
	for b.Loop() {
		if _, err := p.Invoke(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartToReady measures process start, handshake, Describe and
// Open of the test plugin (targets: under 150 ms), and reports the plugin
// process's resident memory (target: under 40 MB).
func BenchmarkStartToReady(b *testing.B) {
	m := newManager(b, nil)
	root := b.TempDir()
	var rssTotal float64
	i := 0
	for b.Loop() {
		i++
		p := get(b, m, testSpec(filepath.Join(root, strconv.Itoa(i)), false))
		b.StopTimer()
		rssTotal += rssMB(b, p.PID())
		if err := p.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(rssTotal/float64(i), "plugin-RSS-MB")
}

// rssMB reads the resident set size of pid from /proc/<pid>/status.
func rssMB(tb testing.TB, pid int) float64 {
	tb.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				tb.Fatalf("VmRSS line %q: %v", line, err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
