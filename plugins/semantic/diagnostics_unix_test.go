//go:build unix

package semantic

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// pyrightShipped is the python spec's pyright: it checks only the files a
// client opens (no diagnosticMode setting).
var pyrightShipped = Config{
	Command:      "pyright-langserver",
	Args:         []string{"--stdio"},
	ReadyMessage: `Found \d+ source files?|No source files found`,
	RootMarkers:  []string{"pyproject.toml"},
	LanguageIDs:  map[string]string{".py": "python"},
}

// TestWorkspaceDiagnosticsComplete: errors in files nobody opened are all
// reported, by pyright (which pushes diagnostics of open files only) and
// typescript-language-server (the same), in the one diagnostic shape.
func TestWorkspaceDiagnosticsComplete(t *testing.T) {
	t.Run("pyright", func(t *testing.T) {
		requireTool(t, "pyright-langserver")
		root := writeTree(t, map[string]string{
			"pyproject.toml":  "[project]\nname = \"w\"\n",
			"a.py":            "x: int = \"one\"\n",
			"pkg/__init__.py": "",
			"pkg/b.py":        "def f() -> int:\n    return \"s\"\n\nprint(undefined_name)\n",
			"clean.py":        "y = 1\n",
			"deep/er/d.py":    "import os\nz: str = 3\n",
		})
		// Hostile files: a symlink to a file with errors outside the
		// workspace, and a named pipe, which would block a reader.
		outside := writeTree(t, map[string]string{"secret.py": "s: int = \"leaked\"\n"})
		if err := os.Symlink(filepath.Join(outside, "secret.py"), filepath.Join(root, "link.py")); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(root, "pipe.py"), 0o644); err != nil {
			t.Fatal(err)
		}
		e := openEngine(t, root, "python", pyrightShipped)
		out := mustInvoke(t, e, "diagnostics", map[string]any{"minSeverity": "error"})
		want := []string{"a.py:1:10 error", "deep/er/d.py:2:10 error", "pkg/b.py:2:12 error", "pkg/b.py:4:7 error"}
		if got := diagnosticLines(t, out); !slices.Equal(got, want) {
			t.Errorf("diagnostics = %q, want %q\n%s", got, want, dump(out))
		}
		if out["complete"] != true || get(t, out, "counts.error") != 4 || get(t, out, "counts.warning") != 0 {
			t.Errorf("complete/counts: %s", dump(out))
		}
	})
	t.Run("typescript-language-server", func(t *testing.T) {
		requireTool(t, "typescript-language-server")
		root := writeTree(t, map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}, "include": ["src"]}`,
			"package.json":  `{"name": "w", "private": true}`,
			"src/a.ts":      "export const a: number = \"one\";\n",
			"src/b.ts":      "export function f(): string {\n  return 1;\n}\nconsole.log(missing);\n",
			"src/clean.ts":  "export const c = 1;\n",
			"src/deep/d.ts": "import { a } from \"../a\";\nexport const d: string = a;\n",
		})
		e := openEngine(t, root, "typescript", tsConfig)
		out := mustInvoke(t, e, "diagnostics", map[string]any{})
		want := []string{"src/a.ts:1:14 error", "src/b.ts:2:3 error", "src/b.ts:4:13 error", "src/deep/d.ts:2:14 error"}
		if got := diagnosticLines(t, out); !slices.Equal(got, want) {
			t.Errorf("diagnostics = %q, want %q\n%s", got, want, dump(out))
		}
		if out["complete"] != true || get(t, out, "counts.error") != 4 {
			t.Errorf("complete/counts: %s", dump(out))
		}
		for _, d := range out["diagnostics"].([]any) {
			m := d.(map[string]any)
			if m["source"] == nil || m["code"] == nil || m["end_line"] == nil || strings.HasPrefix(m["path"].(string), "/") {
				t.Errorf("diagnostic not in the one shape: %v", m)
			}
		}
	})
}
