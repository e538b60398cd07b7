package semantic

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/lsp"
)

// writeTree writes files (path relative to root -> content) under a new
// temporary directory and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// diagnosticLines renders the diagnostics of an output as
// "path:line:column severity" lines, sorted.
func diagnosticLines(t *testing.T, out map[string]any) []string {
	t.Helper()
	var lines []string
	for _, d := range out["diagnostics"].([]any) {
		m := d.(map[string]any)
		lines = append(lines, fmt.Sprintf("%s:%v:%v %s", m["path"], m["line"], m["column"], m["severity"]))
	}
	slices.Sort(lines)
	return lines
}

// TestWorkspaceDiagnosticsIncomplete: when the server does not report on
// a file before the bound, the answer says so instead of looking clean.
// typescript-language-server publishes nothing for a file that is not
// JavaScript or TypeScript, so a configuration that counts text files as
// sources makes one file go unreported.
func TestWorkspaceDiagnosticsIncomplete(t *testing.T) {
	requireTool(t, "typescript-language-server")
	root := writeTree(t, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`,
		"a.ts":          "export const a: number = \"one\";\n",
		"notes.txt":     "no diagnostics for a text file\n",
	})
	cfg := tsConfig
	cfg.LanguageIDs = map[string]string{".ts": "typescript", ".txt": "plaintext"}
	cfg.RequestTimeout = "8s"
	e := openEngine(t, root, "typescript", cfg)
	out := mustInvoke(t, e, "diagnostics", map[string]any{})
	t.Logf("incomplete: %v", out["incomplete"])
	if out["complete"] != false || !strings.Contains(fmt.Sprint(out["incomplete"]), "notes.txt") {
		t.Errorf("want complete false naming notes.txt: %s", dump(out))
	}
	if got := diagnosticLines(t, out); !slices.Contains(got, "a.ts:1:14 error") {
		t.Errorf("the files that were reported are still there: %q", got)
	}
}

// diagLoc renders the diagnostic at path of an output as
// "path:line:column".
func diagLoc(t *testing.T, out map[string]any, path string) string {
	t.Helper()
	return fmt.Sprintf("%s:%d:%d", get(t, out, path+".path"), get(t, out, path+".line"), get(t, out, path+".column"))
}

// Diagnostics that differ only in where they end are two at every detail
// level: compact leaves the ends out, not the diagnostics (on
// Newtonsoft.Json, compact listed 301 of csharp-ls's 306 errors of a
// file). Exact repeats are listed once.
func TestCompactKeepsDiagnosticsThatDifferInTheirEnd(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.cs")
	src := "class A { Task<int> F() => null; }\n"
	writeFile(t, path, src)
	uri := lsp.URIFromPath(path)
	d := func(endChar uint32) lsp.Diagnostic {
		return lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: 0, Character: 10}, End: lsp.Position{Line: 0, Character: endChar}},
			Severity: 1, Message: "Predefined type 'System.Object' is not defined or imported"}
	}
	c := &call{e: &Engine{root: root}}
	all := []fileDiags{{uri: uri, m: lsp.NewMapper([]byte(src)), diags: []lsp.Diagnostic{d(19), d(14), d(19)}}}
	for _, detail := range []string{detailCompact, "standard", detailFull} {
		got := c.shapeDiagnostics(all, &diagnosticsInput{Detail: detail})
		if len(got) != 2 {
			t.Errorf("detail %s: %d diagnostics, want 2 (two ends, one repeat): %+v", detail, len(got), got)
		}
	}
}
