package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// pushWait bounds how long diagnostics wait for a server to publish.
const pushWait = 15 * time.Second

// Workspace diagnostics from a server that has no workspace/diagnostic
// open every source file of the workspace, up to maxWorkspaceFiles, and
// wait up to workspaceWait for the server to report on each: servers such
// as pyright and typescript-language-server check only the files a client
// opens, so what they published by themselves is a silent subset.
const (
	maxWorkspaceFiles = 500
	workspaceWait     = 45 * time.Second
)

type diagnosticsInput struct {
	File        string `json:"file,omitempty" jsonschema:"file to check; omit for the whole workspace"`
	MinSeverity string `json:"min_severity,omitempty" jsonschema:"lowest severity to report: error, warning, info or hint (default hint)"`
	Detail      string `json:"detail,omitempty" jsonschema:"output detail: compact (no end positions), standard (default) or full"`
	Packet      string `json:"packet,omitempty" jsonschema:"also shape the diagnostics as a feedback packet: raw (default: none), compact or guided (with the server's repairs)"`
}

func (in *diagnosticsInput) validate() error {
	switch in.MinSeverity {
	case "", diagnostic.Error, diagnostic.Warning, diagnostic.Info, "information", diagnostic.Hint:
	default:
		return fieldErr(failure.InvalidInput, "min_severity", "unknown severity %q (error, warning, info or hint)", in.MinSeverity)
	}
	if err := checkPacket(in.Packet); err != nil {
		return err
	}
	return checkDetail(in.Detail)
}

type diagnosticsOutput struct {
	Diagnostics []diagnostic.Diagnostic `json:"diagnostics"`
	Counts      diagnostic.Counts       `json:"counts"`
	// Mode is "pull" (textDocument/diagnostic) or "push" (publishDiagnostics).
	Mode string `json:"mode"`
	// Incomplete when the server did not report on every file in time.
	Coverage
	// CheckedFiles is the number of files the diagnostics cover.
	CheckedFiles int `json:"checked_files"`
	// Packet is the diagnostics shaped as the input's packet asked.
	Packet *diagnostic.Packet `json:"packet,omitempty" jsonschema:"the diagnostics shaped as asked by packet"`
}

// fileDiags are the diagnostics of one file as the server gave them.
type fileDiags struct {
	uri   lsp.DocumentURI
	m     *lsp.Mapper // nil: read when converting
	diags []lsp.Diagnostic
}

func diagnostics(ctx context.Context, c *call, in *diagnosticsInput) (*diagnosticsOutput, error) {
	pull := c.s.supports("diagnosticProvider", "textDocument/diagnostic")
	out := &diagnosticsOutput{Mode: "push"}
	if pull {
		out.Mode = "pull"
	}
	var all []fileDiags
	var err error
	switch {
	case in.File != "":
		var doc *document
		if pull {
			doc, err = c.openOrView(ctx, "file", in.File)
		} else {
			doc, err = c.open(ctx, "file", in.File)
		}
		if err != nil {
			return nil, err
		}
		all, err = c.diagnosticsOfDocs(ctx, []*document{doc}, pull, pushWait, out)
	case pull && workspaceDiagnostics(c.s):
		var rep lsp.WorkspaceDiagnosticReport
		if err = c.s.call(ctx, "workspace/diagnostic", map[string]any{"previousResultIds": []any{}}, &rep); err != nil {
			return nil, err
		}
		for _, it := range rep.Items {
			all = append(all, fileDiags{uri: it.URI, diags: it.Items})
		}
	default:
		all, err = c.workspaceFileDiagnostics(ctx, pull, out)
	}
	if err != nil {
		return nil, err
	}
	out.CheckedFiles = len(all)
	out.Diagnostics = c.shapeDiagnostics(all, in)
	out.Counts = diagnostic.Count(out.Diagnostics)
	out.Packet = c.Packet(ctx, in.Packet, out.Diagnostics)
	return out, nil
}

// shapeDiagnostics converts the server's diagnostics to the one shape,
// keeps those at least as severe as asked, sorted without duplicates.
func (c *call) shapeDiagnostics(all []fileDiags, in *diagnosticsInput) []diagnostic.Diagnostic {
	minRank := diagnostic.Rank(diagnostic.NormalizeSeverity(in.MinSeverity))
	if in.MinSeverity == "" {
		minRank = diagnostic.Rank(diagnostic.Hint)
	}
	var ds []diagnostic.Diagnostic
	for _, fd := range all {
		m := fd.m
		if m == nil {
			m, _ = c.peekURI(fd.uri)
		}
		for _, d := range c.toDiagnostics(fd.uri, m, fd.diags) {
			if diagnostic.Rank(d.Severity) <= minRank {
				ds = append(ds, d)
			}
		}
	}
	// Duplicates go before the detail level drops the ends: diagnostics
	// that differ only in where they end are two (Roslyn reports CS0518
	// once per span), and compact must not merge them.
	ds = diagnostic.Normalize(ds)
	if in.Detail == detailCompact {
		for i := range ds {
			ds[i].EndLine, ds[i].EndColumn = 0, 0 // code and source stay: they say which rule and which tool
		}
	}
	return ds
}

