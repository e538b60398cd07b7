package semantic

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// printfGo has a vet (printf analyzer) warning and no type error: gopls
// publishes it in a later pass than the type checker's diagnostics.
const printfGo = "package printf\n\nimport \"fmt\"\n\nfunc Say() {\n\tfmt.Printf(\"%d\\n\", \"x\")\n}\n"

// TestGoplsDiagnosticsIncludeAnalysis: every diagnostics call, of the
// file or of the workspace, answers with gopls's analyzer warnings, not
// only what its type checker published first, or says it is incomplete.
func TestGoplsDiagnosticsIncludeAnalysis(t *testing.T) {
	requireTool(t, "gopls")
	root := writeTree(t, map[string]string{
		"go.mod":           "module example.com/printf\n\ngo 1.22\n",
		"printf/printf.go": printfGo,
	})
	e := openEngine(t, root, "go", goplsConfig)
	for i := range 20 {
		in := map[string]any{"file": "printf/printf.go"}
		if i%4 == 3 {
			in = map[string]any{}
		}
		out := mustInvoke(t, e, "diagnostics", in)
		var printf bool
		for _, d := range out["diagnostics"].([]any) {
			m := d.(map[string]any)
			printf = printf || m["path"] == "printf/printf.go" && strings.Contains(m["message"].(string), "%d")
		}
		if !printf && out["complete"] != false {
			t.Errorf("call %d %v: no printf warning and complete %v: %s", i, in, out["complete"], dump(out))
		}
		if !printf {
			t.Errorf("call %d %v: no printf warning: %s", i, in, dump(out))
		}
	}
}

// TestGoplsSeesNewPackageDirectory: a package directory created after the
// server started (b/b.go calling lib.Add), then renamed and deleted, is
// seen by the next find_references as a fresh server would.
func TestGoplsSeesNewPackageDirectory(t *testing.T) {
	requireTool(t, "gopls")
	root := writeTree(t, map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"a/a.go":     "package a\n\nimport \"example.com/m/lib\"\n\nvar A = lib.Add(1, 2)\n",
	})
	e := openEngine(t, root, "go", goplsConfig)
	refs := func() []string { return referenceLocs(t, e, "Add") }
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13"}) {
		t.Fatalf("before: %v", got)
	}
	const bSrc = "package b\n\nimport \"example.com/m/lib\"\n\nvar B = lib.Add(3, 4)\n"
	if err := os.MkdirAll(filepath.Join(root, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b", "b.go"), []byte(bSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13", "b/b.go:5:13"}) {
		t.Errorf("after creating b/b.go: %v", got)
	}
	// A nested new directory, written in one go.
	if err := os.MkdirAll(filepath.Join(root, "c", "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	dSrc := strings.ReplaceAll(bSrc, "package b", "package d")
	if err := os.WriteFile(filepath.Join(root, "c", "d", "d.go"), []byte(dSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13", "b/b.go:5:13", "c/d/d.go:5:13"}) {
		t.Errorf("after creating c/d/d.go: %v", got)
	}
	// A renamed file, then a deleted directory.
	if err := os.Rename(filepath.Join(root, "b", "b.go"), filepath.Join(root, "b", "bb.go")); err != nil {
		t.Fatal(err)
	}
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13", "b/bb.go:5:13", "c/d/d.go:5:13"}) {
		t.Errorf("after renaming b/b.go to b/bb.go: %v", got)
	}
	if err := os.RemoveAll(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13", "b/bb.go:5:13"}) {
		t.Errorf("after deleting c: %v", got)
	}
}

// TestGoplsFollowsRemovedNestedModule: removing a nested module's go.mod
// makes its packages part of the main module. gopls, warm, went on
// answering from the modules it had loaded (find_references missed the
// package) until it restarted; the engine restarts it after a project
// file changes, so the answer equals a cold one.
func TestGoplsFollowsRemovedNestedModule(t *testing.T) {
	requireTool(t, "gopls")
	root := writeTree(t, map[string]string{
		"go.mod":      "module example.com/m\n\ngo 1.22\n",
		"lib/lib.go":  "package lib\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"a/a.go":      "package a\n\nimport \"example.com/m/lib\"\n\nvar A = lib.Add(1, 2)\n",
		"user/go.mod": "module example.com/user\n\ngo 1.22\n",
		"user/u.go":   "package user\n\nimport \"example.com/m/lib\"\n\nvar U = lib.Add(3, 4)\n",
	})
	e := openEngine(t, root, "go", goplsConfig)
	refs := func() []string { return referenceLocs(t, e, "Add") }
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13"}) {
		t.Fatalf("before: %v", got)
	}
	if err := os.Remove(filepath.Join(root, "user", "go.mod")); err != nil {
		t.Fatal(err)
	}
	if got := refs(); !slices.Equal(got, []string{"a/a.go:5:13", "user/u.go:5:13"}) {
		t.Errorf("after removing user/go.mod: %v", got)
	}
}

// TestGoplsFindSymbolAtCapIsIncomplete: gopls cuts workspace/symbol at 100
// matches without saying so; find_symbol said complete: true with 100 of
// the 120 functions that match.
func TestGoplsFindSymbolAtCapIsIncomplete(t *testing.T) {
	requireTool(t, "gopls")
	var src strings.Builder
	src.WriteString("package lib\n")
	for i := range 120 {
		fmt.Fprintf(&src, "\n// Probe%03d is one of many.\nfunc Probe%03d() {}\n", i, i)
	}
	root := writeTree(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "lib/lib.go": src.String()})
	e := openEngine(t, root, "go", goplsConfig)
	out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Probe", "limit": 1000, "detail": "compact"})
	if total := get(t, out, "total").(int); total != 100 {
		t.Fatalf("gopls answered %d symbols; this test expects its cap of 100", total)
	}
	if get(t, out, "complete") != false || get(t, out, "incomplete") == nil {
		t.Errorf("find_symbol at gopls's cap: complete %v, incomplete %v; want false and a reason", get(t, out, "complete"), get(t, out, "incomplete"))
	}
}

// referenceLocs is find_references of symbol as sorted file:line:col.
func referenceLocs(t *testing.T, e *Engine, symbol string) []string {
	t.Helper()
	out := mustInvoke(t, e, "find_references", map[string]any{"symbol": symbol, "detail": "compact"})
	var locs []string
	for i := range get(t, out, "total").(int) {
		locs = append(locs, locOf(t, out, "references."+strconv.Itoa(i)))
	}
	slices.Sort(locs)
	return locs
}
