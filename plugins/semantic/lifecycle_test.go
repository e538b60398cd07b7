package semantic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func openErr(t *testing.T, cfg Config, root string) error {
	t.Helper()
	e := New(testLogger())
	defer e.Shutdown(context.Background())
	raw, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.Open(ctx, pluginapi.OpenRequest{Root: root, Language: "x", Config: raw}, nil)
}

func TestServerStartFailures(t *testing.T) {
	root := t.TempDir()
	t.Run("binary missing", func(t *testing.T) {
		err := openErr(t, Config{Command: "langhost-no-such-server"}, root)
		fe := wantCode(t, err, failure.Precondition, "")
		if !strings.Contains(fe.Error(), `"langhost-no-such-server"`) {
			t.Errorf("message does not name the server: %v", err)
		}
	})
	t.Run("fallback used when primary missing", func(t *testing.T) {
		cfg, _ := fakeConfig(t, "roslyn")
		cfg.Dialect = DialectRoslyn
		cfg = Config{Servers: []Config{{Command: "langhost-no-such-server", Dialect: DialectStandard}, cfg}}
		os.WriteFile(filepath.Join(root, "App.csproj"), []byte(`<Project Sdk="Microsoft.NET.Sdk"></Project>`), 0o644)
		if err := openErr(t, cfg, root); err != nil {
			t.Fatalf("Open with fallback: %v", err)
		}
	})
	t.Run("workspace without a project or source file", func(t *testing.T) {
		empty := t.TempDir()
		cfg, _ := fakeConfig(t, "roslyn")
		cfg.Dialect = DialectRoslyn
		err := openErr(t, cfg, empty)
		if fe := wantCode(t, err, failure.Precondition, ""); !strings.Contains(fe.Error(), "no .sln, .slnx or .csproj file under "+empty) {
			t.Errorf("roslyn: unclear error: %v", err)
		}
		cfg, _ = fakeConfig(t, "roslyn")
		cfg.Dialect, cfg.OpenFileOnStart = DialectStandard, true
		err = openErr(t, cfg, empty)
		if fe := wantCode(t, err, failure.Precondition, ""); !strings.Contains(fe.Error(), "no source file (.cs) under "+empty) {
			t.Errorf("openFileOnStart: unclear error: %v", err)
		}
	})
	t.Run("exits at once", func(t *testing.T) {
		cfg, _ := fakeConfig(t, "exit")
		err := openErr(t, cfg, root)
		fe := wantCode(t, err, failure.Internal, "")
		if !strings.Contains(fe.Error(), "exited") || !strings.Contains(fe.Error(), "exit status 3") {
			t.Errorf("unclear error: %v", err)
		}
	})
	t.Run("never ready", func(t *testing.T) {
		cfg, _ := fakeConfig(t, "hang")
		cfg.ReadyTimeout = "500ms"
		start := time.Now()
		err := openErr(t, cfg, root)
		fe := wantCode(t, err, failure.Timeout, "")
		if !strings.Contains(fe.Error(), "showed no sign of progress (a progress report or log message) for 500ms (semantic.readyTimeout)") || !strings.Contains(fe.Error(), filepath.Base(cfg.Command)) {
			t.Errorf("unclear error: %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("readyTimeout not honoured: took %v", time.Since(start))
		}
	})
	t.Run("bad config", func(t *testing.T) {
		err := openErr(t, Config{Command: "gopls", Dialect: "klingon"}, root)
		wantCode(t, err, failure.InvalidInput, "semantic.dialect")
		err = openErr(t, Config{Command: "gopls", ReadyTimeout: "soon"}, root)
		wantCode(t, err, failure.InvalidInput, "semantic.readyTimeout")
	})
}

func TestRoslynDialect(t *testing.T) {
	root := t.TempDir()
	const sln = "Microsoft Visual Studio Solution File, Format Version 12.00\n" +
		"Project(\"{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}\") = \"App\", \"App.csproj\", \"{11111111-1111-1111-1111-111111111111}\"\nEndProject\n"
	os.WriteFile(filepath.Join(root, "Shapes.sln"), []byte(sln), 0o644)
	os.WriteFile(filepath.Join(root, "B.sln"), []byte(sln), 0o644)
	os.WriteFile(filepath.Join(root, "App.csproj"), []byte(`<Project Sdk="Microsoft.NET.Sdk"></Project>`), 0o644)
	os.WriteFile(filepath.Join(root, "Circle.cs"), []byte("public class Circle {\n    Circle c;\n    int M() {\n        int x = 1\n        return x;\n    }\n}\n"), 0o644)
	cfg, logPath := fakeConfig(t, "roslyn")
	t.Setenv("FAKEROSLYN_FAIL_30099", "1")
	var progress []string
	e := New(testLogger())
	defer e.Shutdown(context.Background())
	raw, _ := json.Marshal(cfg)
	err := e.Open(context.Background(), pluginapi.OpenRequest{Root: root, Language: "csharp", Config: raw}, func(p pluginapi.Progress) {
		progress = append(progress, p.Message)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(progress, "|"), "Loading projects") {
		t.Errorf("progress did not relay the server's work-done progress: %q", progress)
	}
	// The symbol is only known after load: gating makes it resolvable,
	// and the -30099 failure of the first request is retried.
	out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "Circle"})
	if locOf(t, out, "references.0") != "Circle.cs:2:5" {
		t.Errorf("references = %s", dump(out))
	}
	diag := mustInvoke(t, e, "diagnostics", map[string]any{"file": "Circle.cs"})
	if get(t, diag, "mode") != "pull" || get(t, diag, "diagnostics.0.code") != "CS1002" || get(t, diag, "diagnostics.0.line") != 4 {
		t.Errorf("diagnostics = %s", dump(diag))
	}
	_, err = invoke(t, e, "type_hierarchy", map[string]any{"symbol": "Circle"})
	if fe := wantCode(t, err, failure.Unsupported, ""); !strings.Contains(fe.Message, "fakeroslyn does not support textDocument/prepareTypeHierarchy") {
		t.Errorf("message = %q", fe.Message)
	}

	log := readLog(t, logPath)
	if !logHas(log, "notification initialized (load none)", "notification solution/open (load none)", "Loading "+filepath.Join(root, "B.sln")) {
		t.Errorf("the solution opened after initialized is not the first by name (B.sln):\n%s", log)
	}
	if !logHas(log, "project initialization complete", "request workspace/symbol (load ready)", "failing workspace/symbol with -30099", "request workspace/symbol (load ready)", "request textDocument/references (load ready)") {
		t.Errorf("the -30099 failure was not retried:\n%s", log)
	}
	if strings.Contains(log, "workspace/symbol (load loading)") || strings.Contains(log, "workspace/symbol (load none)") {
		t.Errorf("a request reached the server before projectInitializationComplete:\n%s", log)
	}
}

