package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Target addresses a symbol by position or by name.
type Target struct {
	File      string `json:"file,omitempty" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Line      int    `json:"line,omitempty" jsonschema:"1-based line of the symbol (with file and column)"`
	Column    int    `json:"column,omitempty" jsonschema:"1-based column in Unicode characters (with file and line)"`
	Symbol    string `json:"symbol,omitempty" jsonschema:"symbol name, instead of file/line/column"`
	Container string `json:"container,omitempty" jsonschema:"name of the type or package containing the symbol, to disambiguate"`
	Kind      string `json:"kind,omitempty" jsonschema:"symbol kind to disambiguate a name (class, method, function, ...)"`
}

var symbolKindEnum = lsp.SymbolKindNames()

// resolved is a target located in a document.
type resolved struct {
	doc  *document
	pos  lsp.Position
	sym  *lsp.DocumentSymbol // the declaration as the server describes it, when known
	name string
	// declared is set when pos is on a declaration's name in the file's
	// outline and the server's symbol has not been asked for yet (see
	// symbol): most operations need only the name.
	declared bool
	// unnamed is set when the file's outline was not at hand (it would
	// have cost a request); see targetName.
	unnamed bool
}

// Candidate is one symbol in an ambiguity or "did you mean" list.
type Candidate struct {
	Name      string `json:"name"`
	Container string `json:"container,omitempty"`
	Kind      string `json:"kind"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	// Selector is the name path that addresses exactly this symbol.
	Selector string `json:"selector,omitempty"`
}

func (c *call) resolveTarget(ctx context.Context, t Target) (*resolved, error) {
	if isNamePath(t.Symbol) && t.Container == "" {
		ref, err := c.resolveNamePath(ctx, "symbol", t.File, t.Symbol, t.Kind, failure.NotFound)
		if err != nil {
			return nil, err
		}
		return &resolved{doc: ref.doc, pos: ref.sym.SelectionRange.Start, sym: &ref.sym, name: ref.sym.Name}, nil
	}
	if t.Symbol != "" {
		return c.resolveName(ctx, t)
	}
	if t.File == "" {
		return nil, fieldErr(failure.InvalidInput, "symbol", "give either symbol, or file with line and column")
	}
	doc, err := c.view(ctx, "file", t.File)
	if err != nil {
		return nil, err
	}
	pos, err := c.position(doc, t.File, t.Line, t.Column, "line", "column")
	if err != nil {
		return nil, err
	}
	r := &resolved{doc: doc, pos: pos}
	// The declaration there is named from the file's outline when it costs
	// no request (a cached or parsed one); otherwise only when an
	// operation asks (targetName, symbol): many need a position only.
	f := fileContent{path: doc.path, info: doc.info, mapper: doc.mapper}
	if _, cached := c.s.files.outline(f); !cached && c.s.languageID(doc.path) != "go" {
		r.unnamed = true
		return r, nil
	}
	syms, _ := c.outline(ctx, f) // cached, or parsed here
	r.nameFrom(syms)
	return r, nil
}

// nameFrom names r from the outline of its file.
func (r *resolved) nameFrom(syms []lsp.DocumentSymbol) {
	r.unnamed = false
	if inner := declarationNamedAt(syms, r.pos); inner != nil {
		r.name, r.declared = inner.Name, true
	}
}

// targetName returns the name of the declaration at r, asking for its
// file's outline if need be, else the identifier there.
func (c *call) targetName(ctx context.Context, r *resolved) string {
	if r.unnamed {
		syms, _ := c.outline(ctx, fileContent{path: r.doc.path, info: r.doc.info, mapper: r.doc.mapper})
		r.nameFrom(syms)
	}
	if r.name != "" {
		return r.name
	}
	return identifierAt(r.doc.mapper, r.pos)
}

// symbol returns the server's symbol of the declaration r names, if any,
// asking the server for the file's symbols when r was resolved from its
// outline (or not named yet).
func (c *call) symbol(ctx context.Context, r *resolved) *lsp.DocumentSymbol {
	if r.sym == nil && (r.declared || r.unnamed) {
		r.declared, r.unnamed = false, false
		if syms, err := c.serverSymbols(ctx, r.doc); err == nil {
			r.sym = declarationNamedAt(syms, r.pos)
			if r.sym != nil && r.name == "" {
				r.name = r.sym.Name
			}
		}
	}
	return r.sym
}

// declarationNamedAt returns the innermost declaration whose name is at pos.
func declarationNamedAt(syms []lsp.DocumentSymbol, pos lsp.Position) *lsp.DocumentSymbol {
	if path := symbolPath(syms, pos); len(path) > 0 {
		if inner := path[len(path)-1]; inner.SelectionRange.Contains(pos) {
			return &inner
		}
	}
	return nil
}

// open resolves an input path and opens the document, for operations that
// need the server to work on exactly langhost's copy (edits, diagnostics).
// It is closed when the call ends.
func (c *call) open(ctx context.Context, key, p string) (*document, error) {
	abs, err := c.e.resolvePath(key, p)
	if err != nil {
		return nil, err
	}
	return c.s.document(ctx, abs)
}

