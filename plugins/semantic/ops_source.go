package semantic

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// pushWait bounds how long diagnostics wait for a server to publish.
const pushWait = 15 * time.Second

type diagnosticsInput struct {
	File        string `json:"file,omitempty" jsonschema:"file to check; omit for the whole workspace"`
	MinSeverity string `json:"minSeverity,omitempty" jsonschema:"lowest severity to report: error, warning, information or hint (default hint)"`
	Detail      string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *diagnosticsInput) validate() error {
	switch in.MinSeverity {
	case "", "error", "warning", "information", "hint":
	default:
		return fieldErr(failure.InvalidInput, "minSeverity", "unknown severity %q", in.MinSeverity)
	}
	return checkDetail(in.Detail)
}

// DiagnosticItem is one diagnostic.
type DiagnosticItem struct {
	Loc
	Severity string `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}

type diagnosticsOutput struct {
	Diagnostics []DiagnosticItem `json:"diagnostics"`
	Counts      map[string]int   `json:"counts"`
	// Mode is "pull" (textDocument/diagnostic) or "push" (publishDiagnostics).
	Mode string `json:"mode"`
}

func severityRank(s string) lsp.DiagnosticSeverity {
	switch s {
	case "error":
		return 1
	case "warning":
		return 2
	case "information":
		return 3
	}
	return 4
}

func diagnostics(ctx context.Context, c *call, in *diagnosticsInput) (*diagnosticsOutput, error) {
	type fileDiags struct {
		uri   lsp.DocumentURI
		diags []lsp.Diagnostic
	}
	var all []fileDiags
	pull := c.s.supports("diagnosticProvider", "textDocument/diagnostic")
	out := &diagnosticsOutput{Mode: "push", Diagnostics: []DiagnosticItem{}, Counts: map[string]int{}}
	if pull {
		out.Mode = "pull"
	}
	if in.File != "" {
		doc, err := c.open(ctx, "file", in.File)
		if err != nil {
			return nil, err
		}
		diags, err := c.fileDiagnostics(ctx, doc, pull)
		if err != nil {
			return nil, err
		}
		all = append(all, fileDiags{doc.uri, diags})
	} else if pull && workspaceDiagnostics(c.s) {
		var rep lsp.WorkspaceDiagnosticReport
		if err := c.s.call(ctx, "workspace/diagnostic", map[string]any{"previousResultIds": []any{}}, &rep); err != nil {
			return nil, err
		}
		for _, it := range rep.Items {
			all = append(all, fileDiags{it.URI, it.Items})
		}
	} else {
		out.Mode = "push"
		// Let the server finish the analysis it is doing, then report what
		// it has published.
		wctx, cancel := context.WithTimeout(ctx, pushWait)
		_ = c.s.srv.WaitIdle(wctx, settleTime)
		cancel()
		for _, e := range c.s.srv.AllDiagnostics() {
			all = append(all, fileDiags{e.URI, e.Diagnostics})
		}
	}
	minSev := severityRank(in.MinSeverity)
	if in.MinSeverity == "" {
		minSev = 4
	}
	for _, fd := range all {
		for _, d := range fd.diags {
			sev := d.Severity
			if sev == 0 {
				sev = 1
			}
			if sev > minSev {
				continue
			}
			item := DiagnosticItem{Loc: c.loc(fd.uri, d.Range, in.Detail), Severity: sev.String(), Message: d.Message}
			if in.Detail != detailCompact {
				item.Code, item.Source = d.CodeString(), d.Source
			}
			out.Counts[item.Severity]++
			out.Diagnostics = append(out.Diagnostics, item)
		}
	}
	sort.SliceStable(out.Diagnostics, func(i, j int) bool {
		a, b := out.Diagnostics[i], out.Diagnostics[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out, nil
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
	syms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return nil, nil
	}
	sym, _ := declarationIn(syms, doc.mapper, l.Range.Start)
	return doc, sym
}

type getSourceOutput struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	EndLine int    `json:"endLine"`
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
	syms, err := c.documentSymbols(ctx, doc)
	if err != nil {
		return nil, err
	}
	path := symbolPath(syms, pos)
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
