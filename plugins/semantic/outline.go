package semantic

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode/utf8"

	"github.com/langhost/langhost/plugins/lsp"
)

// An outline is a file's declarations with their ranges: enough to name
// the member containing a position (find_references' containingMember, a
// symbol's container and kind). Outlines come from the file on disk, never
// from a document left open in the server: Go files are parsed in-process
// the way gopls builds its document symbols, other files are asked of the
// server with one textDocument/documentSymbol request. Either way an
// outline is computed once per file state and kept, with the file's
// content, in a bounded LRU (filecache.go).

// Bounds of the file cache and of reference enrichment.
const (
	maxCachedFiles = 4096
	maxCacheBytes  = 32 << 20
	// enrichWorkers bounds the files read and outlined at once for one
	// query: enough to hide disk latency without starving the server.
	enrichWorkers = 4
	// maxEnriched is how many references of a page get a containing member;
	// the rest are marked (membersTruncated) so that a page of thousands
	// costs no more than reading its files.
	maxEnriched = 200
)

// Symbol kinds of Go declarations, as gopls reports them.
const (
	kindClass     lsp.SymbolKind = 5
	kindMethod    lsp.SymbolKind = 6
	kindField     lsp.SymbolKind = 8
	kindInterface lsp.SymbolKind = 11
	kindFunction  lsp.SymbolKind = 12
	kindVariable  lsp.SymbolKind = 13
	kindConstant  lsp.SymbolKind = 14
	kindStruct    lsp.SymbolKind = 23
)

// outline returns the declarations of a file: f as session.read or a
// document returns it.
func (c *call) outline(ctx context.Context, f fileContent) ([]lsp.DocumentSymbol, error) {
	return c.s.files.outlineOr(f, func() (syms []lsp.DocumentSymbol, err error) {
		if c.s.languageID(f.path) == "go" {
			return goOutline(f.mapper.Content()), nil
		}
		err = c.s.withDocument(ctx, f.path, func(doc *document) error {
			syms, err = c.documentSymbols(ctx, doc)
			return err
		})
		return syms, err
	})
}

// serverSymbols is documentSymbols through the file cache, for read-only
// use: for every language but Go the outline is the server's symbols, so
// a file unchanged since its last outline costs no request. Callers must
// not modify the symbols, which the cache shares.
func (c *call) serverSymbols(ctx context.Context, doc *document) ([]lsp.DocumentSymbol, error) {
	if c.s.languageID(doc.path) == "go" || doc.info == nil {
		return c.documentSymbols(ctx, doc)
	}
	f := fileContent{path: doc.path, info: doc.info, mapper: doc.mapper}
	return c.s.files.outlineOr(f, func() ([]lsp.DocumentSymbol, error) { return c.documentSymbols(ctx, doc) })
}

// symbolsCost estimates the memory of symbols: the struct and its strings.
func symbolsCost(syms []lsp.DocumentSymbol) int {
	n := 0
	for _, s := range syms {
		n += 128 + len(s.Name) + len(s.Detail) + symbolsCost(s.Children)
	}
	return n
}

// goOutline returns the document symbols of a Go file as gopls v0.23
// reports them (golang.DocumentSymbols) without the detail strings: one
// per function, method ("(T).M", "(*T).M"), type, variable and constant,
// with struct fields and interface methods as children. A file that does
// not parse yields what parsed.
func goOutline(content []byte) []lsp.DocumentSymbol {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", content, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	o := goOutliner{content: content, tf: fset.File(f.FileStart)}
	if o.tf == nil {
		return nil
	}
	var syms []lsp.DocumentSymbol
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			rng, ok1 := o.rng(decl)
			sel, ok2 := o.rng(decl.Name)
			if decl.Name.Name == "_" || !ok1 || !ok2 {
				continue // gopls skips declarations without valid positions
			}
			s := lsp.DocumentSymbol{Name: decl.Name.Name, Kind: kindFunction, Range: rng, SelectionRange: sel}
			if decl.Recv != nil {
				s.Kind = kindMethod
				if len(decl.Recv.List) > 0 {
					s.Name = "(" + o.exprString(decl.Recv.List[0].Type) + ")." + s.Name
				}
			}
			syms = append(syms, s)
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					rng, ok1 := o.rng(spec)
					sel, ok2 := o.rng(spec.Name)
					if spec.Name.Name == "_" || !ok1 || !ok2 {
						continue
					}
					s := lsp.DocumentSymbol{Name: spec.Name.Name, Range: rng, SelectionRange: sel}
					s.Kind, s.Children = o.typeDetails(spec.Type)
					syms = append(syms, s)
				case *ast.ValueSpec:
					kind := kindVariable
					if decl.Tok == token.CONST {
						kind = kindConstant
					}
					for _, name := range spec.Names {
						rng, ok1 := o.rng(spec)
						sel, ok2 := o.rng(name)
						if name.Name == "_" || !ok1 || !ok2 {
							continue
						}
						s := lsp.DocumentSymbol{Name: name.Name, Kind: kind, Range: rng, SelectionRange: sel}
						if spec.Type != nil {
							_, s.Children = o.typeDetails(spec.Type)
						}
						syms = append(syms, s)
					}
				}
			}
		}
	}
	return syms
}

