package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMCPLeanResults: the structured result a model reads is the lean
// one by default (no raw go test -json stream, no command line), detail
// brings the rest, and compact diagnostics keep code and source.
func TestMCPLeanResults(t *testing.T) {
	requireGopls(t)
	f := goWorkspace(t)
	if err := os.Mkdir(filepath.Join(f.workspace, "calc"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.workspace, "calc", "calc.go"), "package calc\n\nfunc Add(a, b int) int { return a - b }\n")
	write(t, filepath.Join(f.workspace, "calc", "calc_test.go"), "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Error(\"Add(1, 2) != 3\")\n\t}\n}\n")
	write(t, filepath.Join(f.workspace, "main.go"), "package main\n\nfunc main() {\n\tvar unused int\n}\n")
	cs, _ := startStdio(t, f, nil)

	test := map[string]any{"packages": "./calc"}
	res, st := callTool(t, cs, "go_test", test)
	tests, _ := st["tests"].(map[string]any)
	if tests == nil || tests["failed"] != 1.0 {
		t.Fatalf("go_test: tests = %v\n%s", st["tests"], resultText(res))
	}
	omitted, _ := st["omitted"].([]any)
	if _, raw := st["stdout"]; raw || st["command"] != nil || !slices.Contains(omitted, any("stdout")) {
		t.Errorf("go_test by default: stdout present %v, command %v, omitted %v", raw, st["command"], omitted)
	}
	test["detail"] = "full"
	if _, st := callTool(t, cs, "go_test", test); !strings.Contains(st["stdout"].(string), `"Action"`) || st["command"] == nil {
		t.Errorf("go_test detail full lacks the go test -json stream or the command: %v", st)
	}
	test["detail"] = "everything"
	if res, st := callTool(t, cs, "go_test", test); !res.IsError || st["error"].(map[string]any)["field"] != "detail" {
		t.Errorf("bad detail: %s", resultText(res))
	}

	res, st = callTool(t, cs, "go_diagnostics", map[string]any{"file": "main.go"})
	diags, _ := st["diagnostics"].([]any)
	if len(diags) == 0 {
		t.Fatalf("go_diagnostics: %s", resultText(res))
	}
	d := diags[0].(map[string]any)
	if d["code"] == nil || d["source"] == nil || d["end_line"] != nil {
		t.Errorf("compact diagnostic = %v, want code and source, no end", d)
	}
}