// workspaceFileDiagnostics asks for the diagnostics of every source file
// in the workspace, one file at a time, and adds what the server
// published of its own accord for other workspace files.
func (c *call) workspaceFileDiagnostics(ctx context.Context, pull bool, out *diagnosticsOutput) ([]fileDiags, error) {
	if len(c.e.cfg.LanguageIDs) == 0 {
		// Without them every file would be opened, README and images too.
		out.Incomplete = "the server's configuration names no languageIds, so its source files are unknown: only what it published by itself is reported"
		var all []fileDiags
		for _, e := range c.s.srv.AllDiagnostics() {
			if !strings.HasPrefix(c.e.relPath(e.URI), "/") {
				all = append(all, fileDiags{uri: e.URI, diags: e.Diagnostics})
			}
		}
		return all, nil
	}
	var paths []string
	more := false
	walkFiles(c.e.root, func(path string) bool {
		if !c.s.checks(path) {
			return true
		}
		if len(paths) == maxWorkspaceFiles {
			more = true
			return false
		}
		paths = append(paths, path)
		return true
	})
	wait := workspaceWait
	if dl, ok := ctx.Deadline(); ok {
		// Leave time to answer with what arrived before the call's own
		// deadline ends it with nothing.
		wait = min(wait, time.Until(dl)*3/4)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var docs []*document
	for _, p := range paths {
		if wctx.Err() != nil {
			break
		}
		doc, err := c.s.document(wctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // removed or replaced meanwhile: not a source file any more
		}
		docs = append(docs, doc)
	}
	all, err := c.diagnosticsOfDocs(ctx, docs, pull, wait, out)
	if err != nil {
		return nil, err
	}
	if n := len(paths) - len(docs); n > 0 {
		out.Incomplete = joinReason(out.Incomplete, fmt.Sprintf("%d of %d source files could not be opened within %s", n, len(paths), wait.Round(time.Second)))
	}
	if more {
		out.Incomplete = joinReason(out.Incomplete, fmt.Sprintf("the workspace has more than %d source files; only the first %d were checked (ask for a file, or a server with workspace diagnostics)", maxWorkspaceFiles, maxWorkspaceFiles))
	}
	if pull {
		return all, nil
	}
	seen := map[lsp.DocumentURI]bool{}
	for _, fd := range all {
		seen[fd.uri] = true
	}
	for _, e := range c.s.srv.AllDiagnostics() {
		if !seen[e.URI] && !strings.HasPrefix(c.e.relPath(e.URI), "/") {
			all = append(all, fileDiags{uri: e.URI, diags: e.Diagnostics})
		}
	}
	return all, nil
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// diagnosticsOfDocs returns the diagnostics of open documents: pulled one
// by one, or the publications for their current versions once the server
// has finished its work (no work-done progress, nothing sent for
// settleTime). Files the server did not report on within wait make out
// incomplete, naming them.
func (c *call) diagnosticsOfDocs(ctx context.Context, docs []*document, pull bool, wait time.Duration, out *diagnosticsOutput) ([]fileDiags, error) {
	all := make([]fileDiags, 0, len(docs))
	if pull {
		for _, d := range docs {
			ds, err := c.fileDiagnostics(ctx, d, true)
			if err != nil {
				return nil, err
			}
			all = append(all, fileDiags{uri: d.uri, m: d.mapper, diags: ds})
		}
		return all, nil
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var missing []string
	for _, d := range docs {
		c.s.docMu.Lock()
		version, since := d.version, d.syncSeq
		c.s.docMu.Unlock()
		_, err := c.s.srv.WaitDiagnostics(wctx, d.uri, func(e lsp.DiagnosticsEntry) bool {
			if e.Version != nil {
				return *e.Version >= version
			}
			return e.Seq > since
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			missing = append(missing, c.e.relPath(d.uri))
		}
	}
	// Servers publish a file more than once (syntax, then types, then
	// analyzers: gopls's printf check comes a pass after its type errors)
	// and go on with dependents. A server with a diagnosis barrier
	// publishes everything before it answers; for the others take the
	// publications once the server is idle.
	settled, err := c.diagnoseAll(wctx, docs)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	barrierFailed := !settled && c.s.hasCommand(goplsDiagnoseFiles)
	if !settled {
		settled = c.s.srv.WaitIdle(wctx, settleTime) == nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, d := range docs {
		e, _ := c.s.srv.Diagnostics(d.uri)
		c.s.docMu.Lock()
		m := d.mapper
		c.s.docMu.Unlock()
		all = append(all, fileDiags{uri: d.uri, m: m, diags: e.Diagnostics})
	}
	switch {
	case len(missing) > 0:
		shown := missing[:min(len(missing), 5)]
		reason := fmt.Sprintf("%s published no diagnostics for %d of %d files within %s: %s", c.s.serverName(), len(missing), len(docs), wait.Round(time.Second), strings.Join(shown, ", "))
		if len(missing) > len(shown) {
			reason += ", ..."
		}
		out.Incomplete = joinReason(out.Incomplete, reason)
	case !settled:
		out.Incomplete = joinReason(out.Incomplete, fmt.Sprintf("%s was still working after %s (work-done progress or messages); later diagnostics may be missing", c.s.serverName(), wait.Round(time.Second)))
	case barrierFailed:
		// Without the barrier nothing says the analyzers' pass has been
		// published: a quiet moment comes between the passes.
		out.Incomplete = joinReason(out.Incomplete, fmt.Sprintf("%s did not run %s; diagnostics of its later passes (analyzers) may be missing", c.s.serverName(), goplsDiagnoseFiles))
	}
	return all, nil
}

// diskReader is a dialect whose server answers a diagnostic pull, a code
// action or formatting request for a file it was not given, from the file
// on disk as the watched-files notifications keep it.
type diskReader interface {
	answersFromDisk() bool
}

// answersFromDisk reports whether a file's diagnostics, code actions and
// formatting can be asked for without opening it in the server.
func answersFromDisk(s *session) bool {
	d, ok := s.dialect.(diskReader)
	return ok && d.answersFromDisk() && s.readsDisk()
}

func workspaceDiagnostics(s *session) bool {
	var opts struct {
		WorkspaceDiagnostics bool `json:"workspaceDiagnostics"`
	}
	_ = json.Unmarshal(s.caps["diagnosticProvider"], &opts)
	return opts.WorkspaceDiagnostics
}

// fileDiagnostics pulls a document's diagnostics, or waits (bounded) for
// the server to publish them for the synced version.
func (c *call) fileDiagnostics(ctx context.Context, doc *document, pull bool) ([]lsp.Diagnostic, error) {
	if pull {
		var rep lsp.DocumentDiagnosticReport
		err := c.s.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: doc.uri}}, &rep)
		if err != nil {
			return nil, err
		}
		return rep.Items, nil
	}
	c.s.docMu.Lock()
	version, since := doc.version, doc.syncSeq
	c.s.docMu.Unlock()
	wctx, cancel := context.WithTimeout(ctx, pushWait)
	defer cancel()
	e, err := c.s.srv.WaitDiagnostics(wctx, doc.uri, func(e lsp.DiagnosticsEntry) bool {
		if e.Version != nil {
			return *e.Version >= version
		}
		return e.Seq > since
	})
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	// Servers often publish twice (syntax, then types); let it settle.
	sctx, scancel := context.WithTimeout(ctx, settleTime)
	defer scancel()
	if later, err := c.s.srv.WaitDiagnostics(sctx, doc.uri, func(l lsp.DiagnosticsEntry) bool { return l.Seq > e.Seq }); err == nil {
		e = later
	}
	return e.Diagnostics, nil
}

// ---- get_source, type_members, containing_member

// declaration finds the declaration a target names: the symbol at its
// name, else the definition of the identifier at the position.
func (c *call) declaration(ctx context.Context, r *resolved) (*document, *lsp.DocumentSymbol, error) {
	if sym := c.symbol(ctx, r); sym != nil {
		return r.doc, sym, nil
	}
	defs, err := c.definitions(ctx, r)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range defs {
		if doc, sym := c.serverDeclarationOf(ctx, d); sym != nil {
			return doc, sym, nil
		}
	}
	return nil, nil, fieldErr(failure.NotFound, "symbol", "no declaration in the workspace for the symbol at %s", c.where(r))
}

// serverDeclarationOf is declarationOf with the server's own document
// symbols, whose details and children the source operations show.
func (c *call) serverDeclarationOf(ctx context.Context, l lsp.Location) (*document, *lsp.DocumentSymbol) {
	if strings.HasPrefix(c.e.relPath(l.URI), "/") {
		return nil, nil
	}
	doc, err := c.docAt(ctx, l.URI)
	if err != nil {
		return nil, nil
	}
	syms, err := c.serverSymbols(ctx, doc)
	if err != nil {
		return nil, nil
	}
	sym, _ := declarationIn(syms, doc.mapper, l.Range.Start)
	return doc, sym
}

// cloneSymbols copies a symbol tree, so that one copy's ranges can be
// changed.
func cloneSymbols(syms []lsp.DocumentSymbol) []lsp.DocumentSymbol {
	out := slices.Clone(syms)
	for i := range out {
		out[i].Children = cloneSymbols(out[i].Children)
	}
	return out
}

// samePath returns the symbols of syms at the places of path, a chain
// taken from a tree of the same shape (its clone with other ranges).
func samePath(syms []lsp.DocumentSymbol, path []lsp.DocumentSymbol) []lsp.DocumentSymbol {
	var out []lsp.DocumentSymbol
	for _, p := range path {
		i := slices.IndexFunc(syms, func(s lsp.DocumentSymbol) bool { return s.SelectionRange == p.SelectionRange && s.Name == p.Name })
		if i < 0 {
			break
		}
		out = append(out, syms[i])
		syms = syms[i].Children
	}
	return out
}

type getSourceOutput struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
	Source  string `json:"source"`
}

func getSource(ctx context.Context, c *call, in *targetInput) (*getSourceOutput, error) {
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	doc, sym, err := c.declaration(ctx, r)
	if err != nil {
		return nil, err
	}
	// Start the range at the beginning of its first line so indentation
	// is kept.
	rng := sym.Range
	rng.Start.Character = 0
	text, err := doc.mapper.RangeText(rng)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "range of %s from %s", sym.Name, c.s.name)
	}
	line, _ := doc.mapper.LineColumn(sym.Range.Start)
	end, _ := doc.mapper.LineColumn(sym.Range.End)
	return &getSourceOutput{Name: sym.Name, Kind: sym.Kind.String(), File: c.e.relPath(doc.uri), Line: line, EndLine: end, Source: text}, nil
}

