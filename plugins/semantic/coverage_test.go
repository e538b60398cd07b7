package semantic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module whose packages the go command cannot list (a go.mod it cannot
// parse here; a requirement it cannot download, as x/tools offline) loads
// nothing in gopls,
// which then answers every query with nothing and no error. Each list
// answer says it is incomplete and why; other answers carry it as a
// warning. The same queries on a module that loads are complete.
func TestListAnswersSayWhenTheServerLoadedNothing(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/shapes\n\ngo 1.22\nbogus directive\n")
	broken := openEngine(t, root, "go", goplsConfig)
	healthy, _ := goEngine(t)

	calls := []struct {
		op    string
		input map[string]any
		list  bool
	}{
		{"find_symbol", map[string]any{"query": "TotalArea"}, true},
		{"file_symbols", map[string]any{"file": "calc/calc.go"}, true},
		{"find_references", map[string]any{"file": "calc/calc.go", "line": 11, "column": 6}, true},
		{"find_implementations", map[string]any{"file": "shape/shape.go", "line": 5, "column": 6}, true},
		{"find_callers", map[string]any{"file": "calc/calc.go", "line": 20, "column": 6}, true},
		{"diagnostics", map[string]any{"file": "calc/calc.go"}, true},
		{"load_status", map[string]any{}, false},
	}
	for _, c := range calls {
		t.Run(c.op, func(t *testing.T) {
			out, err := invoke(t, broken, c.op, c.input)
			if err != nil {
				// Finding nothing by position is an answer too, if it
				// says why.
				if !strings.Contains(err.Error(), "go list ./...") {
					t.Fatalf("%s on the unloadable module: %v, which does not say the module did not load", c.op, err)
				}
				return
			}
			says := func(v any) bool {
				s, _ := v.(string)
				return strings.Contains(s, "loaded no package") && strings.Contains(s, "go list ./...")
			}
			if c.list {
				if out["complete"] != false || !says(out["incomplete"]) {
					t.Errorf("%s on the unloadable module: complete=%v incomplete=%q, want false and why", c.op, out["complete"], out["incomplete"])
				}
				if out["warnings"] != nil {
					t.Errorf("%s says it twice: warnings %v besides incomplete", c.op, out["warnings"])
				}
				ok := mustInvoke(t, healthy, c.op, c.input)
				if ok["complete"] != true || ok["incomplete"] != nil {
					t.Errorf("%s on a module that loads: complete=%v incomplete=%v, want true", c.op, ok["complete"], ok["incomplete"])
				}
				return
			}
			warnings, _ := out["warnings"].([]any)
			if len(warnings) != 1 || !says(warnings[0]) {
				t.Errorf("%s on the unloadable module: warnings %v, want why it loaded nothing", c.op, out["warnings"])
			}
		})
	}
}

// A module with no Go file outside testdata has nothing to load: its
// empty answers are complete.
func TestEmptyModuleIsComplete(t *testing.T) {
	requireTool(t, "gopls")
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/empty\n\ngo 1.22\n")
	if err := os.MkdirAll(filepath.Join(root, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "testdata", "x.go"), "package x\n")
	e := openEngine(t, root, "go", goplsConfig)
	out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "X"})
	if out["complete"] != true {
		t.Errorf("find_symbol in an empty module: %v", dump(out))
	}
}