// openOrView is open, except for a server that answers from disk
// (answersFromDisk): then no didOpen/didClose round, since the call's
// start told the server of every change on disk.
func (c *call) openOrView(ctx context.Context, key, p string) (*document, error) {
	if answersFromDisk(c.s) {
		return c.view(ctx, key, p)
	}
	return c.open(ctx, key, p)
}

// view resolves an input path for a read-only request; see session.view.
func (c *call) view(ctx context.Context, key, p string) (*document, error) {
	abs, err := c.e.resolvePath(key, p)
	if err != nil {
		return nil, err
	}
	return c.s.view(ctx, abs)
}

// position converts a user line/column, naming the offending key.
func (c *call) position(doc *document, file string, line, column int, lineKey, colKey string) (lsp.Position, error) {
	if line == 0 {
		return lsp.Position{}, fieldErr(failure.InvalidInput, lineKey, "is required with file")
	}
	if column == 0 {
		return lsp.Position{}, fieldErr(failure.InvalidInput, colKey, "is required with file")
	}
	pos, err := doc.mapper.Position(line, column)
	switch {
	case errors.Is(err, lsp.ErrLineOutOfRange):
		return pos, fieldErr(failure.InvalidInput, lineKey, "%s: %v", file, err)
	case errors.Is(err, lsp.ErrColumnOutOfRange):
		return pos, fieldErr(failure.InvalidInput, colKey, "%s: %v", file, err)
	}
	return pos, err
}

func (c *call) resolveName(ctx context.Context, t Target) (*resolved, error) {
	var kind lsp.SymbolKind
	if t.Kind != "" {
		if kind = lsp.ParseSymbolKind(t.Kind); kind == 0 {
			return nil, fieldErr(failure.InvalidInput, "kind", "unknown symbol kind %q", t.Kind)
		}
	}
	if t.File != "" {
		return c.resolveNameInFile(ctx, t, kind)
	}
	if err := c.s.require("workspaceSymbolProvider", "workspace/symbol"); err != nil {
		return nil, err
	}
	syms, err := c.workspaceSymbols(ctx, t.Symbol)
	if err != nil {
		return nil, err
	}
	if t.Container != "" {
		c.fillContainers(ctx, syms, t.Symbol)
	}
	var matches []lsp.SymbolInformation
	for _, si := range syms {
		if nameMatches(si.Name, si.ContainerName, t.Symbol, t.Container) && (kind == 0 || si.Kind == kind) {
			matches = append(matches, si)
		}
	}
	matches = c.preferWorkspace(dedupe(matches, c.typeIdentityOf(ctx)))
	if len(matches) == 0 && c.s.capped(len(syms)) {
		// The server's list was cut at its cap: the declaration may be
		// among what it left out. Resolve from the declarations of the
		// files that mention the name instead.
		if r, err := c.resolveInFiles(ctx, t, kind); r != nil || err != nil {
			return r, err
		}
	}
	switch len(matches) {
	case 0:
		return nil, c.notFound(ctx, t, syms)
	case 1:
	default:
		cands := make([]Candidate, 0, len(matches))
		for _, m := range matches {
			cands = append(cands, c.candidate(m))
		}
		err := fieldErr(failure.Ambiguous, "symbol", "%q matches %d symbols; add container, kind or file to choose one", t.Symbol, len(matches))
		err.Details = map[string]any{"candidates": cands}
		return nil, err
	}
	m := matches[0]
	doc, err := c.docAt(ctx, m.Location.URI)
	if err != nil {
		return nil, err
	}
	docSyms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return nil, err
	}
	if m.Location.Range != nil {
		if ds := declarationAt(docSyms, m.Location.Range.Start, baseName(m.Name)); ds != nil {
			return &resolved{doc: doc, pos: ds.SelectionRange.Start, sym: ds, name: ds.Name}, nil
		}
		return &resolved{doc: doc, pos: m.Location.Range.Start, name: m.Name}, nil
	}
	found := findByName(docSyms, t.Symbol, t.Container, kind)
	if len(found) == 0 {
		return nil, fieldErr(failure.NotFound, "symbol", "%s reported %q in %s but it is not among the file's symbols", c.s.name, t.Symbol, c.e.relPath(m.Location.URI))
	}
	return &resolved{doc: doc, pos: found[0].SelectionRange.Start, sym: &found[0], name: found[0].Name}, nil
}

func (c *call) resolveNameInFile(ctx context.Context, t Target, kind lsp.SymbolKind) (*resolved, error) {
	doc, err := c.view(ctx, "file", t.File)
	if err != nil {
		return nil, err
	}
	syms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return nil, err
	}
	found := findByName(syms, t.Symbol, t.Container, kind)
	switch len(found) {
	case 0:
		var names []string
		walkSymbols(syms, "", func(s lsp.DocumentSymbol, _ string) { names = append(names, baseName(s.Name)) })
		err := fieldErr(failure.NotFound, "symbol", "no symbol named %q in %s", t.Symbol, t.File)
		if best := rankNames(t.Symbol, names); len(best) > 0 {
			err.Message += fmt.Sprintf("; did you mean %q?", best[0])
			err.Details = map[string]any{"candidates": best}
		}
		return nil, err
	case 1:
		return &resolved{doc: doc, pos: found[0].SelectionRange.Start, sym: &found[0], name: found[0].Name}, nil
	}
	cands := make([]Candidate, 0, len(found))
	for _, f := range found {
		line, _ := doc.mapper.LineColumn(f.SelectionRange.Start)
		cands = append(cands, Candidate{Name: f.Name, Kind: f.Kind.String(), File: c.e.relPath(doc.uri), Line: line})
	}
	amb := fieldErr(failure.Ambiguous, "symbol", "%q matches %d symbols in %s", t.Symbol, len(found), t.File)
	amb.Details = map[string]any{"candidates": cands}
	return nil, amb
}

