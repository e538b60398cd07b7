package languages_test

import (
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"path/filepath"
	"testing"
)

func TestPythonTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "python3", "pyright")

	t.Run("check reports syntax errors", func(t *testing.T) {
		dir := fixture(t, "python/broken")
		res := call(t, newHost(t, dir), "python.check", nil)
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "syntax.py", Line: 5, Severity: "error", Message: "SyntaxError: '(' was never closed"})
		wantCounts(t, res, map[string]int{"errors": 1})
	})

	t.Run("typecheck with pyright", func(t *testing.T) {
		dir := fixture(t, "python/typed")
		res := call(t, newHost(t, dir), "python.typecheck", nil)
		wantOK(t, res, false)
		file := "app.py"
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 5, Column: 14, Severity: "error", Code: "reportAssignmentType", Message: `Type "Literal['three']" is not assignable to declared type "int"`})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 6, Column: 22, Severity: "error", Code: "reportUndefinedVariable", Message: `"undefined_name" is not defined`})
		if got, want := res.Outputs["errors"], 2; !equalNumber(got, want) {
			t.Errorf("errors = %v, want %d", got, want)
		}
		if got := res.Outputs["warnings"]; !equalNumber(got, 0) {
			t.Errorf("warnings = %v, want 0", got)
		}
	})

	t.Run("unittest counts and tracebacks", func(t *testing.T) {
		dir := fixture(t, "python/tests")
		h := newHost(t, dir)
		res := call(t, h, "python.test", nil)
		wantOK(t, res, false)
		wantCounts(t, res, map[string]int{"ran.tests": 5})
		wantTests(t, res, 2, 2, 1, "test_calc.CalcTest.test_divide", "test_calc.CalcTest.test_sub")
		file := "test_calc.py"
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 14, Severity: "error", Message: "AssertionError: 8 != 2"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 17, Severity: "error", Message: "ZeroDivisionError: division by zero"})

		only := call(t, h, "python.test", map[string]any{"pattern": "test_add"})
		wantOK(t, only, true)
		wantTests(t, only, 2, 0, 0)
	})

	t.Run("run passes arguments and reports tracebacks", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "echo.py"), "import sys\n\nprint(sys.argv[1:])\n")
		writeFile(t, filepath.Join(dir, "crash.py"), "def parse(s):\n    return int(s)\n\n\nparse(\"x\")\n")
		h := newHost(t, dir)
		res := call(t, h, "python.run", map[string]any{"script": "echo.py", "args": []any{"a", "b c"}})
		wantOK(t, res, true)
		if res.Stdout != "['a', 'b c']\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}
		bad := call(t, h, "python.run", map[string]any{"script": "crash.py"})
		wantOK(t, bad, false)
		// python3 reports the script as dir + the "./crash.py" it was given.
		wantDiagnostic(t, bad.Diagnostics, diag{File: "crash.py", Line: 2, Severity: "error", Message: "ValueError: invalid literal for int() with base 10: 'x'"})
	})
}

// pytest, ruff and black cannot be installed on this machine (no PyPI), so
// their parsers are tested on output samples in the real tools' formats.
func TestPythonSamples(t *testing.T) {
	t.Parallel()

	t.Run("pytest", func(t *testing.T) {
		// Sample: pytest 8 with -q --tb=line -rfE on a failing suite.
		out := `F.s.E                                                                    [100%]
==================================== ERRORS ====================================
_________________________ ERROR at setup of test_db ___________________________
/work/proj/tests/conftest.py:9: RuntimeError: no database
=================================== FAILURES ===================================
/work/proj/tests/test_calc.py:14: assert 8 == 2
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_sub - assert 8 == 2
ERROR tests/test_db.py::test_db - RuntimeError: no database
1 failed, 2 passed, 1 skipped, 1 error in 0.12s
`
		res := sample(t, "python.pytest", out, "", 1)
		wantTests(t, res, 2, 2, 1, "tests/test_calc.py::test_sub", "tests/test_db.py::test_db")
		wantDiagnostic(t, res.Diagnostics, diag{File: "proj/tests/test_calc.py", Line: 14, Severity: "error", Message: "assert 8 == 2"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "proj/tests/conftest.py", Line: 9, Severity: "error", Message: "RuntimeError: no database"})

		// Sample: an all-green run's summary.
		green := sample(t, "python.pytest", "....                                                                     [100%]\n4 passed in 0.03s\n", "", 0)
		wantTests(t, green, 4, 0, 0)
		if v := green.Outputs["failed"].(map[string]any)["failed"]; v != nil {
			t.Errorf("failed = %v, want null when the summary has no failures", v)
		}
	})

	t.Run("ruff check", func(t *testing.T) {
		// Sample: ruff 0.14 check --output-format concise.
		out := "app.py:1:8: F401 [*] `os` imported but unused\n" +
			"app.py:6:5: F841 Local variable `unused` is assigned to but never used\n" +
			"Found 2 errors.\n[*] 1 fixable with the `--fix` option.\n"
		res := sample(t, "python.lint", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "app.py", Line: 1, Column: 8, Severity: "warning", Code: "F401", Message: "`os` imported but unused"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "app.py", Line: 6, Column: 5, Severity: "warning", Code: "F841", Message: "Local variable `unused` is assigned to but never used"})
		wantCounts(t, res, map[string]int{"found.problems": 2})
	})

	t.Run("format check", func(t *testing.T) {
		// Sample: ruff format --check.
		ruff := sample(t, "python.format_check", "Would reformat: src/app.py\n1 file would be reformatted, 3 files already formatted\n", "", 1)
		// Sample: black --check (the fallback) writes to stderr.
		black := sample(t, "python.format_check", "", "would reformat src/app.py\n\nOh no! 💥 💔 💥\n1 file would be reformatted, 3 files would be left unchanged.\n", 1)
		wantFiles(t, ruff, "src/app.py")
		wantFiles(t, black, "src/app.py")
	})
}

func equalNumber(v any, want int) bool {
	n, ok := number(v)
	return ok && n == want
}
