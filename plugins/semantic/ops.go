package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Detail levels of operation output.
const (
	detailCompact  = "compact"
	detailStandard = "standard"
	detailFull     = "full"
)

func checkDetail(d string) error {
	switch d {
	case "", detailCompact, detailStandard, detailFull:
		return nil
	}
	return fieldErr(failure.InvalidInput, "detail", "unknown detail %q (want compact, standard or full)", d)
}

// Loc is a location in output: a path relative to the workspace root (or
// absolute outside it) with 1-based line and column.
type Loc struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
}

// loc converts an LSP range; end positions only with full detail.
func (c *call) loc(uri lsp.DocumentURI, r lsp.Range, detail string) Loc {
	m, _ := c.peekURI(uri)
	return c.locIn(m, uri, r, detail)
}

// locIn converts an LSP range with the mapper of uri's content, if known.
func (c *call) locIn(m *lsp.Mapper, uri lsp.DocumentURI, r lsp.Range, detail string) Loc {
	return locAt(m, c.e.relPath(uri), r, detail)
}

// locAt converts an LSP range in the file rendered as file.
func locAt(m *lsp.Mapper, file string, r lsp.Range, detail string) Loc {
	l := Loc{File: file, Line: int(r.Start.Line) + 1, Column: int(r.Start.Character) + 1}
	if m == nil {
		return l
	}
	l.Line, l.Column = m.LineColumn(r.Start)
	if detail == detailFull {
		l.EndLine, l.EndColumn = m.LineColumn(r.End)
	}
	return l
}

func (c *call) lineText(uri lsp.DocumentURI, line uint32) string {
	m, err := c.peekURI(uri)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(m.LineText(int(line) + 1))
}

func (c *call) docPos(doc *document, pos lsp.Position) map[string]any {
	return map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: doc.uri}, "position": pos}
}

func (c *call) where(r *resolved) string {
	line, col := r.doc.mapper.LineColumn(r.pos)
	return fmt.Sprintf("%s:%d:%d", c.e.relPath(r.doc.uri), line, col)
}

// ---- find_symbol

type findSymbolInput struct {
	Query  string `json:"query" jsonschema:"name or fuzzy pattern to search for"`
	Kind   string `json:"kind,omitempty" jsonschema:"only symbols of this kind"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of results (default 50)"`
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findSymbolInput) validate() error {
	if strings.TrimSpace(in.Query) == "" {
		return fieldErr(failure.InvalidInput, "query", "is required")
	}
	if in.Kind != "" && lsp.ParseSymbolKind(in.Kind) == 0 {
		return fieldErr(failure.InvalidInput, "kind", "unknown symbol kind %q", in.Kind)
	}
	if in.Limit < 0 {
		return fieldErr(failure.InvalidInput, "limit", "must not be negative")
	}
	return checkDetail(in.Detail)
}

// SymbolItem is a symbol found in the workspace.
type SymbolItem struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Container string `json:"container,omitempty"`
	Loc
	// Parts are the other declarations of the same type (a C# partial
	// class), which is listed once.
	Parts []Loc `json:"parts,omitempty"`
}

type findSymbolOutput struct {
	Symbols   []SymbolItem `json:"symbols"`
	Total     int          `json:"total"`
	Truncated bool         `json:"truncated,omitempty"`
	// Incomplete when the server cut its answer at its cap, so that
	// symbols matching the query are missing.
	Coverage
}