// fillContainers sets the container of symbols named name that the server
// left without one (typescript-language-server never sends containerName),
// from the enclosing declaration in the file's document symbols.
func (c *call) fillContainers(ctx context.Context, syms []lsp.SymbolInformation, name string) {
	files := map[lsp.DocumentURI][]lsp.DocumentSymbol{}
	for i := range syms {
		si := &syms[i]
		if si.ContainerName != "" || qualifier(si.Name) != "" || si.Location.Range == nil || !nameMatches(si.Name, "", name, "") ||
			strings.HasPrefix(c.e.relPath(si.Location.URI), "/") { // outside the workspace: not worth opening
			continue
		}
		docSyms, ok := files[si.Location.URI]
		if !ok {
			if p, err := si.Location.URI.Path(); err == nil {
				if f, err := c.s.read(p); err == nil {
					docSyms, _ = c.outline(ctx, f)
				}
			}
			files[si.Location.URI] = docSyms
		}
		if path := symbolPath(docSyms, si.Location.Range.Start); len(path) > 1 {
			si.ContainerName = path[len(path)-2].Name
		}
	}
}

func (c *call) workspaceSymbols(ctx context.Context, query string) ([]lsp.SymbolInformation, error) {
	var syms []lsp.SymbolInformation
	if err := c.s.call(ctx, "workspace/symbol", map[string]string{"query": query}, &syms); err != nil {
		return nil, err
	}
	for i := range syms {
		syms[i].Name, syms[i].ContainerName = memberName(syms[i].Name, syms[i].ContainerName)
	}
	return syms, nil
}

// notFound builds a "did you mean" error from the server's fuzzy matches,
// widening the query when those are empty.
func (c *call) notFound(ctx context.Context, t Target, syms []lsp.SymbolInformation) error {
	if len(syms) == 0 && len([]rune(t.Symbol)) > 2 {
		syms, _ = c.workspaceSymbols(ctx, string([]rune(t.Symbol)[:2]))
	}
	syms = c.preferWorkspace(syms)
	sort.SliceStable(syms, func(i, j int) bool {
		return textdist.Levenshtein(t.Symbol, baseName(syms[i].Name)) < textdist.Levenshtein(t.Symbol, baseName(syms[j].Name))
	})
	cands := []Candidate{}
	seen := map[string]bool{}
	for _, si := range syms {
		if len(cands) == 5 {
			break
		}
		cand := c.candidate(si)
		key := cand.Name + "\x00" + cand.File + fmt.Sprint(cand.Line)
		if seen[key] {
			continue
		}
		seen[key] = true
		cands = append(cands, cand)
	}
	err := fieldErr(failure.NotFound, "symbol", "no symbol named %q in the workspace", t.Symbol)
	if t.Container != "" {
		err.Message = fmt.Sprintf("no symbol named %q in container %q", t.Symbol, t.Container)
	}
	if len(cands) > 0 {
		err.Message += fmt.Sprintf("; did you mean %q?", cands[0].Name)
	}
	err.Details = map[string]any{"candidates": cands}
	return err
}

func (c *call) candidate(si lsp.SymbolInformation) Candidate {
	cand := Candidate{Name: si.Name, Container: si.ContainerName, Kind: si.Kind.String(), File: c.e.relPath(si.Location.URI)}
	if si.Location.Range != nil {
		cand.Line = int(si.Location.Range.Start.Line) + 1
	}
	return cand
}

// preferWorkspace drops symbols outside the workspace root (dependencies,
// standard library) when any symbol is inside it.
func (c *call) preferWorkspace(syms []lsp.SymbolInformation) []lsp.SymbolInformation {
	var inside []lsp.SymbolInformation
	for _, si := range syms {
		if !strings.HasPrefix(c.e.relPath(si.Location.URI), "/") {
			inside = append(inside, si)
		}
	}
	if len(inside) > 0 {
		return inside
	}
	return syms
}

// symbolCapper is a dialect whose server cuts workspace/symbol answers
// at a fixed count without saying so.
type symbolCapper interface{ symbolCap() int }

// serverSymbolCaps are the workspace/symbol caps of servers of the
// standard dialect, by server name: gopls v0.23.0 keeps the best 100
// matches (golang/workspace_symbol.go, maxSymbols) and says nothing of the
// rest.
var serverSymbolCaps = map[string]int{"gopls": 100}

// capped reports whether a workspace/symbol answer of n symbols may have
// been cut at the server's cap.
func (s *session) capped(n int) bool {
	if d, ok := s.dialect.(symbolCapper); ok {
		return n >= d.symbolCap()
	}
	limit, ok := serverSymbolCaps[s.name]
	return ok && n >= limit
}

