package semantic

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/plugins/lsp"
)

// FuzzGoOutline feeds workspace files of any content to the in-process Go
// outline, which reads every file a server reports a reference in: it must
// not panic, and every range must lie inside the file, start before it
// ends and contain its name.
func FuzzGoOutline(f *testing.F) {
	for _, name := range []string{"calc/calc.go", "circle/circle.go", "shape/shape.go", "broken/broken.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "gomod", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"package p",
		"package p\nfunc (",
		"package p\nfunc (r *T[A, B]) M() {}\ntype T[A, B any] struct{ *x.Y; z.W[int]; A }\n",
		"package p\ntype I interface{ ~int | string; M(); io.Reader }\n",
		"package p\nvar a, _, c = 1, 2, 3\nconst (\n\tX = iota\n\tY\n)\n",
		"package p\n// é𝄞\nfunc 𝄞é() { x := \"𝄞\"; _ = x }\n",
		"package p\r\nfunc F() {\r\n}\r\n",
		"package p\nfunc (a, b T) M()\ntype T = struct{ f func() }\n",
		"package p\nfunc () M() {}\nfunc (...T) N() {}\n",
		"\xff\xfepackage p\nfunc F(\x00) {}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		m := lsp.NewMapper(content)
		var check func(syms []lsp.DocumentSymbol)
		check = func(syms []lsp.DocumentSymbol) {
			for _, s := range syms {
				for _, r := range []lsp.Range{s.Range, s.SelectionRange} {
					if r.End.Before(r.Start) {
						t.Fatalf("%s: range %v ends before it starts", s.Name, r)
					}
					for _, p := range []lsp.Position{r.Start, r.End} {
						if _, err := m.Offset(p); err != nil {
							t.Fatalf("%s: position %v is outside the file: %v", s.Name, p, err)
						}
					}
				}
				if s.SelectionRange != (lsp.Range{}) && s.Range != (lsp.Range{}) && (s.SelectionRange.Start.Before(s.Range.Start) || s.Range.End.Before(s.SelectionRange.End)) {
					t.Fatalf("%s: name %v outside its declaration %v", s.Name, s.SelectionRange, s.Range)
				}
				check(s.Children)
			}
		}
		check(goOutline(content))
	})
}