func findSymbol(ctx context.Context, c *call, in *findSymbolInput) (*findSymbolOutput, error) {
	if err := c.s.require("workspaceSymbolProvider", "workspace/symbol"); err != nil {
		return nil, err
	}
	syms, err := c.workspaceSymbols(ctx, in.Query)
	if err != nil {
		return nil, err
	}
	capped := c.s.capped(len(syms))
	syms, parts := dedupeParts(syms, c.typeIdentityOf(ctx))
	// A symbol kept travels with its partial type's other parts.
	type found struct {
		lsp.SymbolInformation
		parts []lsp.Location
	}
	kind := lsp.ParseSymbolKind(in.Kind)
	var kept []found
	for i, si := range syms {
		if kind == 0 || si.Kind == kind {
			kept = append(kept, found{si, parts[i]})
		}
	}
	// Workspace symbols first, then exact name matches, keeping server order.
	rank := func(si found) int {
		r := 0
		if strings.HasPrefix(c.e.relPath(si.Location.URI), "/") {
			r += 2
		}
		if baseName(si.Name) != in.Query && si.Name != in.Query {
			r++
		}
		return r
	}
	sort.SliceStable(kept, func(i, j int) bool { return rank(kept[i]) < rank(kept[j]) })
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	out := &findSymbolOutput{Symbols: []SymbolItem{}, Total: len(kept)}
	if capped {
		out.Truncated = true
		out.Incomplete = fmt.Sprintf("%s returned %d symbols, its cap: more symbols match %q; narrow the query", c.s.serverName(), len(syms), in.Query)
	}
	for i, si := range kept {
		if i == limit {
			out.Truncated = true
			break
		}
		item := SymbolItem{Name: si.Name, Kind: si.Kind.String(), Loc: Loc{File: c.e.relPath(si.Location.URI)}}
		if si.Location.Range != nil {
			item.Loc = c.loc(si.Location.URI, *si.Location.Range, in.Detail)
		}
		if in.Detail != detailCompact {
			item.Container = si.ContainerName
		} else {
			item.Column = 0
		}
		for _, p := range si.parts {
			l := c.loc(p.URI, p.Range, in.Detail)
			if in.Detail == detailCompact {
				l.Column = 0
			}
			item.Parts = append(item.Parts, l)
		}
		out.Symbols = append(out.Symbols, item)
	}
	return out, nil
}

// ---- file_symbols

type fileSymbolsInput struct {
	File   string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Depth  int    `json:"depth,omitempty" jsonschema:"maximum nesting depth, 1 = top level only (default: all)"`
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *fileSymbolsInput) validate() error { return checkDetail(in.Detail) }

// SymbolNode is a declaration in a file.
type SymbolNode struct {
	Name      string         `json:"name"`
	Kind      string         `json:"kind"`
	Detail    string         `json:"detail,omitempty"`
	Line      int            `json:"line"`
	Column    int            `json:"column,omitempty"`
	EndLine   int            `json:"end_line,omitempty"`
	EndColumn int            `json:"end_column,omitempty"`
	Children  symbolChildren `json:"children,omitempty"`
}

// symbolChildren are nested declarations; a named type so the schema
// generator can describe the recursion.
type symbolChildren []SymbolNode

type fileSymbolsOutput struct {
	File    string       `json:"file"`
	Symbols []SymbolNode `json:"symbols"`
	Coverage
}

