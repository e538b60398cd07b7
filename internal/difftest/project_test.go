package difftest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSourceFilesProjectScope holds the harness to the server's project:
// psf/requests includes only src/requests in [tool.pyright], and pyright
// never lists the symbols of docs/ or tests/ in workspace/symbol, so the
// harness waited forever for a probe in docs/; ky's tsconfig.json includes
// only source/.
func TestSourceFilesProjectScope(t *testing.T) {
	tests := []struct {
		name  string
		lang  string
		files map[string]string
		want  []string
	}{
		{"pyproject include", "python", map[string]string{
			"pyproject.toml":       "[project]\nname = \"x\"\n[tool.pyright]\ninclude = [\"src/pkg\"]\n",
			"docs/conf.py":         "",
			"src/pkg/a.py":         "",
			"src/pkg/sub/b.py":     "",
			"src/pkgother/c.py":    "",
			"tests/test_a.py":      "",
			"src/pkg/__init__.pyi": "",
		}, []string{"src/pkg/a.py", "src/pkg/sub/b.py"}},
		{"pyrightconfig wins", "python", map[string]string{
			"pyrightconfig.json": "{\n  // comment\n  \"include\": [\"lib\",],\n}\n",
			"pyproject.toml":     "[tool.pyright]\ninclude = [\"src\"]\n",
			"lib/a.py":           "",
			"src/b.py":           "",
		}, []string{"lib/a.py"}},
		{"no pyright section", "python", map[string]string{
			"pyproject.toml": "[project]\nname = \"x\"\n",
			"a.py":           "",
			"tests/b.py":     "",
		}, []string{"a.py", "tests/b.py"}},
		{"tsconfig include with globs", "typescript", map[string]string{
			"tsconfig.json":      "{\"extends\": \"x\", /* c */ \"include\": [\"source/**/*\", \"types/*.d.ts\"], \"compilerOptions\": {\"outDir\": \"//not a comment\"}}",
			"source/a.ts":        "",
			"source/core/b.ts":   "",
			"types/g.d.ts":       "",
			"test/a.ts":          "",
			"node_modules/x.ts":  "",
			"sourcemaps/none.ts": "",
		}, []string{"source/a.ts", "source/core/b.ts", "types/g.d.ts"}},
		{"tsconfig without include", "typescript", map[string]string{
			"tsconfig.json": "{\"compilerOptions\": {}}",
			"src/a.ts":      "",
			"test/b.ts":     "",
		}, []string{"src/a.ts", "test/b.ts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for rel, content := range tt.files {
				p := filepath.Join(ws, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := SourceFiles(ws, Languages[tt.lang], 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("SourceFiles = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSourceFilesBadConfig(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "tsconfig.json"), []byte("{\"include\": [1]}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SourceFiles(ws, Languages["typescript"], 0); err == nil {
		t.Fatal("a tsconfig.json whose include is not strings was accepted")
	}
}

// TestAnonymous: typescript-language-server's names of anonymous
// functions are no targets by name.
func TestAnonymous(t *testing.T) {
	for name, want := range map[string]bool{"<function>": true, "<class>": true, "ky.#retryFromError() callback": true,
		"#retryFromError": false, "Options": false, "FromResult<T>": false, "(*T).M": false} {
		if got := anonymous(name); got != want {
			t.Errorf("anonymous(%q) = %v, want %v", name, got, want)
		}
	}
}
