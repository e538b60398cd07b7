package difftest

import (
	"cmp"
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
)

// Decl is a declaration of the workspace, as the bare server's
// documentSymbol lists it.
type Decl struct {
	Name      string
	Kind      lsp.SymbolKind
	Container []string // names of the enclosing declarations, outermost first
	Loc                // the start of its selection range (its name)
	EndLine   int      // the last line of its full range
	StartLine int      // the first line of its full range (doc comments included where the server includes them)
}

// Target is what one query is about, and why it was picked.
type Target struct {
	Why  string // the category: interface, widely-used, overload, generic, partial, nested, prefix, doc-comment, string, attribute
	Decl Decl   // the declaration; for in-text positions, the one containing At
	At   Loc    // the position asked about
	Name string // the bare name to address it by (generic parameters left out)
}

// Index is the declarations of a workspace and the targets picked from
// them.
type Index struct {
	Files   []string
	Decls   []Decl
	Targets []Target
	byName  map[string][]Decl
}

// skipDirs are directories no server loads as part of the project.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "bin": true, "obj": true, "vendor": true, "testdata": true, ".langhost": true, "__pycache__": true, "dist": true, "out": true, "build": true}

// SourceFiles lists the files of lang under ws that are in the server's
// project (projectScope), workspace-relative, sorted;
// at most max of them (0: all), spread evenly over the sorted list.
func SourceFiles(ws string, lang Language, max int) ([]string, error) {
	scope, err := projectScope(ws, lang)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != ws && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if _, ok := lang.Exts[filepath.Ext(p)]; ok && d.Type().IsRegular() {
			rel, err := filepath.Rel(ws, p)
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); inScope(scope, rel) {
				files = append(files, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	if max > 0 && len(files) > max {
		spread := make([]string, 0, max)
		for i := range max {
			spread = append(spread, files[i*len(files)/max])
		}
		files = spread
	}
	return files, nil
}

// BuildIndex asks the bare server for the document symbols of files and
// picks targets of every category, at most perCategory each.
func BuildIndex(ctx context.Context, r *Raw, files []string, perCategory int) (*Index, error) {
	ix := &Index{Files: files, byName: map[string][]Decl{}}
	for _, f := range files {
		syms, err := r.DocumentSymbols(ctx, f)
		if err != nil {
			return nil, err
		}
		m, err := r.Mapper(f)
		if err != nil {
			return nil, err
		}
		var walk func(syms []lsp.DocumentSymbol, path []string)
		walk = func(syms []lsp.DocumentSymbol, path []string) {
			for _, s := range syms {
				d := Decl{Name: s.Name, Kind: s.Kind, Container: slices.Clone(path)}
				d.Loc = Loc{File: f}
				d.Line, d.Column = m.LineColumn(s.SelectionRange.Start)
				d.StartLine, _ = m.LineColumn(s.Range.Start)
				d.EndLine, _ = m.LineColumn(s.Range.End)
				ix.Decls = append(ix.Decls, d)
				ix.byName[bareName(s.Name)] = append(ix.byName[bareName(s.Name)], d)
				walk(s.Children, append(path, s.Name))
			}
		}
		walk(syms, nil)
	}
	if err := ix.pick(ctx, r, perCategory); err != nil {
		return nil, err
	}
	return ix, nil
}

// Named is every declaration with this bare name.
func (ix *Index) Named(name string) []Decl { return ix.byName[name] }

// bareName leaves out generic parameters, gopls's receiver and
// csharp-ls's signature: "FromResult<T>" and "(T).M" and "M(int)" are
// FromResult, M and M.
func bareName(name string) string {
	if i := strings.IndexAny(name, "<(["); i > 0 {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSpace(name)
}

func isType(k lsp.SymbolKind) bool { return k.IsType() }

func isFunc(k lsp.SymbolKind) bool {
	return k == lsp.SymbolKind(6) || k == lsp.SymbolKind(12) || k == lsp.SymbolKind(9) // method, function, constructor
}

// IsType reports whether d declares a type.
func (d Decl) IsType() bool { return isType(d.Kind) }

// IsFunc reports whether d declares a function, method or constructor.
func (d Decl) IsFunc() bool { return isFunc(d.Kind) }

// BareName is d's name without generic parameters, receiver or signature.
func (d Decl) BareName() string { return bareName(d.Name) }

var (
	identRE     = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	goGenericRE = regexp.MustCompile(`^\[[A-Za-z_]\w* [^\]]`)
	commentRE   = regexp.MustCompile(`^\s*(///?|#|\*|/\*\*)\s*\S`)
	stringRE    = regexp.MustCompile(`"([A-Za-z][^"\\]{2,})"`)
	attributeRE = regexp.MustCompile(`^\s*(\[[A-Z]\w*|@[A-Za-z_]\w*)`)
)

func (ix *Index) pick(ctx context.Context, r *Raw, n int) error {
	add := func(why string, d Decl, at Loc) {
		t := Target{Why: why, Decl: d, At: at, Name: bareName(d.Name)}
		if positional(t) && anonymous(d.Name) {
			return
		}
		ix.Targets = append(ix.Targets, t)
	}
	// Identifier frequency over the files: how widely a name is used.
	uses := map[string]int{}
	for _, f := range ix.Files {
		m, err := r.Mapper(f)
		if err != nil {
			return err
		}
		for _, id := range identRE.FindAll(m.Content(), -1) {
			uses[string(id)]++
		}
	}
	type ranked struct {
		d     Decl
		score int
	}
	top := func(why string, keep func(Decl) bool, score func(Decl) int, least int) {
		var rs []ranked
		seen := map[string]bool{}
		for _, d := range ix.Decls {
			if !keep(d) || seen[d.Loc.String()] {
				continue
			}
			seen[d.Loc.String()] = true
			if s := score(d); s >= least {
				rs = append(rs, ranked{d, s})
			}
		}
		slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
		for _, x := range rs[:min(n, len(rs))] {
			add(why, x.d, x.d.Loc)
		}
	}

	// Interfaces with several implementations (asking the server).
	if r.Supports("implementationProvider") {
		checked := 0
		var rs []ranked
		for _, d := range ix.Decls {
			if d.Kind != lsp.SymbolKind(11) || checked == 40 {
				continue
			}
			checked++
			locs, err := r.Locations(ctx, "textDocument/implementation", d.Loc, nil)
			if serverFailure(err) != "" {
				// The server cannot answer for this one (gopls on x/tools:
				// "querying method sets: read .../go: is a directory"):
				// it is no target.
				continue
			}
			if err != nil {
				return err
			}
			if len(locs) >= 2 {
				rs = append(rs, ranked{d, len(locs)})
			}
		}
		slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
		for _, x := range rs[:min(n, len(rs))] {
			add("interface", x.d, x.d.Loc)
		}
	}
	top("widely-used", func(d Decl) bool { return isFunc(d.Kind) && len(bareName(d.Name)) >= 3 },
		func(d Decl) int { return uses[bareName(d.Name)] }, 3)
	// Overloads: two declarations of one name in one container.
	members := map[string]int{}
	for _, d := range ix.Decls {
		if isFunc(d.Kind) {
			members[d.File+"|"+strings.Join(d.Container, "/")+"|"+bareName(d.Name)]++
		}
	}
	top("overload", func(d Decl) bool { return isFunc(d.Kind) },
		func(d Decl) int { return members[d.File+"|"+strings.Join(d.Container, "/")+"|"+bareName(d.Name)] }, 2)
	top("generic", func(d Decl) bool { return (isType(d.Kind) || isFunc(d.Kind)) && ix.generic(r, d) }, func(Decl) int { return 1 }, 1)
	// Partial types: one type declared in several files.
	typeFiles := map[string]map[string]bool{}
	for _, d := range ix.Decls {
		if isType(d.Kind) {
			k := strings.Join(append(slices.Clone(d.Container), d.Name), "/")
			if typeFiles[k] == nil {
				typeFiles[k] = map[string]bool{}
			}
			typeFiles[k][d.File] = true
		}
	}
	top("partial", func(d Decl) bool { return isType(d.Kind) },
		func(d Decl) int { return len(typeFiles[strings.Join(append(slices.Clone(d.Container), d.Name), "/")]) }, 2)
	kindAt := map[string]lsp.SymbolKind{}
	for _, d := range ix.Decls {
		kindAt[d.File+"|"+strings.Join(append(slices.Clone(d.Container), d.Name), "/")] = d.Kind
	}
	top("nested", func(d Decl) bool {
		return isType(d.Kind) && len(d.Container) > 0 && isType(kindAt[d.File+"|"+strings.Join(d.Container, "/")])
	}, func(Decl) int { return 1 }, 1)
	// Names that prefix many others.
	names := make([]string, 0, len(ix.byName))
	for name := range ix.byName {
		names = append(names, name)
	}
	slices.Sort(names)
	prefixes := func(name string) int {
		i, _ := slices.BinarySearch(names, name)
		c := 0
		for j := i + 1; j < len(names) && strings.HasPrefix(names[j], name); j++ {
			c++
		}
		return c
	}
	top("prefix", func(d Decl) bool { return isType(d.Kind) && len(bareName(d.Name)) >= 3 },
		func(d Decl) int { return prefixes(bareName(d.Name)) }, 2)

	// Positions in text: doc comments above a member, string literals and
	// attributes or decorators.
	counts := map[string]int{}
	for _, d := range ix.Decls {
		if !isFunc(d.Kind) && !isType(d.Kind) {
			continue
		}
		m, err := r.Mapper(d.File)
		if err != nil {
			return err
		}
		// The lines just above the name, up to the start of the full range
		// or three lines, whichever is further.
		for l := d.Line - 1; l >= max(1, min(d.StartLine, d.Line-3)) && counts["doc-comment"] < n; l-- {
			text := m.LineText(l)
			if loc := commentRE.FindStringSubmatchIndex(text); loc != nil {
				add("doc-comment", d, Loc{File: d.File, Line: l, Column: runeCol(text, loc[1]-1)})
				counts["doc-comment"]++
				break
			}
			if loc := attributeRE.FindStringSubmatchIndex(text); loc != nil && counts["attribute"] < n {
				add("attribute", d, Loc{File: d.File, Line: l, Column: runeCol(text, loc[2]+1)})
				counts["attribute"]++
				break
			}
		}
		if isFunc(d.Kind) && counts["string"] < n {
			for l := d.Line + 1; l <= d.EndLine; l++ {
				text := m.LineText(l)
				if loc := stringRE.FindStringSubmatchIndex(text); loc != nil && !strings.HasPrefix(strings.TrimSpace(text), "//") {
					add("string", d, Loc{File: d.File, Line: l, Column: runeCol(text, loc[2]+1)})
					counts["string"]++
					break
				}
			}
		}
	}
	return nil
}

// generic reports whether d declares type parameters: its name carries
// them (csharp-ls's "FromResult<T>") or its name is followed by them in
// the text (Go's "[T any]", "<T>" elsewhere). Only the name before a
// signature counts: csharp-ls names a method with its parameters, and
// "Add(QuickList<int> list)" is not generic.
func (ix *Index) generic(r *Raw, d Decl) bool {
	name, _, _ := strings.Cut(d.Name, "(")
	if strings.Contains(name, "<") {
		return true
	}
	m, err := r.Mapper(d.File)
	if err != nil {
		return false
	}
	line := []rune(m.LineText(d.Line))
	end := d.Column - 1 + len([]rune(bareName(d.Name)))
	if end > len(line) || d.Column < 1 {
		return false
	}
	rest := string(line[end:])
	if r.lang.ID == "go" {
		return goGenericRE.MatchString(rest)
	}
	return strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<<")
}

// anonymous reports whether a document symbol names no declaration a
// user could address: typescript-language-server lists anonymous
// functions and classes as "<function>" and "<class>", and a function
// passed as an argument as "ky.#retryFromError() callback", whose bare
// name would be the callee's.
func anonymous(name string) bool {
	return strings.HasPrefix(name, "<") || strings.HasSuffix(name, ") callback")
}

// runeCol is the 1-based column in runes of byte offset i of text.
func runeCol(text string, i int) int { return len([]rune(text[:i])) + 1 }
