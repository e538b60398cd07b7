package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPResultsSayEachFactOnce: over MCP a result states each fact once.
// A rename preview carries its diff once (not again per file); a semantic
// answer carries no exit code, duration or zero counts, which say nothing
// of it; a failed check's text lists its diagnostic once, not again as
// the reason or as a parsed output.
func TestMCPResultsSayEachFactOnce(t *testing.T) {
	requireGopls(t)
	f := semanticFixture(t)
	write(t, filepath.Join(f.workspace, "main.go"), "package main\n\nimport \"fmt\"\n\n// Greet says hello.\nfunc Greet() string { return \"hi\" }\n\nfunc main() {\n\tfmt.Printf(\"%d\\n\", Greet())\n}\n")
	if err := os.WriteFile(filepath.Join(f.workspace, "go.mod"), []byte("module example.com/once\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := startStdio(t, f, nil)

	res, st := callTool(t, cs, "go_rename_symbol", map[string]any{"symbol": "Greet", "new_name": "Hello", "dry_run": true})
	raw, _ := json.Marshal(st)
	if res.IsError || strings.Count(string(raw), "@@ -") != strings.Count(st["diff"].(string), "@@ -") {
		t.Errorf("rename preview: the diff's hunks appear more than once:\n%s", raw)
	}
	for _, key := range []string{"exit_code", "duration_ms", "counts", "diagnostics"} {
		if _, ok := st[key]; ok {
			t.Errorf("a semantic answer carries %s: %s", key, raw)
		}
	}

	res, st = callTool(t, cs, "go_vet", map[string]any{})
	text := resultText(res)
	if !res.IsError || strings.Count(text, "wrong type") != 1 {
		t.Errorf("go_vet's text does not list its diagnostic exactly once:\n%s", text)
	}
	if msg := st["error"].(map[string]any)["message"].(string); strings.Contains(msg, "wrong type") {
		t.Errorf("go_vet's error repeats the diagnostic: %q", msg)
	}
}