type typeMembersOutput struct {
	Type    string       `json:"type"`
	Kind    string       `json:"kind"`
	File    string       `json:"file"`
	Line    int          `json:"line"`
	Members []SymbolNode `json:"members"`
	Coverage
}

func typeMembers(ctx context.Context, c *call, in *targetInput) (*typeMembersOutput, error) {
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	doc, sym, err := c.declaration(ctx, r)
	if err != nil {
		return nil, err
	}
	if !sym.Kind.IsType() && len(sym.Children) == 0 {
		return nil, fieldErr(failure.InvalidInput, "symbol", "%s is a %s, not a type", sym.Name, sym.Kind)
	}
	members := symbolNodes(doc, sym.Children, in.Detail, 1, 1)
	// Some servers (gopls) list methods at top level as "(T).M" or "(*T).M".
	if syms, err := c.documentSymbols(ctx, doc); err == nil {
		for _, s := range syms {
			if q := qualifier(s.Name); q != "" && q == baseName(sym.Name) && strings.HasPrefix(s.Name, "(") {
				members = append(members, symbolNodes(doc, []lsp.DocumentSymbol{s}, in.Detail, 1, 1)...)
			}
		}
	}
	line, _ := doc.mapper.LineColumn(sym.SelectionRange.Start)
	return &typeMembersOutput{Type: sym.Name, Kind: sym.Kind.String(), File: c.e.relPath(doc.uri), Line: line, Members: members}, nil
}