func fileSymbols(ctx context.Context, c *call, in *fileSymbolsInput) (*fileSymbolsOutput, error) {
	doc, err := c.view(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	syms, err := c.serverSymbols(ctx, doc)
	if err != nil {
		return nil, err
	}
	return &fileSymbolsOutput{File: c.e.relPath(doc.uri), Symbols: symbolNodes(doc, syms, in.Detail, in.Depth, 1)}, nil
}

func symbolNodes(doc *document, syms []lsp.DocumentSymbol, detail string, maxDepth, depth int) []SymbolNode {
	nodes := make([]SymbolNode, 0, len(syms))
	for _, s := range syms {
		n := SymbolNode{Name: s.Name, Kind: s.Kind.String()}
		n.Line, n.Column = doc.mapper.LineColumn(s.SelectionRange.Start)
		switch detail {
		case detailCompact:
			n.Column = 0
		case detailFull:
			n.Detail = s.Detail
			n.EndLine, n.EndColumn = doc.mapper.LineColumn(s.Range.End)
		default:
			n.Detail = s.Detail
			n.EndLine, _ = doc.mapper.LineColumn(s.Range.End)
		}
		if maxDepth == 0 || depth < maxDepth {
			n.Children = symbolNodes(doc, s.Children, detail, maxDepth, depth+1)
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// ---- symbol_info

type targetInput struct {
	Target
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *targetInput) validate() error { return checkDetail(in.Detail) }

type symbolInfoInput struct {
	Target
	Detail                string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
	IncludeReferenceCount bool   `json:"include_reference_count,omitempty" jsonschema:"also count the symbol's references (one references request)"`
}

func (in *symbolInfoInput) validate() error { return checkDetail(in.Detail) }

// symbolInfoOutput is the symbol envelope.
type symbolInfoOutput struct {
	Name        string `json:"name"`
	Kind        string `json:"kind,omitempty"`
	Container   string `json:"container,omitempty"`
	Definition  *Loc   `json:"definition,omitempty"`
	Definitions []Loc  `json:"definitions,omitempty"`
	Hover       string `json:"hover,omitempty"`

	// The envelope of a declaration in the workspace.
	SymbolID         string     `json:"symbol_id,omitempty" jsonschema:"stable id: the same across calls and unrelated edits; changes when the symbol is renamed or moved"`
	NamePath         string     `json:"name_path,omitempty" jsonschema:"selector that addresses the symbol in structured edits (Shape/Area, Area#2)"`
	Modifiers        []string   `json:"modifiers,omitempty"`
	Signature        string     `json:"signature,omitempty"`
	ContainingSymbol string     `json:"containing_symbol,omitempty" jsonschema:"name path of the enclosing declaration"`
	Documentation    string     `json:"documentation,omitempty"`
	Overloads        []Overload `json:"overloads,omitempty" jsonschema:"the other declarations with the same name path and kind"`
	Declaration      *Loc       `json:"declaration,omitempty"`
	ReferenceCount   *int       `json:"reference_count,omitempty"`
}

// Overload is another declaration sharing a symbol's name path.
type Overload struct {
	Selector  string `json:"selector"`
	Signature string `json:"signature,omitempty"`
	Line      int    `json:"line"`
}

func symbolInfo(ctx context.Context, c *call, in *symbolInfoInput) (*symbolInfoOutput, error) {
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	out := &symbolInfoOutput{}
	defs, err := c.definitions(ctx, r)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		out.Definitions = append(out.Definitions, c.loc(d.URI, d.Range, in.Detail))
	}
	if len(out.Definitions) > 0 {
		out.Definition = &out.Definitions[0]
		if len(out.Definitions) == 1 {
			out.Definitions = nil
		}
		if sym, path := c.declarationOf(ctx, defs[0]); sym != nil {
			out.Name, out.Kind = sym.Name, sym.Kind.String()
			if len(path) > 1 {
				out.Container = path[len(path)-2].Name
			}
		}
	}
	if out.Name == "" {
		out.Name = c.targetName(ctx, r)
	}
	if in.Detail != detailCompact && c.s.supports("hoverProvider", "textDocument/hover") {
		var h lsp.Hover
		if err := c.s.call(ctx, "textDocument/hover", c.docPos(r.doc, r.pos), &h); err != nil {
			return nil, err
		}
		out.Hover = strings.TrimSpace(h.Text())
		out.Documentation = out.Hover
	}
	if out.Definition == nil && out.Hover == "" {
		return nil, fieldErr(failure.NotFound, "column", "no symbol at %s", c.where(r))
	}
	if ref := c.envelopeRef(ctx, r, defs); ref != nil {
		c.envelope(ref, out)
	}
	if in.IncludeReferenceCount && c.s.supports("referencesProvider", "textDocument/references") {
		params := c.docPos(r.doc, r.pos)
		params["context"] = map[string]bool{"includeDeclaration": false}
		var locs []lsp.Location
		if err := c.s.call(ctx, "textDocument/references", params, &locs); err != nil {
			return nil, err
		}
		n := len(locs)
		out.ReferenceCount = &n
	}
	return out, nil
}

// envelopeRef finds the declaration a symbol_info target names among its
// file's symbols, when it is in the workspace.
func (c *call) envelopeRef(ctx context.Context, r *resolved, defs []lsp.Location) *symbolRef {
	doc, sel := r.doc, lsp.Range{}
	switch {
	case r.sym != nil:
		sel = r.sym.SelectionRange
	case len(defs) > 0:
		d, sym := c.serverDeclarationOf(ctx, defs[0])
		if sym == nil {
			return nil
		}
		doc, sel = d, sym.SelectionRange
	default:
		sym := c.symbol(ctx, r)
		if sym == nil {
			return nil
		}
		sel = sym.SelectionRange
	}
	syms, err := c.serverSymbols(ctx, doc)
	if err != nil {
		return nil
	}
	all := flatten(syms)
	for _, fs := range all {
		if fs.sym().SelectionRange == sel {
			return c.symbolRefOf(doc, all, fs)
		}
	}
	return nil
}

// declModifiers are the keywords read as modifiers from a declaration's
// text before its name.
var declModifiers = []string{"public", "private", "protected", "internal", "static", "abstract", "virtual", "override",
	"sealed", "readonly", "const", "async", "extern", "partial", "unsafe", "volatile", "export", "default", "declare", "final"}

// envelope fills the declaration's part of the symbol envelope.
func (c *call) envelope(ref *symbolRef, out *symbolInfoOutput) {
	out.SymbolID, out.NamePath = c.symbolID(ref), ref.selector()
	if segs := strings.Split(ref.path, "/"); len(segs) > 1 {
		out.ContainingSymbol = strings.Join(segs[:len(segs)-1], "/")
	}
	l := c.locIn(ref.doc.mapper, ref.doc.uri, ref.sym.SelectionRange, detailStandard)
	out.Declaration = &l
	text := string(ref.doc.content())
	if d, err := c.declText(ref, text); err == nil {
		head := text[d.leadingStart():d.selEnd]
		for _, w := range strings.FieldsFunc(head, func(r rune) bool { return !(r == '@' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
			switch {
			case slices.Contains(declModifiers, w) && !slices.Contains(out.Modifiers, w):
				out.Modifiers = append(out.Modifiers, w)
			case d.python && (w == "@staticmethod" || w == "@classmethod" || w == "@property"):
				out.Modifiers = append(out.Modifiers, strings.TrimPrefix(w, "@"))
			}
		}
		if out.Signature = strings.TrimSpace(ref.sym.Detail); out.Signature == "" || c.e.lang == "go" {
			// gopls details are types ("func() float64"); the declaration's
			// first line reads better.
			// The line of the name: decorators and attributes above it are
			// modifiers, not signature.
			sig := strings.TrimSpace(text[max(d.start, lineStart(text, d.selEnd)):lineEnd(text, d.selEnd)])
			sig = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(sig, "{"), ":"))
			if len(sig) > 300 {
				sig = sig[:300] + "…"
			}
			out.Signature = sig
		}
	}
	name := baseName(ref.path)
	switch {
	case c.e.lang == "go" && name != "" && strings.ToUpper(name[:1]) == name[:1]:
		out.Modifiers = append(out.Modifiers, "exported")
	case c.e.lang == "python" && strings.HasPrefix(name, "_") && !strings.HasSuffix(name, "__"):
		out.Modifiers = append(out.Modifiers, "private")
	}
	if ref.overloads > 1 {
		for _, fs := range ref.all {
			o := c.symbolRefOf(ref.doc, ref.all, fs)
			if o.path == ref.path && o.sym.Kind == ref.sym.Kind && o.overload != ref.overload {
				line, _ := ref.doc.mapper.LineColumn(o.sym.SelectionRange.Start)
				out.Overloads = append(out.Overloads, Overload{Selector: o.selector(), Signature: o.sym.Detail, Line: line})
			}
		}
	}
}

func (c *call) definitions(ctx context.Context, r *resolved) ([]lsp.Location, error) {
	if !c.s.supports("definitionProvider", "textDocument/definition") {
		if sym := c.symbol(ctx, r); sym != nil {
			return []lsp.Location{{URI: r.doc.uri, Range: sym.SelectionRange}}, nil
		}
		return nil, c.s.unsupported("textDocument/definition")
	}
	var raw json.RawMessage
	if err := c.s.call(ctx, "textDocument/definition", c.docPos(r.doc, r.pos), &raw); err != nil {
		return nil, err
	}
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "decoding definition result from %s", c.s.name)
	}
	return locs, nil
}

// declarationOf finds the declaration at a location in its file's outline,
// and the chain of declarations containing it. Files outside the
// workspace are not read, so their declarations are unknown.
func (c *call) declarationOf(ctx context.Context, l lsp.Location) (*lsp.DocumentSymbol, []lsp.DocumentSymbol) {
	if strings.HasPrefix(c.e.relPath(l.URI), "/") {
		return nil, nil
	}
	p, err := l.URI.Path()
	if err != nil {
		return nil, nil
	}
	f, err := c.s.read(p)
	if err != nil {
		return nil, nil
	}
	syms, err := c.outline(ctx, f)
	if err != nil {
		return nil, nil
	}
	return declarationIn(syms, f.mapper, l.Range.Start)
}

// declarationIn finds the declaration at pos among syms, and the chain of
// declarations containing pos.
func declarationIn(syms []lsp.DocumentSymbol, m *lsp.Mapper, pos lsp.Position) (*lsp.DocumentSymbol, []lsp.DocumentSymbol) {
	path := symbolPath(syms, pos)
	sym := declarationAt(syms, pos, identifierAt(m, pos))
	if sym == nil && len(path) > 0 {
		sym = &path[len(path)-1]
	}
	return sym, path
}

// identifierAt returns the identifier starting at or around pos.
func identifierAt(m *lsp.Mapper, pos lsp.Position) string {
	line := []rune(m.LineText(int(pos.Line) + 1))
	_, col := m.LineColumn(pos)
	i := col - 1
	isIdent := func(r rune) bool {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
	}
	start, end := i, i
	for start > 0 && start-1 < len(line) && isIdent(line[start-1]) {
		start--
	}
	for end < len(line) && isIdent(line[end]) {
		end++
	}
	if start >= end {
		return ""
	}
	return string(line[start:end])
}

// ---- find_references

type findReferencesInput struct {
	Target
	IncludeDeclaration bool   `json:"include_declaration,omitempty" jsonschema:"include the declaration itself (default false)"`
	Offset             int    `json:"offset,omitempty" jsonschema:"index of the first reference to return (pagination)"`
	Limit              int    `json:"limit,omitempty" jsonschema:"maximum number of references to return (default 100)"`
	Detail             string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findReferencesInput) validate() error {
	if in.Offset < 0 {
		return fieldErr(failure.InvalidInput, "offset", "must not be negative")
	}
	if in.Limit < 0 {
		return fieldErr(failure.InvalidInput, "limit", "must not be negative")
	}
	return checkDetail(in.Detail)
}

// Reference is one use of a symbol.
type Reference struct {
	Loc
	Snippet          string `json:"snippet,omitempty"`
	ContainingMember string `json:"containing_member,omitempty"`
	ContainingKind   string `json:"containing_kind,omitempty"`
}

type findReferencesOutput struct {
	Symbol     string      `json:"symbol"`
	Total      int         `json:"total"`
	Offset     int         `json:"offset"`
	References []Reference `json:"references"`
	NextOffset *int        `json:"next_offset,omitempty"`
	// MembersTruncated is set when references of this page past the first
	// 200 carry no containing member; a smaller limit gets them.
	MembersTruncated bool `json:"members_truncated,omitempty" jsonschema:"references past the first 200 of this page carry no containingMember; page with a smaller limit to get them"`
	Coverage
}

func findReferences(ctx context.Context, c *call, in *findReferencesInput) (*findReferencesOutput, error) {
	if err := c.s.require("referencesProvider", "textDocument/references"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	params := c.docPos(r.doc, r.pos)
	params["context"] = map[string]bool{"includeDeclaration": in.IncludeDeclaration}
	var locs []lsp.Location
	if err := c.s.call(ctx, "textDocument/references", params, &locs); err != nil {
		return nil, err
	}
	// Named after the request: on a server still cold, the outline costs
	// seconds of CPU that the request needs, and little once it is done.
	symbol := c.targetName(ctx, r)
	sortLocations(locs)
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	out := &findReferencesOutput{Symbol: symbol, Total: len(locs), Offset: in.Offset, References: []Reference{}}
	if in.Offset >= len(locs) {
		return out, nil
	}
	page := locs[in.Offset:min(in.Offset+limit, len(locs))]
	if next := in.Offset + len(page); next < len(locs) {
		out.NextOffset = &next
	}
	out.References, out.MembersTruncated = c.references(ctx, page, in.Detail)
	return out, nil
}

// refFile is a file of a page of references, read once for all of them.
type refFile struct {
	uri    lsp.DocumentURI
	rel    string      // uri as output renders it
	enrich bool        // some of its references get a containing member
	mapper *lsp.Mapper // nil when it cannot be read (outside the workspace)
	syms   []lsp.DocumentSymbol
}

// references renders locations with their line text and, for the first
// maxEnriched, the member containing them. Each file is read and outlined
// once, enrichWorkers files at a time; nothing is opened in the server.
func (c *call) references(ctx context.Context, locs []lsp.Location, detail string) (refs []Reference, truncated bool) {
	files := map[lsp.DocumentURI]*refFile{}
	var order []*refFile
	for i, l := range locs {
		f := files[l.URI]
		if f == nil {
			f = &refFile{uri: l.URI, rel: c.e.relPath(l.URI)}
			files[l.URI] = f
			order = append(order, f)
		}
		if detail != detailCompact {
			if i < maxEnriched {
				f.enrich = true
			} else {
				truncated = true
			}
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, enrichWorkers)
	for _, f := range order {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c.loadRefFile(ctx, f)
		})
	}
	wg.Wait()

	refs = make([]Reference, 0, len(locs))
	for i, l := range locs {
		f := files[l.URI]
		ref := Reference{Loc: locAt(f.mapper, f.rel, l.Range, detail)}
		if detail != detailCompact && f.mapper != nil {
			ref.Snippet = strings.TrimSpace(f.mapper.LineText(int(l.Range.Start.Line) + 1))
		}
		if i < maxEnriched {
			if path := symbolPath(f.syms, l.Range.Start); len(path) > 0 {
				inner := path[len(path)-1]
				ref.ContainingMember, ref.ContainingKind = inner.Name, inner.Kind.String()
			}
		}
		refs = append(refs, ref)
	}
	return refs, truncated
}

// loadRefFile reads f and, when its references are enriched, its outline.
// A file that cannot be read keeps the server's positions and no member.
func (c *call) loadRefFile(ctx context.Context, f *refFile) {
	p, err := f.uri.Path()
	if err != nil {
		return
	}
	content, err := c.s.read(p)
	if err != nil {
		return
	}
	f.mapper = content.mapper
	if f.enrich {
		f.syms, _ = c.outline(ctx, content)
	}
}

func sortLocations(locs []lsp.Location) {
	sort.SliceStable(locs, func(i, j int) bool {
		a, b := locs[i], locs[j]
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		return a.Range.Start.Before(b.Range.Start)
	})
}

// ---- find_implementations

// Implementation is a type or member implementing the target.
type Implementation struct {
	Loc
	Name    string `json:"name,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Snippet string `json:"snippet,omitempty"`
	// Parts are the other declarations of the same type (a C# partial
	// class), which is listed once.
	Parts []Loc `json:"parts,omitempty"`
}

type findImplementationsOutput struct {
	Symbol          string           `json:"symbol"`
	Total           int              `json:"total"`
	Implementations []Implementation `json:"implementations"`
	Coverage
}

func findImplementations(ctx context.Context, c *call, in *targetInput) (*findImplementationsOutput, error) {
	if err := c.s.require("implementationProvider", "textDocument/implementation"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	if err := c.s.call(ctx, "textDocument/implementation", c.docPos(r.doc, r.pos), &raw); err != nil {
		return nil, err
	}
	symbol := c.targetName(ctx, r)
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "decoding implementation result from %s", c.s.name)
	}
	sortLocations(locs)
	out := &findImplementationsOutput{Symbol: symbol, Implementations: []Implementation{}}
	parts := map[string]int{} // type identity -> index in out
	for _, l := range locs {
		impl := Implementation{Loc: c.loc(l.URI, l.Range, in.Detail)}
		if sym, chain := c.declarationOf(ctx, l); sym != nil {
			impl.Name, impl.Kind = sym.Name, sym.Kind.String()
			if key := typeIdentity(sym, chain); key != "" {
				if i, ok := parts[key]; ok {
					out.Implementations[i].Parts = append(out.Implementations[i].Parts, impl.Loc)
					continue
				}
				parts[key] = len(out.Implementations)
			}
		} else if m, err := c.peekURI(l.URI); err == nil {
			impl.Name = identifierAt(m, l.Range.Start)
		}
		if in.Detail != detailCompact {
			impl.Snippet = c.lineText(l.URI, l.Range.Start.Line)
		}
		out.Implementations = append(out.Implementations, impl)
	}
	out.Total = len(out.Implementations)
	return out, nil
}

// typeIdentity names the type sym declares by its kind and its chain of
// containers, so that the parts of a partial type, declared in several
// places, are one; "" for other symbols (overloads are distinct).
func typeIdentity(sym *lsp.DocumentSymbol, chain []lsp.DocumentSymbol) string {
	if !isTypeKind(sym.Kind) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", sym.Kind)
	for _, c := range chain {
		if c.SelectionRange != sym.SelectionRange {
			b.WriteString("\x00" + c.Name)
		}
	}
	return b.String() + "\x00" + sym.Name
}

func (c *call) peekURI(uri lsp.DocumentURI) (*lsp.Mapper, error) {
	p, err := uri.Path()
	if err != nil {
		return nil, err
	}
	return c.s.peek(p)
}
