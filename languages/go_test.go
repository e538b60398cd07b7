package languages_test

import (
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "go", "gofmt", "staticcheck")

	t.Run("build reports compile errors", func(t *testing.T) {
		dir := fixture(t, "go/broken")
		res := call(t, newHost(t, dir), "go.build", nil)
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.go", Line: 6, Column: 14, Severity: "error", Message: "undefined: greeting"})
		wantCounts(t, res, map[string]int{"errors": 1})
	})

	t.Run("build leaves no binary", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/app\n\ngo 1.22\n")
		writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
		writeFile(t, filepath.Join(dir, "tool", "main.go"), "package main\n\nfunc main() {}\n")
		wantOK(t, call(t, newHost(t, dir), "go.build", nil), true)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 3 {
			t.Errorf("go.build wrote files: %v", entries)
		}
	})

	t.Run("vet and staticcheck", func(t *testing.T) {
		dir := fixture(t, "go/lint")
		h := newHost(t, dir)

		vet := call(t, h, "go.vet", nil)
		wantOK(t, vet, false)
		wantDiagnostic(t, vet.Diagnostics, diag{File: "main.go", Line: 7, Column: 14, Severity: "warning", Message: "format %d has arg name of wrong type string"})
		wantCounts(t, vet, map[string]int{"problems": 1})

		lint := call(t, h, "go.lint", nil)
		wantOK(t, lint, false)
		wantDiagnostic(t, lint.Diagnostics, diag{File: "main.go", Line: 7, Column: 13, Severity: "warning", Code: "SA5009", Message: "Printf format %d has arg #1 of wrong type string"})
		wantDiagnostic(t, lint.Diagnostics, diag{File: "main.go", Line: 10, Column: 6, Severity: "warning", Code: "U1000", Message: "func unused is unused"})
		wantCounts(t, lint, map[string]int{"problems": 2})
	})

	t.Run("vet reports type errors", func(t *testing.T) {
		res := call(t, newHost(t, fixture(t, "go/broken")), "go.vet", nil)
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.go", Line: 6, Column: 14, Severity: "warning", Message: "undefined: greeting"})
	})

	t.Run("fmt check then fmt", func(t *testing.T) {
		dir := fixture(t, "go/lint")
		// Written here rather than kept in testdata so that gofmt -l over
		// the repository stays clean.
		writeFile(t, filepath.Join(dir, "ugly.go"), "package main\n\nfunc  ugly( )  int {\nreturn 1}\n")
		h := newHost(t, dir)

		// gofmt -l exits 0, but a check that lists a file failed: one
		// verdict (issue 25 item 13).
		check := call(t, h, "go.fmt_check", nil)
		wantOK(t, check, false)
		wantFiles(t, check, "ugly.go")
		if why := check.Failure("go.fmt_check", true); why != "go.fmt_check: 1 files would change: ugly.go" {
			t.Errorf("failure reason %q", why)
		}
		before, err := os.ReadFile(filepath.Join(dir, "ugly.go"))
		if err != nil {
			t.Fatal(err)
		}

		fmtRes := call(t, h, "go.fmt", map[string]any{"path": "ugly.go"})
		wantOK(t, fmtRes, true)
		wantCounts(t, fmtRes, map[string]int{"changed": 1})
		after, err := os.ReadFile(filepath.Join(dir, "ugly.go"))
		if err != nil {
			t.Fatal(err)
		}
		if string(after) == string(before) {
			t.Errorf("go.fmt left ugly.go unchanged")
		}
		wantFiles(t, call(t, h, "go.fmt_check", nil))
	})

	t.Run("test counts and failures", func(t *testing.T) {
		dir := fixture(t, "go/tests")
		h := newHost(t, dir)

		res := call(t, h, "go.test", map[string]any{"count": 1})
		wantOK(t, res, false)
		wantTests(t, res, 2, 1, 1, "TestSub")
		if f := res.Tests.Failures[0]; f.File != "calc_test.go" || f.Line != 19 || f.Message != "Sub(5, 3) = 8, want 2" {
			t.Errorf("failure = %+v, want calc_test.go:19 with the t.Errorf message", f)
		}
		wantDiagnostic(t, res.Diagnostics, diag{File: "calc_test.go", Line: 19, Severity: "error", Message: "TestSub: Sub(5, 3) = 8, want 2"})

		only := call(t, h, "go.test", map[string]any{"run": "^TestAdd"})
		wantOK(t, only, true)
		wantTests(t, only, 2, 0, 0)
	})

	// A test run that fails before any test runs says why (issue 25
	// item 11).
	t.Run("test that fails to build says why", func(t *testing.T) {
		dir := fixture(t, "go/tests")
		writeFile(t, filepath.Join(dir, "broken_test.go"), "package calc\n\nvar _ = missing\n")
		res := call(t, newHost(t, dir), "go.test", map[string]any{"count": 1})
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "broken_test.go", Line: 3, Column: 9, Severity: "error", Message: "undefined: missing"})
		// The package that did not build is the one failure (its tests
		// never ran), and the reason is its build error.
		if res.Tests == nil || res.Tests.Failed != 1 || res.Tests.Passed != 0 {
			t.Errorf("tests = %+v, want the package's build failure alone", res.Tests)
		}
		if why := res.Failure("go.test", false); !strings.Contains(why, "broken_test.go:3: undefined: missing") {
			t.Errorf("failure reason %q does not name the build error", why)
		}
	})

	t.Run("run passes program arguments", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/echo\n\ngo 1.22\n")
		writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(os.Args[1:]) }\n")
		res := call(t, newHost(t, dir), "go.run", map[string]any{"args": []any{"a", "b c"}})
		wantOK(t, res, true)
		if res.Stdout != "[a b c]\n" {
			t.Errorf("stdout = %q, want %q", res.Stdout, "[a b c]\n")
		}
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