type positionInput struct {
	File   string `json:"file" jsonschema:"file path, relative to the workspace root or absolute inside it"`
	Line   int    `json:"line" jsonschema:"1-based line"`
	Column int    `json:"column,omitempty" jsonschema:"1-based column in Unicode characters (default 1)"`
}

type containingMemberOutput struct {
	Member SymbolNode `json:"member"`
	// Path lists the enclosing declarations, outermost first.
	Path []string `json:"path"`
}

func containingMember(ctx context.Context, c *call, in *positionInput) (*containingMemberOutput, error) {
	doc, err := c.view(ctx, "file", in.File)
	if err != nil {
		return nil, err
	}
	col := max(in.Column, 1)
	pos, err := c.position(doc, in.File, in.Line, col, "line", "column")
	if err != nil {
		return nil, err
	}
	// The member is chosen by the server's own ranges: csharp-ls counts a
	// member's doc comment in it, as the raw server answers. It is shown
	// with the declaration's range without that trivia.
	raw, err := c.serverRanges(ctx, doc)
	if err != nil {
		return nil, err
	}
	syms := cloneSymbols(raw)
	if c.e.cfg.Dialect == DialectCSharpLS {
		trimTrivia(doc.mapper, syms)
	}
	path := samePath(syms, symbolPath(raw, pos))
	if len(path) == 0 {
		return nil, fieldErr(failure.NotFound, "line", "no declaration contains %s:%d:%d", in.File, in.Line, col)
	}
	inner := path[len(path)-1]
	inner.Children = nil
	out := &containingMemberOutput{Member: symbolNodes(doc, []lsp.DocumentSymbol{inner}, detailStandard, 1, 1)[0]}
	for _, p := range path {
		out.Path = append(out.Path, p.Name)
	}
	return out, nil
}
