package languages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/builtin"
)

func TestCTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "gcc", "make")

	t.Run("check reports errors and warnings", func(t *testing.T) {
		dir := fixture(t, "c/broken")
		res := call(t, newHost(t, dir), "c.check", map[string]any{"path": "main.c", "std": "c17"})
		wantOK(t, res, false)
		// gcc quotes names with ‘’ or '' depending on the locale.
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 5, Column: 20, Severity: "error", Message: "undeclared (first use in this function)"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 4, Column: 9, Severity: "warning", Code: "-Wunused-variable", Message: "unused variable"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 5, Column: 20, Severity: "info", Message: "each undeclared identifier is reported only once"})
		wantCounts(t, res, map[string]int{"errors": 1, "warnings": 1})
	})

	t.Run("build and test with make", func(t *testing.T) {
		dir := fixture(t, "c/project")
		h := newHost(t, dir)
		build := call(t, h, "c.build", map[string]any{"target": "calc_test"})
		wantOK(t, build, true)
		wantCounts(t, build, map[string]int{"errors": 0, "warnings": 0})

		if _, err := exec.LookPath("ctest"); err == nil {
			t.Log("ctest is installed, so c.test runs ctest, which this Makefile project does not use; the make fallback is covered only where ctest is absent")
			return
		}
		res := call(t, h, "c.test", nil)
		if !res.UsedFallback {
			t.Errorf("c.test did not use its make fallback: %v", res.Command)
		}
		wantOK(t, res, false)
		wantTests(t, res, 2, 1, 0)
	})
}

// ctest, clang-format and clang-tidy are not installed on this machine;
// their parsers are tested on output samples in the real tools' formats.
func TestCSamples(t *testing.T) {
	t.Parallel()

	t.Run("ctest", func(t *testing.T) {
		// Sample: ctest 3.25 --output-on-failure with one failing test.
		out := `Test project /work/proj/build
    Start 1: calc_add
1/3 Test #1: calc_add .........................   Passed    0.00 sec
    Start 2: calc_sub
2/3 Test #2: calc_sub .........................***Failed    0.00 sec
FAIL sub: got 8, want 2
0 passed, 1 failed
    Start 3: calc_mul
3/3 Test #3: calc_mul .........................   Passed    0.00 sec

67% tests passed, 1 tests failed out of 3

Total Test time (real) =   0.01 sec

The following tests FAILED:
	  2 - calc_sub (Failed)
Errors while running CTest
`
		res := sample(t, "c.test", out, "", 8)
		wantCounts(t, res, map[string]int{"tests.percent": 67, "tests.failed": 1, "tests.total": 3})
		wantTests(t, res, 2, 1, 0, "calc_sub")
	})

	t.Run("clang-format", func(t *testing.T) {
		// Sample: clang-format 14 --dry-run --Werror.
		out := "main.c:3:17: error: code should be clang-formatted [-Wclang-format-violations]\nint main(void){\n                ^\n"
		res := sample(t, "c.format_check", "", out, 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 3, Column: 17, Severity: "error", Code: "-Wclang-format-violations", Message: "code should be clang-formatted"})
		wantFiles(t, res, "main.c")
		wantCounts(t, res, map[string]int{"violations": 1})
	})

	t.Run("clang-tidy", func(t *testing.T) {
		// Sample: clang-tidy 14 --quiet.
		out := `/work/proj/src/buf.c:12:5: warning: Potential leak of memory pointed to by 'p' [clang-analyzer-unix.Malloc]
    return 0;
    ^
/work/proj/src/buf.c:9:15: note: Memory is allocated
    char *p = malloc(16);
              ^~~~~~~~~~
/work/proj/src/buf.c:20:10: warning: 'atoi' used to convert a string to an integer value, but function will not report conversion errors; consider using 'strtol' instead [cert-err34-c]
`
		res := sample(t, "c.lint", out, "", 0)
		wantDiagnostic(t, res.Diagnostics, diag{File: "proj/src/buf.c", Line: 12, Column: 5, Severity: "warning", Code: "clang-analyzer-unix.Malloc", Message: "Potential leak of memory pointed to by 'p'"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "proj/src/buf.c", Line: 9, Column: 15, Severity: "info", Message: "Memory is allocated"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "proj/src/buf.c", Line: 20, Column: 10, Severity: "warning", Code: "cert-err34-c", Message: "consider using 'strtol' instead"})
		wantCounts(t, res, map[string]int{"warnings": 2})
	})
}

// TestClangd runs the c spec's semantic block against the real clangd
// (Debian bookworm's, unpacked by scripts/install-tools.sh) on a fixture
// with a compile_flags.txt.
func TestClangd(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "clangd")
	dir := fixture(t, "c/clangd")
	// The compilation database names absolute directories, so it is
	// written for the copy; the background index covers what it lists.
	var cdb []map[string]any
	for _, f := range []string{"main.c", "shape.c"} {
		cdb = append(cdb, map[string]any{"directory": dir, "file": f, "arguments": []string{"cc", "-std=c17", "-Wall", "-c", f}})
	}
	raw, err := json.Marshal(cdb)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "compile_commands.json"), string(raw))
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace = dir
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	t.Run("file_symbols", func(t *testing.T) {
		var out struct {
			Symbols []struct {
				Name string
				Kind string
				Line int
			}
		}
		decode(t, call(t, h, "c.file_symbols", map[string]any{"file": "shape.c"}), &out)
		got := fmt.Sprint(out.Symbols)
		if got != "[{square_area function 3} {total_area function 7}]" {
			t.Errorf("symbols = %s", got)
		}
	})

	t.Run("find_references", func(t *testing.T) {
		var out struct {
			References []struct {
				File         string
				Line, Column int
			}
		}
		decode(t, call(t, h, "c.find_references", map[string]any{"symbol": "square_area"}), &out)
		got := fmt.Sprint(out.References)
		if got != "[{main.c 12 17} {shape.c 10 10}]" {
			t.Errorf("references = %s", got)
		}
	})

	t.Run("diagnostics", func(t *testing.T) {
		for _, in := range []map[string]any{{"file": "main.c"}, {}} {
			res := call(t, h, "c.diagnostics", in)
			wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 6, Column: 9, Severity: "error", Code: "undeclared_var_use", Message: "Use of undeclared identifier 'missing'"})
			wantDiagnostic(t, res.Diagnostics, diag{File: "main.c", Line: 11, Column: 6, Severity: "warning", Code: "-Wunused-variable", Message: "Unused variable 'unused'"})
			if len(res.Diagnostics) != 2 || res.Counts.Error != 1 || res.Counts.Warning != 1 {
				t.Errorf("%v: want exactly these two, got:\n%s", in, formatDiags(res.Diagnostics))
			}
			var out struct{ Complete bool }
			decode(t, res, &out)
			if !out.Complete {
				t.Errorf("%v: complete = false: %s", in, res.Data)
			}
		}
	})
}

// decode reads a semantic operation's result.
func decode(t *testing.T, res *registry.Result, v any) {
	t.Helper()
	if err := json.Unmarshal(res.Data, v); err != nil {
		t.Fatalf("decode %s: %v", res.Data, err)
	}
}