// dedupe lists each symbol once: a declaration the server reports once
// per project that compiles its file (a linked file), and a partial
// type's parts (one type, declared in several files). identity names the
// type a symbol declares when the server gave no container; "" keeps it
// apart.
func dedupe(syms []lsp.SymbolInformation, identity func(lsp.SymbolInformation) string) []lsp.SymbolInformation {
	out, _ := dedupeParts(syms, identity)
	return out
}

// dedupeParts is dedupe, also returning, for each symbol kept, the other
// places the server declared it: the other parts of a partial type.
func dedupeParts(syms []lsp.SymbolInformation, identity func(lsp.SymbolInformation) string) ([]lsp.SymbolInformation, [][]lsp.Location) {
	// Types that share a kind and a name with another: only those need
	// their identity, which may cost the file's outline.
	typeName := func(si lsp.SymbolInformation) string {
		return fmt.Sprintf("%d\x00%s\x00%s", si.Kind, si.ContainerName, si.Name)
	}
	names := map[string]int{}
	for _, si := range syms {
		if isTypeKind(si.Kind) {
			names[typeName(si)]++
		}
	}
	seen := map[string]int{} // key -> index in out
	places := map[string]bool{}
	var out []lsp.SymbolInformation
	var parts [][]lsp.Location
	for _, si := range syms {
		key := string(si.Location.URI) + si.Name
		if si.Location.Range != nil {
			key += fmt.Sprint(si.Location.Range.Start)
		}
		place := key
		if isTypeKind(si.Kind) {
			switch named := typeName(si); {
			case si.ContainerName != "":
				key = named
			case names[named] > 1 && identity != nil:
				if id := identity(si); id != "" {
					key = id
				}
			}
		}
		i, ok := seen[key]
		switch {
		case !ok:
			seen[key] = len(out)
			out = append(out, si)
			parts = append(parts, nil)
		case !places[place] && si.Location.Range != nil:
			parts[i] = append(parts[i], lsp.Location{URI: si.Location.URI, Range: *si.Location.Range})
		}
		places[place] = true
	}
	return out, parts
}

func isTypeKind(k lsp.SymbolKind) bool {
	switch k.String() {
	case "class", "struct", "interface":
		return true
	}
	return false
}

// typeIdentityOf names the type a workspace symbol declares by its
// containers in its file's outline (namespace and enclosing types), so
// that the parts of one partial type are one and two nested types of one
// name in different types (csharp-ls names no container for either) are
// two. "" when the outline does not say.
func (c *call) typeIdentityOf(ctx context.Context) func(lsp.SymbolInformation) string {
	return func(si lsp.SymbolInformation) string {
		if si.Location.Range == nil {
			return ""
		}
		sym, chain := c.declarationOf(ctx, lsp.Location{URI: si.Location.URI, Range: *si.Location.Range})
		if sym == nil {
			return ""
		}
		return typeIdentity(sym, chain)
	}
}

func rankNames(name string, names []string) []string {
	seen := map[string]bool{}
	var uniq []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	sort.SliceStable(uniq, func(i, j int) bool {
		return textdist.Levenshtein(name, uniq[i]) < textdist.Levenshtein(name, uniq[j])
	})
	if len(uniq) > 5 {
		uniq = uniq[:5]
	}
	return uniq
}

// baseName strips qualifiers from a server's symbol name: "(*T).M",
// "T.M" and "pkg.T" become "M" and "T".
func baseName(name string) string {
	if i := strings.LastIndex(name, "."); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// qualifier returns what precedes the base name, receiver markers removed.
func qualifier(name string) string {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return ""
	}
	q := strings.Trim(name[:i], "()*")
	return baseName(q)
}

// nameMatches compares a server's symbol with the requested name and
// container. A dotted request ("Shape.Area") must match the qualified name.
func nameMatches(symName, symContainer, name, container string) bool {
	if strings.Contains(name, ".") {
		q, b, _ := strings.Cut(name, ".")
		if container == "" {
			return baseName(symName) == baseName(b) && (qualifier(symName) == q || containerMatches(symContainer, q))
		}
	}
	if base := baseName(symName); base != name && symName != name && bareName(base) != name {
		return false
	}
	if container == "" {
		return true
	}
	return qualifier(symName) == container || containerMatches(symContainer, container)
}

// bareName strips a member name's parameter list and type parameters, as
// csharp-ls names them ("FromResult<T>(T)"), so that the bare name a user
// writes matches the generic declaration: the name path resolver
// (symbolSegments) reads names the same way.
func bareName(name string) string {
	if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name = name[:i]
	}
	if j := strings.IndexByte(name, '<'); j > 0 {
		name = name[:j]
	}
	return name
}

func containerMatches(symContainer, want string) bool {
	if symContainer == "" {
		return false
	}
	if symContainer == want || strings.HasSuffix(symContainer, "."+want) || strings.HasSuffix(symContainer, "/"+want) {
		return true
	}
	return baseName(symContainer) == want
}

// findByName searches a document's symbols by base name, container and kind.
func findByName(syms []lsp.DocumentSymbol, name, container string, kind lsp.SymbolKind) []lsp.DocumentSymbol {
	var out []lsp.DocumentSymbol
	walkSymbols(syms, "", func(s lsp.DocumentSymbol, parent string) {
		if kind != 0 && s.Kind != kind {
			return
		}
		if nameMatches(s.Name, parent, name, container) {
			out = append(out, s)
		}
	})
	return out
}

