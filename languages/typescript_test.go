package languages_test

import (
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os"
	"path/filepath"
	"testing"
)

func TestTypeScriptTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "tsc", "node", "npm", "eslint", "prettier")

	t.Run("typecheck and build report type errors", func(t *testing.T) {
		dir := fixture(t, "typescript/broken")
		h := newHost(t, dir)
		for _, id := range []string{"typescript.typecheck", "typescript.build"} {
			res := call(t, h, id, map[string]any{"tsconfig": "tsconfig.json"})
			wantOK(t, res, false)
			wantDiagnostic(t, res.Diagnostics, diag{File: "src/main.ts", Line: 5, Column: 7, Severity: "error", Code: "TS2322", Message: "Type 'string' is not assignable to type 'number'"})
			wantDiagnostic(t, res.Diagnostics, diag{File: "src/main.ts", Line: 6, Column: 29, Severity: "error", Code: "TS2304", Message: "Cannot find name 'missing'"})
			wantCounts(t, res, map[string]int{"errors": 2})
		}
		if _, err := os.Stat(filepath.Join(dir, "dist", "main.js")); err != nil {
			t.Errorf("typescript.build emitted nothing: %v", err)
		}
	})

	t.Run("lint without typescript-eslint reports the parse error", func(t *testing.T) {
		dir := fixture(t, "typescript/broken")
		res := call(t, newHost(t, dir), "typescript.lint", map[string]any{"path": "src"})
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/main.ts", Line: 1, Column: 25, Severity: "error", Message: "Parsing error: Unexpected token :"})
		wantCounts(t, res, map[string]int{"summary.problems": 1, "summary.errors": 1, "summary.warnings": 0})
	})

	t.Run("npm test counts", func(t *testing.T) {
		dir := fixture(t, "typescript/tests")
		res := call(t, newHost(t, dir), "typescript.test", nil)
		wantOK(t, res, false)
		wantTests(t, res, 1, 1, 1, "subtracts")
	})

	t.Run("format check then format", func(t *testing.T) {
		dir := fixture(t, "typescript/tests")
		h := newHost(t, dir)
		clean := call(t, h, "typescript.format_check", nil)
		wantOK(t, clean, true)
		wantFiles(t, clean)

		writeFile(t, filepath.Join(dir, "src", "ugly.ts"), "export const  x:number=1\n")
		check := call(t, h, "typescript.format_check", nil)
		wantOK(t, check, false)
		wantFiles(t, check, "src/ugly.ts")
		wantOK(t, call(t, h, "typescript.format", map[string]any{"path": "src/ugly.ts"}), true)
		data, err := os.ReadFile(filepath.Join(dir, "src", "ugly.ts"))
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != "export const x: number = 1;\n" {
			t.Errorf("formatted ugly.ts = %q", data)
		}
	})
}