type goOutliner struct {
	content []byte
	tf      *token.File
}

func (o *goOutliner) typeDetails(x ast.Expr) (lsp.SymbolKind, []lsp.DocumentSymbol) {
	switch x := x.(type) {
	case *ast.StructType:
		return kindStruct, o.fields(x.Fields, kindField)
	case *ast.InterfaceType:
		return kindInterface, o.fields(x.Methods, kindMethod)
	case *ast.FuncType:
		return kindFunction, nil
	}
	return kindClass, nil
}

func (o *goOutliner) fields(list *ast.FieldList, kind lsp.SymbolKind) []lsp.DocumentSymbol {
	if list == nil {
		return nil
	}
	var syms []lsp.DocumentSymbol
	for _, field := range list.List {
		var children []lsp.DocumentSymbol
		if field.Type != nil {
			_, children = o.typeDetails(field.Type)
		}
		if len(field.Names) == 0 { // an embedded type
			s := lsp.DocumentSymbol{Name: o.exprString(field.Type), Kind: kindField, Children: children}
			var selection ast.Node = field.Type
			if id := embeddedIdent(field.Type); id != nil {
				s.Name, selection = id.Name, id
			}
			// Like gopls, a child keeps a zero range it has no valid one for.
			if field.Type != nil {
				s.Range, _ = o.rng(field.Type)
				s.SelectionRange, _ = o.rng(selection)
			}
			syms = append(syms, s)
			continue
		}
		for _, name := range field.Names {
			s := lsp.DocumentSymbol{Name: name.Name, Kind: kind, Children: children}
			s.Range, _ = o.rng(field)
			s.SelectionRange, _ = o.rng(name)
			syms = append(syms, s)
		}
	}
	return syms
}

// embeddedIdent returns the type name of a valid embedding (T, *T, p.T,
// T[A]), else nil.
func embeddedIdent(x ast.Expr) *ast.Ident {
	if star, ok := x.(*ast.StarExpr); ok {
		x = star.X
	}
	switch ix := x.(type) {
	case *ast.IndexExpr:
		x = ix.X
	case *ast.IndexListExpr:
		x = ix.X
	}
	switch x := x.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		if _, ok := x.X.(*ast.Ident); ok {
			return x.Sel
		}
	}
	return nil
}

// exprString renders a type expression as go/types.ExprString does for the
// forms receivers and embeddings take, and as its source text with spaces
// collapsed otherwise.
func (o *goOutliner) exprString(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.StarExpr:
		return "*" + o.exprString(x.X)
	case *ast.ParenExpr:
		return "(" + o.exprString(x.X) + ")"
	case *ast.SelectorExpr:
		return o.exprString(x.X) + "." + x.Sel.Name
	case *ast.IndexExpr:
		return o.exprString(x.X) + "[" + o.exprString(x.Index) + "]"
	case *ast.IndexListExpr:
		parts := make([]string, len(x.Indices))
		for i, ix := range x.Indices {
			parts[i] = o.exprString(ix)
		}
		return o.exprString(x.X) + "[" + strings.Join(parts, ", ") + "]"
	case nil:
		return ""
	}
	start, end := o.offset(x.Pos()), o.offset(x.End())
	if start < 0 || end < start {
		return ""
	}
	return strings.Join(strings.Fields(string(o.content[start:end])), " ")
}

// rng returns the LSP range of a node (UTF-16 columns), or false when a
// node of broken code has no valid one.
func (o *goOutliner) rng(n ast.Node) (lsp.Range, bool) {
	start, end := o.offset(n.Pos()), o.offset(n.End())
	if start < 0 || end < start {
		return lsp.Range{}, false
	}
	return lsp.Range{Start: o.pos(n.Pos()), End: o.pos(n.End())}, true
}

func (o *goOutliner) offset(p token.Pos) int {
	if !p.IsValid() || int(p) < o.tf.Base() || int(p) > o.tf.Base()+o.tf.Size() {
		return -1
	}
	return o.tf.Offset(p)
}

func (o *goOutliner) pos(p token.Pos) lsp.Position {
	off := o.offset(p)
	if off < 0 {
		return lsp.Position{}
	}
	line := o.tf.Line(p)
	start := o.tf.Offset(o.tf.LineStart(line))
	var units uint32
	for b := o.content[start:off]; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		units += utf16Len(r)
		b = b[size:]
	}
	return lsp.Position{Line: uint32(line - 1), Character: units}
}

func utf16Len(r rune) uint32 {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