func TestBadInputs(t *testing.T) {
	e, _ := goEngine(t)
	cases := []struct {
		name  string
		op    string
		in    map[string]any
		code  failure.Code
		field string
	}{
		{"unknown file", "file_symbols", map[string]any{"file": "nope/nope.go"}, failure.NotFound, "file"},
		{"escape", "file_symbols", map[string]any{"file": "../../etc/passwd"}, failure.Precondition, "file"},
		{"absolute outside", "file_symbols", map[string]any{"file": "/etc/passwd"}, failure.Precondition, "file"},
		{"line past end", "symbol_info", map[string]any{"file": "calc/calc.go", "line": 999, "column": 1}, failure.InvalidInput, "line"},
		{"column past end", "symbol_info", map[string]any{"file": "calc/calc.go", "line": 20, "column": 500}, failure.InvalidInput, "column"},
		{"missing column", "symbol_info", map[string]any{"file": "calc/calc.go", "line": 20}, failure.InvalidInput, "column"},
		{"no target", "symbol_info", map[string]any{}, failure.InvalidInput, "symbol"},
		{"unknown kind", "symbol_info", map[string]any{"symbol": "A", "kind": "gizmo"}, failure.InvalidInput, "kind"},
		{"unknown key", "symbol_info", map[string]any{"symbl": "A"}, failure.InvalidInput, ""},
		{"bad detail", "file_symbols", map[string]any{"file": "calc/calc.go", "detail": "verbose"}, failure.InvalidInput, "detail"},
		{"no new_name", "rename", map[string]any{"symbol": "A"}, failure.InvalidInput, "new_name"},
		{"depth", "find_callers", map[string]any{"symbol": "A", "depth": 9}, failure.InvalidInput, "depth"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := invoke(t, e, c.op, c.in)
			wantCode(t, err, c.code, c.field)
		})
	}
	t.Run("unknown operation", func(t *testing.T) {
		_, err := e.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "teleport"}, nil)
		wantCode(t, err, failure.NotFound, "operation")
	})
	t.Run("name matching nothing", func(t *testing.T) {
		_, err := invoke(t, e, "find_references", map[string]any{"symbol": "TotalAria"})
		fe := wantCode(t, err, failure.NotFound, "symbol")
		cands := fe.Details["candidates"].([]Candidate)
		if len(cands) == 0 || cands[0].Name != "TotalArea" || !strings.Contains(fe.Message, `did you mean "TotalArea"`) {
			t.Errorf("candidates = %+v, message %q", cands, fe.Message)
		}
	})
	t.Run("name matching several", func(t *testing.T) {
		_, err := invoke(t, e, "find_references", map[string]any{"symbol": "Area"})
		fe := wantCode(t, err, failure.Ambiguous, "symbol")
		cands := fe.Details["candidates"].([]Candidate)
		var where []string
		for _, c := range cands {
			where = append(where, c.File+":"+c.Kind)
		}
		if strings.Join(where, ",") != "shape/shape.go:method,circle/circle.go:method,square/square.go:method" {
			t.Errorf("candidates = %+v", cands)
		}
	})
}

func TestOperationsCatalogue(t *testing.T) {
	ops := Operations()
	if len(ops) != len(catalogue) || len(ops) < 15 {
		t.Fatalf("%d operations", len(ops))
	}
	for _, op := range ops {
		var in, out map[string]any
		if err := json.Unmarshal(op.InputSchema, &in); err != nil || in["type"] != "object" {
			t.Errorf("%s input schema: %s", op.Name, op.InputSchema)
		}
		if err := json.Unmarshal(op.OutputSchema, &out); err != nil || out["type"] != "object" {
			t.Errorf("%s output schema: %s", op.Name, op.OutputSchema)
		}
		// Operations that write need confirmation: precondition_failed.
		if (op.SideEffects == "workspace") != slices.Contains(op.FailureCodes, string(failure.Precondition)) {
			t.Errorf("%s side effects %q", op.Name, op.SideEffects)
		}
	}
	var refs map[string]any
	json.Unmarshal(ops[3].InputSchema, &refs)
	props := refs["properties"].(map[string]any)
	for _, k := range []string{"file", "line", "column", "symbol", "container", "kind", "include_declaration", "offset", "limit", "detail"} {
		if _, ok := props[k]; !ok {
			t.Errorf("find_references schema lacks %q", k)
		}
	}
}
