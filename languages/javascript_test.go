package languages_test

import (
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJavaScriptTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "node", "eslint", "prettier")

	t.Run("check reports syntax errors", func(t *testing.T) {
		dir := fixture(t, "javascript/broken")
		res := call(t, newHost(t, dir), "javascript.check", map[string]any{"script": "syntax.js"})
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "syntax.js", Line: 2, Column: 13, Severity: "error", Message: "Unexpected token ';'"})
		if len(res.Diagnostics) != 1 {
			t.Errorf("want exactly one diagnostic, got:\n%s", formatDiags(res.Diagnostics))
		}
	})

	t.Run("test counts and failures", func(t *testing.T) {
		dir := fixture(t, "javascript/tests")
		h := newHost(t, dir)
		res := call(t, h, "javascript.test", nil)
		wantOK(t, res, false)
		wantTests(t, res, 2, 1, 1, "subtracts")
		wantDiagnostic(t, res.Diagnostics, diag{File: "math.test.js", Line: 15, Column: 1, Severity: "error", Message: "subtracts"})

		only := call(t, h, "javascript.test", map[string]any{"path": "math.test.js", "namePattern": "^adds"})
		wantOK(t, only, true)
		wantTests(t, only, 2, 0, 2) // node counts the tests namePattern leaves out as skipped
	})

	t.Run("lint", func(t *testing.T) {
		dir := fixture(t, "javascript/lint")
		res := call(t, newHost(t, dir), "javascript.lint", nil)
		wantOK(t, res, false)
		file := "app.js"
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 4, Column: 9, Severity: "error", Message: "'unused' is assigned a value but never used"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 7, Column: 20, Severity: "warning", Message: "Expected '===' and instead saw '=='"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 10, Column: 16, Severity: "error", Message: "'tax' is not defined"})
		if len(res.Diagnostics) != 3 {
			t.Errorf("want 3 diagnostics, got:\n%s", formatDiags(res.Diagnostics))
		}
		wantCounts(t, res, map[string]int{"summary.problems": 3, "summary.errors": 2, "summary.warnings": 1})
	})

	t.Run("format check then format", func(t *testing.T) {
		dir := fixture(t, "javascript/tests")
		h := newHost(t, dir)
		check := call(t, h, "javascript.format_check", nil)
		wantOK(t, check, false)
		wantFiles(t, check, "math.js", "math.test.js")

		wantOK(t, call(t, h, "javascript.format", map[string]any{"path": "math.js"}), true)
		data, err := os.ReadFile(filepath.Join(dir, "math.js"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), "\"use strict\";") {
			t.Errorf("math.js not reformatted:\n%s", data)
		}
		again := call(t, h, "javascript.format_check", nil)
		wantFiles(t, again, "math.test.js")
	})

	t.Run("run passes arguments and reports uncaught errors", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "echo.js"), "console.log(JSON.stringify(process.argv.slice(2)));\n")
		writeFile(t, filepath.Join(dir, "throw.js"), "'use strict';\n\nnull.length;\n")
		h := newHost(t, dir)
		res := call(t, h, "javascript.run", map[string]any{"script": "echo.js", "args": []any{"a", "b c"}})
		wantOK(t, res, true)
		if res.Stdout != "[\"a\",\"b c\"]\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}
		bad := call(t, h, "javascript.run", map[string]any{"script": "throw.js"})
		wantOK(t, bad, false)
		wantDiagnostic(t, bad.Diagnostics, diag{File: "throw.js", Line: 3, Column: 6, Severity: "error", Message: "Cannot read properties of null (reading 'length')"})
	})
}