func walkSymbols(syms []lsp.DocumentSymbol, parent string, f func(s lsp.DocumentSymbol, parent string)) {
	for _, s := range syms {
		f(s, parent)
		walkSymbols(s.Children, s.Name, f)
	}
}

// symbolPath returns the chain of symbols whose range contains pos,
// outermost first.
func symbolPath(syms []lsp.DocumentSymbol, pos lsp.Position) []lsp.DocumentSymbol {
	for _, s := range syms {
		if s.Range.Contains(pos) {
			return append([]lsp.DocumentSymbol{s}, symbolPath(s.Children, pos)...)
		}
	}
	return nil
}

// declarationAt finds the declaration whose name is at pos (or, failing
// that, the innermost one containing pos with the given base name).
func declarationAt(syms []lsp.DocumentSymbol, pos lsp.Position, name string) *lsp.DocumentSymbol {
	var best *lsp.DocumentSymbol
	var visit func([]lsp.DocumentSymbol)
	visit = func(list []lsp.DocumentSymbol) {
		for i := range list {
			s := &list[i]
			if s.SelectionRange.Contains(pos) {
				best = s
				return
			}
			if s.Range.Contains(pos) {
				if baseName(s.Name) == name {
					best = s
				}
				visit(s.Children)
				return
			}
		}
	}
	visit(syms)
	return best
}

func (c *call) documentSymbols(ctx context.Context, doc *document) ([]lsp.DocumentSymbol, error) {
	syms, err := c.serverRanges(ctx, doc)
	if err != nil {
		return nil, err
	}
	if c.e.cfg.Dialect == DialectCSharpLS {
		trimTrivia(doc.mapper, syms)
	}
	return syms, nil
}

// serverRanges returns a document's declarations with the ranges the
// server gave, leading trivia (a doc comment) included where the server
// counts it as part of the declaration.
func (c *call) serverRanges(ctx context.Context, doc *document) ([]lsp.DocumentSymbol, error) {
	if err := c.s.require("documentSymbolProvider", "textDocument/documentSymbol"); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.s.call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: doc.uri}}, &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, nil
	}
	syms, err := lsp.DecodeDocumentSymbols(raw)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "decoding documentSymbol result from %s", c.s.name)
	}
	return declarationsOnly(syms), nil
}

// docAt returns a read-only view of the document of uri (for files the
// server pointed at), which must lead to a file inside the workspace.
func (c *call) docAt(ctx context.Context, uri lsp.DocumentURI) (*document, error) {
	p, err := uri.Path()
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "location from %s", c.s.name)
	}
	real, err := c.e.ws.ResolveRead("", p)
	if err != nil {
		return nil, failure.Wrap(failure.CodeOf(err), err, "location from %s", c.s.name)
	}
	return c.s.view(ctx, real)
}

// ---- name paths: symbols addressed by their containers, never by line

// maxNamePath bounds a name path; longer input is not a symbol name.
const maxNamePath = 1024

// namePath is a parsed symbol address: "Shape/Area", "pkg.Type.Method",
// "Type.Method", with an optional overload selector on the last segment:
// "Area(int)" (parameter types) or "Area#2" (the second, in file order).
type namePath struct {
	raw    string
	segs   []string
	params []string // with hasParams: the selector's parameter types
	// hasParams distinguishes "Area()" (no parameters) from "Area".
	hasParams bool
	index     int // 1-based "#n" selector; 0 when none
}

// isNamePath reports whether a symbol input uses the name path syntax
// ("Shape/Area", "Area(int)", "Area#2") rather than a plain or dotted
// name, which the server's workspace symbols resolve.
func isNamePath(s string) bool { return strings.ContainsAny(s, "/(") || selectorAt(s) >= 0 }

// selectorAt is the index of the '#' of a trailing "#n" overload selector,
// or -1: a '#' that starts the name or a segment is part of the name, as
// in TypeScript's private members (#retry, Ky/#retry).
func selectorAt(s string) int {
	i := strings.LastIndexByte(s, '#')
	if i <= 0 || s[i-1] == '/' || s[i-1] == '.' {
		return -1
	}
	return i
}

