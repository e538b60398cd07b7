package difftest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/plugins/lsp"
)

// TestGenericTargets: a declaration is generic by its own type
// parameters, not by the generic types of its parameters, which
// csharp-ls's method names carry ("Compress(ref QuickList<int> list)").
// Found on bepuphysics2, where every "generic" target was such a method.
func TestGenericTargets(t *testing.T) {
	ws := t.TempDir()
	src := "class Batch\n{\n    void Compress(ref QuickList<int> list) { }\n    void Execute<TCallbacks>(ref TCallbacks callbacks) { }\n    void Sort(List<int> a, int b) { }\n}\n"
	if err := os.WriteFile(filepath.Join(ws, "Batch.cs"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Raw{lang: Languages["csharp"], ws: ws, mappers: map[string]*lsp.Mapper{}}
	method := lsp.SymbolKind(6)
	for _, tc := range []struct {
		name      string
		line, col int
		want      bool
	}{
		{"Compress(ref QuickList<int> list)", 3, 10, false},
		{"Execute<TCallbacks>(ref TCallbacks callbacks)", 4, 10, true},
		{"Sort(List<int> a, int b)", 5, 10, false},
		{"QuickList<T>", 1, 7, true},
	} {
		d := Decl{Name: tc.name, Kind: method, Loc: Loc{File: "Batch.cs", Line: tc.line, Column: tc.col}}
		if got := (&Index{}).generic(r, d); got != tc.want {
			t.Errorf("generic(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
