package roslyntest_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/lsptest/roslyntest"
)

func TestLaunchArguments(t *testing.T) {
	bin := roslyntest.Build(t)
	tests := []struct {
		name   string
		args   []string
		env    []string
		stderr string
	}{
		{"unknown argument", []string{"--stdio", "--bogus"}, nil, "Unrecognized command or argument '--bogus'."},
		{"missing value", []string{"--stdio", "--logLevel"}, nil, "Required argument missing for option: '--logLevel'."},
		{"bad log level", []string{"--stdio", "--logLevel", "Loud"}, nil, "Cannot parse argument 'Loud' for option '--logLevel'"},
		{"no stdio", []string{"--logLevel", "Information"}, nil, "only --stdio transport is supported"},
		{"bad env", []string{"--stdio"}, []string{"FAKEROSLYN_FAIL_30099=many"}, "FAKEROSLYN_FAIL_30099: want a non-negative integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(cmd.Environ(), tt.env...)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit = %v, want status 1", err)
			}
			if !strings.Contains(string(out), tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", out, tt.stderr)
			}
		})
	}
}

func capabilityKeys(t *testing.T, res map[string]any) map[string]any {
	caps, ok := res["capabilities"].(map[string]any)
	if !ok {
		t.Fatalf("initialize result has no capabilities: %v", res)
	}
	return caps
}

func TestInitializeCapabilities(t *testing.T) {
	for _, hierarchy := range []bool{false, true} {
		env := []string{}
		if hierarchy {
			env = append(env, "FAKEROSLYN_HIERARCHY=1")
		}
		p := startPeer(t, env)
		caps := capabilityKeys(t, p.handshake(fixture(t)))
		for _, k := range []string{"definitionProvider", "referencesProvider", "implementationProvider", "documentSymbolProvider",
			"workspaceSymbolProvider", "hoverProvider", "documentFormattingProvider"} {
			if caps[k] != true {
				t.Errorf("%s = %v, want true", k, caps[k])
			}
		}
		want := map[string]any{
			"renameProvider":     map[string]any{"prepareProvider": true},
			"diagnosticProvider": map[string]any{"interFileDependencies": true, "workspaceDiagnostics": true},
		}
		for k, v := range want {
			if !reflect.DeepEqual(caps[k], v) {
				t.Errorf("%s = %v, want %v", k, caps[k], v)
			}
		}
		if ca := caps["codeActionProvider"].(map[string]any); ca["resolveProvider"] != true {
			t.Errorf("codeActionProvider = %v, want resolveProvider", ca)
		}
		for _, k := range []string{"typeHierarchyProvider", "callHierarchyProvider"} {
			if _, has := caps[k]; has != hierarchy {
				t.Errorf("FAKEROSLYN_HIERARCHY=%v: %s present = %v", hierarchy, k, has)
			}
		}
		// Hierarchy requests without the capability are unknown methods.
		_, e := p.call("textDocument/prepareTypeHierarchy", map[string]any{
			"textDocument": map[string]any{"uri": "file:///x.cs"}, "position": map[string]any{"line": 0, "character": 0}})
		if !hierarchy && (e == nil || e["code"] != float64(-32601)) {
			t.Errorf("prepareTypeHierarchy without FAKEROSLYN_HIERARCHY: error = %v, want -32601", e)
		}
	}
}

func TestHandshakeServerRequests(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0"})
	root := fixture(t)
	p.handshake(root)
	// Answer the progress token before opening, so loading reports progress.
	p.waitFor("window/workDoneProgress/create", 5*time.Second)
	p.openAndWait(root)
	got := p.seenMethods()
	want := []string{
		"client/registerCapability", "workspace/configuration", "window/workDoneProgress/create",
		"$/progress", "$/progress", "$/progress", "window/logMessage", "workspace/projectInitializationComplete",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("server messages = %q\nwant %q", got, want)
	}
	var kinds []string
	for _, m := range p.seen {
		if m["method"] == "$/progress" {
			kinds = append(kinds, m["params"].(map[string]any)["value"].(map[string]any)["kind"].(string))
		}
	}
	if !reflect.DeepEqual(kinds, []string{"begin", "report", "end"}) {
		t.Errorf("progress kinds = %q", kinds)
	}
	st := p.state()
	replies, _ := json.Marshal(st["clientReplies"])
	if string(replies) != `[{"method":"client/registerCapability","outcome":"ok"},{"method":"workspace/configuration","outcome":"ok"},{"method":"window/workDoneProgress/create","outcome":"ok"}]` {
		t.Errorf("clientReplies = %s", replies)
	}
	cfg := st["configuration"].(map[string]any)
	if cfg["csharp|code_lens.dotnet_enable_references_code_lens"] != true ||
		cfg["csharp|background_analysis.dotnet_compiler_diagnostics_scope"] != "openFiles" {
		t.Errorf("configuration = %v", cfg)
	}
	if st["documents"] != float64(7) || st["loadState"] != "ready" {
		t.Errorf("state = %v, want 7 documents, ready", st)
	}
}