// parseNamePath parses the address given in key. Segments are separated
// by "/" or "." outside parentheses; an empty segment (as in "../x" or
// "a//b") is invalid, so a file path is never taken for a name path.
func parseNamePath(key, s string) (namePath, error) {
	np := namePath{raw: s}
	bad := func(format string, args ...any) (namePath, error) {
		return namePath{}, fieldErr(failure.InvalidInput, key, "%q is not a symbol name path (like Shape/Area, pkg.Type.Method or Area#2): %s", s, fmt.Sprintf(format, args...))
	}
	switch {
	case strings.TrimSpace(s) == "":
		return namePath{}, fieldErr(failure.InvalidInput, key, "is required")
	case len(s) > maxNamePath:
		return namePath{}, fieldErr(failure.InvalidInput, key, "is %d bytes long; a name path has at most %d", len(s), maxNamePath)
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return bad("it contains the control character %U", r)
		}
	}
	rest := s
	if i := selectorAt(rest); i >= 0 {
		n, err := strconv.Atoi(rest[i+1:])
		if err != nil || n < 1 {
			return bad("the overload selector after # must be a positive number")
		}
		np.index, rest = n, rest[:i]
	}
	if i := strings.IndexByte(rest, '('); i >= 0 {
		if !strings.HasSuffix(rest, ")") {
			return bad("the parameter list must close the name")
		}
		inner := strings.TrimSpace(rest[i+1 : len(rest)-1])
		np.hasParams = true
		if inner != "" {
			for _, p := range splitTopLevel(inner, ',') {
				np.params = append(np.params, strings.TrimSpace(p))
			}
		}
		rest = rest[:i]
	}
	for _, seg := range strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '.' }) {
		np.segs = append(np.segs, strings.TrimSpace(seg))
	}
	if len(np.segs) == 0 || strings.Count(rest, "/")+strings.Count(rest, ".")+1 != len(np.segs) || slices.Contains(np.segs, "") {
		return bad("it has an empty segment")
	}
	return np, nil
}

// splitTopLevel splits s at sep outside (), [], <> and {}.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '<', '{':
			depth++
		case ')', ']', '>', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// symbolSegments splits a server's symbol name into name path segments
// and its parameter list, if the name carries one: gopls names methods
// "(*Square).Area", Roslyn names them "Area(int)".
func symbolSegments(name string) (segs []string, params string, hasParams bool) {
	if strings.HasPrefix(name, "(") {
		if i := strings.Index(name, ")."); i > 0 {
			recv := strings.TrimLeft(name[1:i], "*")
			if j := strings.IndexByte(recv, '['); j >= 0 {
				recv = recv[:j]
			}
			return []string{recv, name[i+2:]}, "", false
		}
	}
	if i := strings.IndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		params, hasParams, name = name[i+1:len(name)-1], true, name[:i]
	}
	if j := strings.IndexByte(name, '<'); j > 0 {
		name = name[:j] // generic arity: List<T>
	}
	return strings.FieldsFunc(name, func(r rune) bool { return r == '.' }), params, hasParams
}

// symbolRef is a declaration a name path resolved to.
type symbolRef struct {
	doc   *document
	sym   lsp.DocumentSymbol
	chain []lsp.DocumentSymbol // outermost first; sym is last
	// path is the canonical name path ("Circle/Area"); overload is the
	// 1-based position among the file's symbols with the same path and
	// kind, of which there are overloads.
	path                string
	overload, overloads int
	all                 []fileSymbol // the file's declarations
}

// selector is the name path that addresses exactly this symbol.
func (r *symbolRef) selector() string {
	if r.overloads > 1 {
		return fmt.Sprintf("%s#%d", r.path, r.overload)
	}
	return r.path
}

// fileSymbol is one declaration of a file with its chain of containers.
type fileSymbol struct {
	chain []lsp.DocumentSymbol
	segs  []string
}

func (f fileSymbol) sym() lsp.DocumentSymbol { return f.chain[len(f.chain)-1] }

// flatten lists a file's declarations with their name path segments.
func flatten(syms []lsp.DocumentSymbol) []fileSymbol {
	var out []fileSymbol
	var walk func(list []lsp.DocumentSymbol, chain []lsp.DocumentSymbol, segs []string)
	walk = func(list []lsp.DocumentSymbol, chain []lsp.DocumentSymbol, segs []string) {
		for _, s := range list {
			own, _, _ := symbolSegments(s.Name)
			c := append(slices.Clip(chain), s)
			sg := append(slices.Clip(segs), own...)
			out = append(out, fileSymbol{chain: c, segs: sg})
			walk(s.Children, c, sg)
		}
	}
	walk(syms, nil, nil)
	return out
}

// qualifiers are the names a file's declarations may be prefixed with in
// a name path: its directory (a Go package), its module path (Python) and
// its C# namespace.
func (c *call) qualifiers(doc *document) []string {
	rel := c.e.relPath(doc.uri)
	dir := path.Dir(rel)
	stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	q := []string{path.Base(dir), strings.ReplaceAll(path.Join(dir, stem), "/", "."), stem}
	for n := 1; n <= min(doc.mapper.LineCount(), 200); n++ {
		line := strings.TrimSpace(doc.mapper.LineText(n))
		if ns, ok := strings.CutPrefix(line, "namespace "); ok {
			q = append(q, strings.TrimRight(strings.TrimSpace(ns), ";{ "))
		}
	}
	return q
}

// pathMatches reports whether a name path addresses a declaration with
// the given segments: the path is a suffix of them, or names them all
// preceded by one of the file's qualifiers.
func pathMatches(np namePath, segs []string, quals []string) bool {
	if len(np.segs) <= len(segs) {
		return slices.Equal(np.segs, segs[len(segs)-len(np.segs):])
	}
	extra := len(np.segs) - len(segs)
	if !slices.Equal(np.segs[extra:], segs) {
		return false
	}
	prefix := strings.Join(np.segs[:extra], ".")
	for _, q := range quals {
		if q == prefix || strings.HasSuffix(q, "."+prefix) {
			return true
		}
	}
	return false
}

