package roslyntest_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/lsptest/roslyntest"
)

// csharpLS starts the fake under the name csharp-ls, answering the
// "csharp" configuration section it asks for with settings.
func csharpLS(t *testing.T, settings map[string]any, env []string, args ...string) *peer {
	t.Helper()
	bin := filepath.Join(roslyntest.Install(t, "csharp-ls"), "csharp-ls")
	p := startPeerBin(t, bin, env, append([]string{}, args...)...)
	p.answer = func(method string, params json.RawMessage) (any, int, bool) {
		if method == "workspace/configuration" {
			return []any{settings}, 0, true
		}
		return nil, 0, true
	}
	return p
}

// The csharp-ls flavor starts up as csharp-ls does: no Roslyn
// notifications, the solution found and loaded by the server itself, a
// request made meanwhile answered once it has loaded, diagnostics pushed
// to a client that cannot pull them.
func TestCSharpLSFlavor(t *testing.T) {
	p := csharpLS(t, map[string]any{}, []string{"FAKEROSLYN_LOAD_DELAY=300ms"}, "--loglevel", "info")
	root := fixture(t)
	res := p.handshake(root)
	if info := res["serverInfo"].(map[string]any); info["name"] != "csharp-ls" {
		t.Errorf("serverInfo = %v", info)
	}
	caps := capabilityKeys(t, res)
	if _, pull := caps["diagnosticProvider"]; pull {
		t.Errorf("diagnosticProvider advertised to a client that cannot pull diagnostics")
	}
	for _, k := range []string{"typeHierarchyProvider", "callHierarchyProvider"} {
		if _, ok := caps[k]; !ok {
			t.Errorf("%s missing: csharp-ls has it", k)
		}
	}

	// Asked before loading ends, answered after it, with real results.
	start := time.Now()
	var syms []struct{ Name string }
	p.mustCall("workspace/symbol", map[string]any{"query": "Circle"}, &syms)
	if len(syms) == 0 || syms[0].Name != "Circle" {
		t.Errorf("workspace/symbol = %+v, want Circle", syms)
	}
	if time.Since(start) < 200*time.Millisecond {
		t.Errorf("workspace/symbol answered before the solution loaded")
	}
	st := p.state()
	if st["flavor"] != "csharp-ls" || st["loadState"] != "ready" || !strings.HasSuffix(st["opened"].(map[string]any)["solution"].(string), "/Shapes.sln") {
		t.Errorf("state = %v", st)
	}
	var logs []string
	for _, m := range p.seen {
		if m["method"] == "window/logMessage" {
			logs = append(logs, m["params"].(map[string]any)["message"].(string))
		}
	}
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.HasPrefix(l, "csharp-ls: Finished loading solution") }) {
		t.Errorf("log messages %q lack csharp-ls: Finished loading solution", logs)
	}
	if slices.Contains(p.seenMethods(), "workspace/projectInitializationComplete") {
		t.Error("csharp-ls sent Roslyn's projectInitializationComplete")
	}

	broken := filepath.Join(root, "src", "Shapes.App", "Broken.cs")
	text := readText(t, broken)
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": fileURI(broken), "languageId": "csharp", "version": 1, "text": text}})
	m := p.waitFor("textDocument/publishDiagnostics", 10*time.Second)
	if m == nil {
		t.Fatal("no diagnostics pushed for the opened document")
	}
	diags, _ := json.Marshal(m["params"])
	if !strings.Contains(string(diags), `"code":"CS1002"`) || !strings.Contains(string(diags), `"line":6`) {
		t.Errorf("pushed diagnostics = %s", diags)
	}

	// A Roslyn client would open the solution itself; csharp-ls does not
	// know the notification.
	p.notify("solution/open", map[string]any{"solution": fileURI(filepath.Join(root, "Shapes.sln"))})
	if probs := p.state()["problems"].([]any); len(probs) != 1 || !strings.Contains(probs[0].(string), "csharp-ls does not know solution/open") {
		t.Errorf("problems = %v", probs)
	}
}

// A client that can pull diagnostics gets a diagnostic provider and no
// pushed diagnostics; a solution named by --solution or by the csharp
// settings is the one loaded.
func TestCSharpLSSolutionAndPull(t *testing.T) {
	root := fixture(t)
	for _, tc := range []struct {
		name     string
		settings map[string]any
		args     []string
		want     string // suffix of the solution opened
		state    string
	}{
		{"found in the root", map[string]any{}, nil, "/Shapes.sln", "ready"},
		{"setting", map[string]any{"solution": "Missing.sln"}, nil, "/Missing.sln", "failed"},
		{"flag", map[string]any{}, []string{"--solution", filepath.Join(root, "Shapes.sln")}, "/Shapes.sln", "ready"},
		// Requests held for a load that fails are answered, emptily.
		{"flag naming a missing solution", map[string]any{}, []string{"--solution", "Missing.sln"}, "/Missing.sln", "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := csharpLS(t, tc.settings, []string{"FAKEROSLYN_LOAD_DELAY=0"}, tc.args...)
			caps := map[string]any{"textDocument": map[string]any{"diagnostic": map[string]any{}}, "window": map[string]any{"workDoneProgress": true}}
			var res map[string]any
			p.mustCall("initialize", map[string]any{"processId": 1, "rootUri": fileURI(root), "capabilities": caps}, &res)
			p.notify("initialized", map[string]any{})
			if _, ok := capabilityKeys(t, res)["diagnosticProvider"]; !ok {
				t.Error("no diagnosticProvider for a client that can pull")
			}
			var syms []any
			p.mustCall("workspace/symbol", map[string]any{"query": "Circle"}, &syms)
			st := p.state()
			opened, _ := st["opened"].(map[string]any)
			if sol, _ := opened["solution"].(string); !strings.HasSuffix(sol, tc.want) || st["loadState"] != tc.state {
				t.Errorf("opened %v, load %v; want %s, %s", opened, st["loadState"], tc.want, tc.state)
			}
			if (len(syms) > 0) != (tc.state == "ready") {
				t.Errorf("symbols = %v with the load %s", syms, tc.state)
			}
			if slices.Contains(p.seenMethods(), "textDocument/publishDiagnostics") {
				t.Error("diagnostics pushed to a client that pulls them")
			}
		})
	}
}

func TestCSharpLSArguments(t *testing.T) {
	bin := filepath.Join(roslyntest.Install(t, "csharp-ls"), "csharp-ls")
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), "0.0.0") {
		t.Errorf("--version = %q, %v", out, err)
	}
	for _, args := range [][]string{{"--stdio"}, {"--loglevel", "loud"}, {"--solution"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.HasPrefix(string(out), "ERROR: ") {
			t.Errorf("%q: exit %v, output %q; want status 1 and an ERROR line", args, err, out)
		}
	}
}