func TestClientRefusesOrIgnoresServerRequests(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0", "FAKEROSLYN_REPLY_TIMEOUT=100ms"})
	p.answer = func(method string, _ json.RawMessage) (any, int, bool) {
		switch method {
		case "workspace/configuration":
			return nil, 0, false // never answered
		default:
			return nil, -32601, true
		}
	}
	p.handshake(fixture(t))
	p.waitFor("window/workDoneProgress/create", 5*time.Second)
	time.Sleep(300 * time.Millisecond) // past FAKEROSLYN_REPLY_TIMEOUT
	st := p.state()
	replies, _ := json.Marshal(st["clientReplies"])
	want := `[{"code":-32601,"message":"unsupported","method":"client/registerCapability","outcome":"error"},` +
		`{"code":-32601,"message":"unsupported","method":"window/workDoneProgress/create","outcome":"error"},` +
		`{"method":"workspace/configuration","outcome":"no reply"}]`
	if string(replies) != want {
		t.Errorf("clientReplies = %s\nwant %s", replies, want)
	}
	if !strings.Contains(p.stderr.String(), "client answered client/registerCapability with error -32601") {
		t.Errorf("stderr does not log the refusal:\n%s", p.stderr.String())
	}
}

func symbolNames(t *testing.T, raw json.RawMessage) []string {
	var syms []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &syms); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	names := []string{}
	for _, s := range syms {
		names = append(names, s.Name)
	}
	return names
}

func TestNavigationGatedUntilLoaded(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=400ms"})
	root := fixture(t)
	p.handshake(root)
	query := map[string]any{"query": "Circle"}

	raw, _ := p.call("workspace/symbol", query)
	if got := symbolNames(t, raw); len(got) != 0 {
		t.Errorf("before solution/open: %q, want empty", got)
	}
	p.notify("solution/open", map[string]any{"solution": fileURI(filepath.Join(root, "Shapes.sln"))})
	raw, _ = p.call("workspace/symbol", query)
	if got := symbolNames(t, raw); len(got) != 0 {
		t.Errorf("while loading: %q, want empty", got)
	}
	if st := p.state(); st["loadState"] != "loading" {
		t.Errorf("loadState = %v, want loading", st["loadState"])
	}
	if p.waitFor("workspace/projectInitializationComplete", 5*time.Second) == nil {
		t.Fatal("no projectInitializationComplete")
	}
	raw, _ = p.call("workspace/symbol", query)
	if got := symbolNames(t, raw); !reflect.DeepEqual(got, []string{"Circle", "Circle"}) {
		t.Errorf("after load: %q, want the class and its constructor", got)
	}
}

func TestProjectOpen(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0"})
	root := fixture(t)
	p.handshake(root)
	p.notify("project/open", map[string]any{"projects": []string{fileURI(filepath.Join(root, "src/Shapes/Shapes.csproj"))}})
	if p.waitFor("workspace/projectInitializationComplete", 5*time.Second) == nil {
		t.Fatal("no projectInitializationComplete")
	}
	st := p.state()
	if st["documents"] != float64(3) {
		t.Errorf("documents = %v, want the 3 files of Shapes.csproj", st["documents"])
	}
}

func TestNeverReady(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0", "FAKEROSLYN_NEVER_READY=1"})
	root := fixture(t)
	p.handshake(root)
	p.notify("solution/open", map[string]any{"solution": fileURI(filepath.Join(root, "Shapes.sln"))})
	if m := p.waitFor("workspace/projectInitializationComplete", 500*time.Millisecond); m != nil {
		t.Fatal("projectInitializationComplete sent despite FAKEROSLYN_NEVER_READY")
	}
	raw, _ := p.call("workspace/symbol", map[string]any{"query": "Circle"})
	if got := symbolNames(t, raw); len(got) != 0 {
		t.Errorf("workspace/symbol = %q, want empty", got)
	}
}