// paramsMatch compares a "(int, string)" selector with a declaration's
// parameters, from its name (Roslyn) or its detail (gopls, the fake).
func paramsMatch(np namePath, s lsp.DocumentSymbol) bool {
	if !np.hasParams {
		return true
	}
	_, params, ok := symbolSegments(s.Name)
	if !ok {
		i := strings.IndexByte(s.Detail, '(')
		if i < 0 {
			return false
		}
		depth, end := 0, -1
		for j := i; j < len(s.Detail) && end < 0; j++ {
			switch s.Detail[j] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = j
				}
			}
		}
		if end < 0 {
			return false
		}
		params = s.Detail[i+1 : end]
	}
	var have []string
	for _, p := range splitTopLevel(params, ',') {
		if p = strings.TrimSpace(p); p != "" && p != "self" && p != "cls" {
			have = append(have, p)
		}
	}
	if len(have) != len(np.params) {
		return false
	}
	for i, want := range np.params {
		p, _, _ := strings.Cut(have[i], "=")
		f := strings.Fields(strings.ReplaceAll(p, ":", " "))
		if len(f) == 0 {
			return false
		}
		if want != strings.Join(f, " ") && want != strings.Join(f[:len(f)-1], " ") && want != strings.Join(f[1:], " ") {
			return false
		}
	}
	return true
}

// resolveNamePath finds the one declaration a name path addresses, in
// file when given, else in the files the server's workspace symbols
// point at. An unknown name fails with missing (anchor_not_resolved for
// edits) and "did you mean" candidates; several matches fail with
// ambiguous_target listing each one's selector.
func (c *call) resolveNamePath(ctx context.Context, key, file, symbol, kindName string, missing failure.Code) (*symbolRef, error) {
	np, err := parseNamePath(key, symbol)
	if err != nil {
		return nil, err
	}
	var kind lsp.SymbolKind
	if kindName != "" {
		if kind = lsp.ParseSymbolKind(kindName); kind == 0 {
			return nil, fieldErr(failure.InvalidInput, "kind", "unknown symbol kind %q", kindName)
		}
	}
	var docs []*document
	if file != "" {
		doc, err := c.view(ctx, "file", file)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	} else {
		if docs, err = c.candidateDocs(ctx, np.segs[len(np.segs)-1]); err != nil {
			return nil, err
		}
	}
	var matches []*symbolRef
	var names []string
	for _, doc := range docs {
		syms, err := c.documentSymbols(ctx, doc)
		if err != nil {
			return nil, err
		}
		all := flatten(syms)
		quals := c.qualifiers(doc)
		for _, fs := range all {
			names = append(names, strings.Join(fs.segs, "/"))
			s := fs.sym()
			if (kind != 0 && s.Kind != kind) || !pathMatches(np, fs.segs, quals) || !paramsMatch(np, s) {
				continue
			}
			if partOfMatchedType(matches, doc, fs) {
				continue
			}
			matches = append(matches, c.symbolRefOf(doc, all, fs))
		}
	}
	if np.index > 0 {
		if np.index > len(matches) {
			nf := fieldErr(missing, key, "%q: there are %d symbols named %s, not %d", symbol, len(matches), strings.Join(np.segs, "/"), np.index)
			nf.Details = map[string]any{"candidates": c.refCandidates(matches)}
			return nil, nf
		}
		matches = matches[np.index-1 : np.index]
	}
	switch len(matches) {
	case 0:
		where := "the workspace"
		if file != "" {
			where = file
		}
		nf := fieldErr(missing, key, "no symbol %q in %s", symbol, where)
		if best := rankNames(strings.Join(np.segs, "/"), names); len(best) > 0 {
			nf.Message += fmt.Sprintf("; did you mean %q?", best[0])
			nf.Details = map[string]any{"candidates": best}
		}
		return nil, nf
	case 1:
		return matches[0], nil
	}
	amb := fieldErr(failure.Ambiguous, key, "%q matches %d symbols; use one of the selectors listed", symbol, len(matches))
	amb.Details = map[string]any{"candidates": c.refCandidates(matches)}
	return nil, amb
}

// partOfMatchedType reports whether fs is another part of a partial type
// already matched in another file: one type, as dedupe counts it.
func partOfMatchedType(matches []*symbolRef, doc *document, fs fileSymbol) bool {
	switch fs.sym().Kind.String() {
	case "class", "struct", "interface":
	default:
		return false
	}
	for _, m := range matches {
		if m.doc.path != doc.path && m.sym.Kind == fs.sym().Kind && m.path == strings.Join(fs.segs, "/") {
			return true
		}
	}
	return false
}

// symbolRefOf builds the reference of fs among the file's symbols all.
func (c *call) symbolRefOf(doc *document, all []fileSymbol, fs fileSymbol) *symbolRef {
	ref := &symbolRef{doc: doc, sym: fs.sym(), chain: fs.chain, path: strings.Join(fs.segs, "/"), all: all}
	for _, o := range all {
		if o.sym().Kind == ref.sym.Kind && slices.Equal(o.segs, fs.segs) {
			ref.overloads++
			if o.sym().SelectionRange == ref.sym.SelectionRange {
				ref.overload = ref.overloads
			}
		}
	}
	return ref
}

