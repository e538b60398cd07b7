package languages_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

func TestRustTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "cargo", "rustc", "cargo-clippy", "rustfmt")

	t.Run("check and build report type errors", func(t *testing.T) {
		h := newHost(t, fixture(t, "rust/broken"))
		for _, id := range []string{"rust.check", "rust.build"} {
			res := call(t, h, id, nil)
			wantOK(t, res, false)
			wantDiagnostic(t, res.Diagnostics, diag{File: "src/main.rs", Line: 3, Column: 22, Severity: "error", Code: "E0308", Message: "mismatched types"})
			wantCounts(t, res, map[string]int{"errors": 1, "warnings": 0})
		}
	})

	// One copy of the crate shared by the remaining steps, so that cargo
	// reuses its target directory.
	dir := fixture(t, "rust/calc")
	h := newHost(t, dir)

	t.Run("clippy", func(t *testing.T) {
		res := call(t, h, "rust.clippy", nil)
		wantOK(t, res, true)
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/lib.rs", Line: 5, Column: 5, Severity: "warning", Message: "unneeded `return` statement"})
		wantCounts(t, res, map[string]int{"errors": 0, "warnings": 1})
	})

	t.Run("test counts and panics", func(t *testing.T) {
		res := call(t, h, "rust.test", nil)
		wantOK(t, res, false)
		wantTests(t, res, 1, 1, 1, "tests::subtracts")
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/lib.rs", Line: 23, Column: 9, Severity: "error", Message: "assertion `left == right` failed"})

		only := call(t, h, "rust.test", map[string]any{"filter": "adds"})
		wantOK(t, only, true)
		wantCounts(t, only, map[string]int{"tests.filtered": 2})
		wantTests(t, only, 1, 0, 0)
	})

	t.Run("fmt check then fmt", func(t *testing.T) {
		lib := filepath.Join(dir, "src", "lib.rs")
		orig, err := os.ReadFile(lib)
		if err != nil {
			t.Fatal(err)
		}
		// Unformatted code is made here so testdata stays rustfmt-clean.
		writeFile(t, lib, string(orig)+"\npub fn   mul(a:i32,b:i32)->i32{a*b}\n")
		check := call(t, h, "rust.fmt_check", nil)
		wantOK(t, check, false)
		wantCounts(t, check, map[string]int{"hunks": 1})
		wantFiles(t, check, "src/lib.rs")
		// rustfmt colours its diff even into a pipe unless TERM says not.
		if strings.Contains(check.Stdout+check.Stderr, "\x1b[") {
			t.Errorf("rust.fmt_check output carries colour codes: %q", check.Stdout)
		}

		wantOK(t, call(t, h, "rust.fmt", nil), true)
		wantOK(t, call(t, h, "rust.fmt_check", nil), true)
	})

	t.Run("run passes program arguments", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "Cargo.toml"), "[package]\nname = \"echo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
		writeFile(t, filepath.Join(dir, "src", "main.rs"), "fn main() {\n    let args: Vec<String> = std::env::args().skip(1).collect();\n    println!(\"{:?}\", args);\n}\n")
		res := call(t, newHost(t, dir), "rust.run", map[string]any{"args": []any{"a", "b c"}})
		wantOK(t, res, true)
		if res.Stdout != "[\"a\", \"b c\"]\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}
	})
}