func TestFail30099(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0", "FAKEROSLYN_FAIL_30099=2"})
	root := fixture(t)
	p.handshake(root)
	p.openAndWait(root)
	for i := 1; i <= 3; i++ {
		raw, e := p.call("workspace/symbol", map[string]any{"query": "Square"})
		if i <= 2 {
			if e == nil || e["code"] != float64(-30099) {
				t.Errorf("request %d: error = %v, want -30099", i, e)
			}
			continue
		}
		if e != nil || len(symbolNames(t, raw)) == 0 {
			t.Errorf("request %d: %s %v, want symbols", i, raw, e)
		}
	}
}

func TestExitAfter(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=0", "FAKEROSLYN_EXIT_AFTER=2"})
	p.handshake(fixture(t)) // request 1
	p.mustCall("workspace/symbol", map[string]any{"query": "X"}, nil)
	p.nextID++
	p.send(map[string]any{"id": p.nextID, "method": "workspace/symbol", "params": map[string]any{"query": "Y"}})
	for m := range p.msgs { // drain until the server closes stdout
		if id, _ := m["id"].(float64); int(id) == p.nextID && m["method"] == nil {
			t.Fatalf("request 3 was answered: %v", m)
		}
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exit = %v, want status 3", err)
	}
}

func TestShutdownAndExit(t *testing.T) {
	tests := []struct {
		name     string
		shutdown bool
		code     int
	}{{"after shutdown", true, 0}, {"without shutdown", false, 1}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startPeer(t, nil)
			p.handshake(fixture(t))
			if tt.shutdown {
				raw, e := p.call("shutdown", nil)
				if e != nil || string(raw) != "null" {
					t.Fatalf("shutdown = %s %v", raw, e)
				}
				if _, e := p.call("workspace/symbol", map[string]any{"query": ""}); e == nil || e["code"] != float64(-32600) {
					t.Errorf("request after shutdown: error = %v, want -32600", e)
				}
			}
			p.notify("exit", nil)
			done := make(chan error, 1)
			go func() { done <- p.cmd.Wait() }()
			select {
			case err := <-done:
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				if code != tt.code {
					t.Errorf("exit status = %d, want %d", code, tt.code)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("fakeroslyn did not exit")
			}
		})
	}
}

func TestExitsWhenStdinCloses(t *testing.T) {
	p := startPeer(t, nil)
	p.handshake(fixture(t))
	p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("fakeroslyn did not exit after stdin closed")
	}
}

func TestRequestBeforeInitialize(t *testing.T) {
	p := startPeer(t, nil)
	_, e := p.call("workspace/symbol", map[string]any{"query": "Circle"})
	if e == nil || e["code"] != float64(-32002) {
		t.Errorf("error = %v, want -32002", e)
	}
}

// FAKEROSLYN_LOAD_REPORT makes the load report as it goes, as a server
// loading a large solution does ("Loading project N", as work-done
// progress once the client accepted the token, else as log messages), and
// stop reporting when it has loaded.
func TestLoadReport(t *testing.T) {
	p := startPeer(t, []string{"FAKEROSLYN_LOAD_DELAY=1s", "FAKEROSLYN_LOAD_REPORT=50ms"})
	root := fixture(t)
	p.handshake(root)
	p.notify("solution/open", map[string]any{"solution": fileURI(filepath.Join(root, "Shapes.sln"))})
	if p.waitFor("workspace/projectInitializationComplete", 10*time.Second) == nil {
		t.Fatal("no projectInitializationComplete")
	}
	reports := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		n := 0
		for _, m := range p.seen {
			b, _ := json.Marshal(m["params"])
			if strings.Contains(string(b), `"Loading project `) {
				n++
			}
		}
		return n
	}
	loaded := reports()
	if loaded < 2 {
		t.Errorf("%d load reports in a 1s load reported every 50ms", loaded)
	}
	// A request after the load: every report sent before its answer has
	// been read by then.
	p.call("workspace/symbol", map[string]any{"query": "Circle"})
	if n := reports(); n != loaded {
		t.Errorf("%d load reports after the load ended", n-loaded)
	}
}