func (c *call) refCandidates(refs []*symbolRef) []Candidate {
	out := make([]Candidate, 0, len(refs))
	for i, r := range refs {
		line, _ := r.doc.mapper.LineColumn(r.sym.SelectionRange.Start)
		cand := Candidate{Name: r.sym.Name, Kind: r.sym.Kind.String(), File: c.e.relPath(r.doc.uri), Line: line, Selector: r.selector()}
		if len(r.chain) > 1 {
			cand.Container = r.chain[len(r.chain)-2].Name
		}
		if n := len(refs); n > 1 && slices.ContainsFunc(refs, func(o *symbolRef) bool { return o != r && o.selector() == r.selector() }) {
			// Same selector in several files: the index across them picks one.
			cand.Selector = fmt.Sprintf("%s#%d", r.path, i+1)
		}
		out = append(out, cand)
	}
	return out
}

// maxCandidateFiles bounds the files a workspace-wide name path opens.
const maxCandidateFiles = 50

// maxMentionRead bounds the bytes read of each file searched for a name.
const maxMentionRead = 1 << 20

// filesMentioning lists up to maxCandidateFiles source files of the
// workspace that may declare name, for when the server's workspace
// symbols cannot be trusted to list it (they were cut at the server's
// cap): the files named after it first (Cart.cs, Cart.Totals.cs), then
// those whose text contains it.
func (c *call) filesMentioning(name string) []string {
	var named, mentioning []string
	walkFiles(c.e.root, func(p string) bool {
		if !c.s.checks(p) {
			return true
		}
		base := filepath.Base(p)
		if stem, _, _ := strings.Cut(base, "."); stem == name {
			named = append(named, p)
			return true
		}
		if len(mentioning) < maxCandidateFiles {
			if f, err := os.Open(p); err == nil {
				data, _ := io.ReadAll(io.LimitReader(f, maxMentionRead))
				f.Close()
				if bytes.Contains(data, []byte(name)) {
					mentioning = append(mentioning, p)
				}
			}
		}
		return len(named) < maxCandidateFiles
	})
	return append(named, mentioning...)[:min(len(named)+len(mentioning), maxCandidateFiles)]
}

// resolveInFiles resolves a name from the document symbols of the files
// that mention it, one resolved declaration or nil when none declares it.
func (c *call) resolveInFiles(ctx context.Context, t Target, kind lsp.SymbolKind) (*resolved, error) {
	type found struct {
		doc *document
		sym lsp.DocumentSymbol
		key string
	}
	var all []found
	for _, p := range c.filesMentioning(baseName(t.Symbol)) {
		doc, err := c.s.view(ctx, p)
		if err != nil {
			continue
		}
		syms, err := c.documentSymbols(ctx, doc)
		if err != nil {
			return nil, err
		}
		for _, s := range findByName(syms, t.Symbol, t.Container, kind) {
			_, chain := declarationIn(syms, doc.mapper, s.SelectionRange.Start)
			key := typeIdentity(&s, chain)
			if key != "" && slices.ContainsFunc(all, func(f found) bool { return f.key == key }) {
				continue // another part of a partial type
			}
			all = append(all, found{doc, s, key})
		}
	}
	switch len(all) {
	case 0:
		return nil, nil
	case 1:
		return &resolved{doc: all[0].doc, pos: all[0].sym.SelectionRange.Start, sym: &all[0].sym, name: all[0].sym.Name}, nil
	}
	cands := make([]Candidate, 0, len(all))
	for _, f := range all {
		line, _ := f.doc.mapper.LineColumn(f.sym.SelectionRange.Start)
		cands = append(cands, Candidate{Name: f.sym.Name, Kind: f.sym.Kind.String(), File: c.e.relPath(f.doc.uri), Line: line})
	}
	err := fieldErr(failure.Ambiguous, "symbol", "%q matches %d symbols; add container, kind or file to choose one", t.Symbol, len(all))
	err.Details = map[string]any{"candidates": cands}
	return nil, err
}

// candidateDocs lists the workspace files that declare a symbol named
// name, according to the server's workspace symbols.
func (c *call) candidateDocs(ctx context.Context, name string) ([]*document, error) {
	if err := c.s.require("workspaceSymbolProvider", "workspace/symbol"); err != nil {
		return nil, err
	}
	syms, err := c.workspaceSymbols(ctx, name)
	if err != nil {
		return nil, err
	}
	var uris []lsp.DocumentURI
	if c.s.capped(len(syms)) {
		// Cut at the server's cap: the declaring files may be missing.
		for _, p := range c.filesMentioning(name) {
			uris = append(uris, lsp.URIFromPath(p))
		}
	}
	for _, si := range syms {
		segs, _, _ := symbolSegments(si.Name)
		if len(segs) == 0 || segs[len(segs)-1] != name || strings.HasPrefix(c.e.relPath(si.Location.URI), "/") || slices.Contains(uris, si.Location.URI) {
			continue
		}
		uris = append(uris, si.Location.URI)
	}
	slices.Sort(uris)
	if len(uris) > maxCandidateFiles {
		uris = uris[:maxCandidateFiles]
	}
	docs := make([]*document, 0, len(uris))
	for _, u := range uris {
		doc, err := c.docAt(ctx, u)
		if err != nil {
			continue // a file the server knows but langhost does not read
		}
		docs = append(docs, doc)
	}
	return docs, nil
}
