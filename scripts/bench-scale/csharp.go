package main

// The C# mode: every semantic operation of issue 18 on a real solution,
// through three paths in the same run, interleaved per query: langhost's
// CLI (each query a `langhost run` process that finds the workspace's
// daemon warm), langhost's MCP server (the official SDK client over the
// real binary) and the bare csharp-ls, sent the same LSP requests
// langhost's plugin sends, with langhost's client capabilities.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/difftest"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/semantic"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// csTarget is what one query of an operation is about: a declaration (a
// type or member), a search query, a method's name path or a file.
type csTarget struct {
	symbol
	query    string // find_symbol
	namePath string // method_overloads: Type/Method
	inside   int    // containing_member: this many lines below the declaration
}

// answer is the comparable part of a result.
type answer struct {
	n    int      // results
	keys []string // sorted; what is compared
	// failed is the failure class when the call failed as the operation
	// expects (organize_imports on csharp-ls: unsupported_by_server).
	failed string
}

func (a answer) same(b answer) bool {
	return a.n == b.n && a.failed == b.failed && slices.Equal(a.keys, b.keys)
}

func (a answer) String() string {
	if a.failed != "" {
		return a.failed
	}
	k := a.keys
	if len(k) > 6 {
		k = append(k[:6:6], "...")
	}
	return fmt.Sprintf("%d %q", a.n, k)
}

// csOp is one operation measured through the three paths.
type csOp struct {
	name     string // the name for it
	tool     string // langhost's tool, without the language
	requests string // what the raw column sends
	compared string // what is compared, and what is not
	targets  []csTarget
	input    func(t csTarget) map[string]any
	raw      func(ctx context.Context, r *csRaw, t csTarget) (answer, error)
	langhost func(r *csResult) (answer, error)
	// rawLimit caps the raw queries when the raw side is not an LSP
	// request (a dotnet command taking seconds); 0 is no cap.
	rawLimit int
	// seed is the seed spec's cached figure on 150k lines, 0 when none.
	seed time.Duration
}

// csResult is a langhost result: the structured output, or the failure.
type csResult struct {
	data     json.RawMessage
	code     string // failure class, "" on success
	message  string
	inner    time.Duration // duration_ms, the time inside the tool call
	bytes    int
	exitCode int // CLI only
}

// ---- the operations

func targetsOf(syms []symbol, inside int) []csTarget {
	out := make([]csTarget, len(syms))
	for i, s := range syms {
		out[i] = csTarget{symbol: s, inside: inside}
	}
	return out
}

// filesOf are the distinct files of syms.
func filesOf(syms []symbol) []csTarget {
	var out []csTarget
	for _, s := range syms {
		if !slices.ContainsFunc(out, func(t csTarget) bool { return t.file == s.file }) {
			out = append(out, csTarget{symbol: symbol{file: s.file}})
		}
	}
	return out
}

func posInput(t csTarget) map[string]any {
	return map[string]any{"file": t.file, "line": t.line, "column": t.column}
}

func csOps(p csPicks) []csOp {
	types := p.types
	withLimit := func(t csTarget) map[string]any {
		in := posInput(t)
		in["limit"] = 100000 // every result, to compare the sets
		return in
	}
	return []csOp{
		{
			name: "symbol info (hover)", tool: "symbol_info", seed: 45 * time.Millisecond,
			requests: "definition, documentSymbol of the definition's file, hover (not at compact)",
			compared: "definition file:line and the hover text (none at compact)",
			targets:  targetsOf(append(slices.Clone(types), p.members...), 0), input: posInput,
			raw: rawSymbolInfo,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Definition *struct {
						File string `json:"file"`
						Line int    `json:"line"`
					} `json:"definition"`
					Hover         string `json:"hover"`
					Documentation string `json:"documentation"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				// MCP's lean results keep one of the two when they are
				// the same text.
				a := answer{n: 1}
				if h := cmp.Or(st.Hover, st.Documentation); h != "" {
					a.keys = append(a.keys, "hover:"+h)
				}
				if st.Definition != nil {
					a.keys = append(a.keys, fmt.Sprintf("def:%s:%d", st.Definition.File, st.Definition.Line))
				}
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "references", tool: "find_references", seed: 180 * time.Millisecond,
			requests: "references (declaration excluded)",
			compared: "the set of file:line of every reference (limit 100000)",
			targets:  targetsOf(types, 0), input: withLimit,
			raw: func(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
				return r.locations(ctx, "textDocument/references", t)
			},
			langhost: locationsOf("references"),
		},
		{
			name: "implementations", tool: "find_implementations", seed: 150 * time.Millisecond,
			requests: "implementation",
			compared: "the set of file:line of every implementation",
			targets:  targetsOf(types, 0), input: posInput,
			raw: func(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
				return r.locations(ctx, "textDocument/implementation", t)
			},
			langhost: locationsOf("implementations"),
		},
		{
			name: "type hierarchy", tool: "type_hierarchy", seed: 60 * time.Millisecond,
			requests: "prepareTypeHierarchy, supertypes, subtypes",
			compared: "the names and file:line of the supertypes and subtypes (one level)",
			targets:  targetsOf(types, 0), input: posInput,
			raw: rawHierarchy,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Root struct {
						Supertypes []hierarchyNode `json:"supertypes"`
						Subtypes   []hierarchyNode `json:"subtypes"`
					} `json:"root"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				var a answer
				for _, n := range st.Root.Supertypes {
					a.keys = append(a.keys, "super "+n.key())
				}
				for _, n := range st.Root.Subtypes {
					a.keys = append(a.keys, "sub "+n.key())
				}
				a.n = len(a.keys)
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "workspace symbol search", tool: "find_symbol", seed: 320 * time.Millisecond,
			requests: "workspace/symbol",
			compared: "the set of file:line of every symbol found (limit 100000); not the names, which langhost shortens (csharp-ls names a member by its signature)",
			targets: func() []csTarget {
				var out []csTarget
				for _, q := range p.queries {
					out = append(out, csTarget{query: q})
				}
				return out
			}(),
			input: func(t csTarget) map[string]any { return map[string]any{"query": t.query, "limit": 100000} },
			raw:   rawWorkspaceSymbol,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Symbols []struct {
						Name string `json:"name"`
						File string `json:"file"`
						Line int    `json:"line"`
					} `json:"symbols"`
					Total int `json:"total"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				a := answer{n: st.Total}
				for _, s := range st.Symbols {
					a.keys = append(a.keys, fmt.Sprintf("%s:%d", s.File, s.Line))
				}
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "file diagnostics", tool: "diagnostics", seed: 90 * time.Millisecond,
			requests: "textDocument/diagnostic (pull), or didOpen, the published diagnostics, didClose",
			compared: "the set of line:code of every diagnostic",
			targets:  filesOf(types),
			input:    func(t csTarget) map[string]any { return map[string]any{"file": t.file} },
			raw:      rawDiagnostics,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Diagnostics []struct {
						Line int    `json:"line"`
						Code string `json:"code"`
					} `json:"diagnostics"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				a := answer{n: len(st.Diagnostics)}
				for _, d := range st.Diagnostics {
					a.keys = append(a.keys, fmt.Sprintf("%d:%s", d.Line, d.Code))
				}
				slices.Sort(a.keys)
				a.keys = slices.Compact(a.keys)
				return a, nil
			},
		},
		{
			name: "project structure", tool: "list_projects", seed: 50 * time.Millisecond, rawLimit: 5,
			requests: "no LSP request: `dotnet sln list` (5 runs)",
			compared: "the set of project paths, against `dotnet sln list`",
			targets:  []csTarget{{}},
			input:    func(csTarget) map[string]any { return map[string]any{} },
			raw:      rawProjects,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Projects []struct {
						Path string `json:"path"`
					} `json:"projects"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				a := answer{n: len(st.Projects)}
				for _, p := range st.Projects {
					a.keys = append(a.keys, p.Path)
				}
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "organize usings", tool: "organize_imports", seed: 40 * time.Millisecond,
			requests: "codeAction (only source.organizeImports) over the whole file",
			compared: "langhost answers unsupported_by_server exactly when csharp-ls offers no source.organizeImports action",
			targets:  filesOf(types),
			input:    func(t csTarget) map[string]any { return map[string]any{"file": t.file} },
			raw:      rawOrganize,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Changed bool `json:"changed"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				return answer{n: 1, keys: []string{fmt.Sprintf("action, changed=%v", st.Changed)}}, nil
			},
		},
		{
			name: "subclasses", tool: "find_subclasses",
			requests: "prepareTypeHierarchy, subtypes",
			compared: "the set of name@file:line of the direct subclasses",
			targets:  targetsOf(types, 0), input: posInput,
			raw: rawSubclasses,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Subclasses []hierarchyNode `json:"subclasses"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				a := answer{n: len(st.Subclasses)}
				for _, n := range st.Subclasses {
					a.keys = append(a.keys, n.key())
				}
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "overrides", tool: "find_overrides",
			requests: "implementation; documentSymbol; prepareTypeHierarchy on the member's type and subtypes at every level; documentSymbol of each subtype's file",
			compared: "the set of file:line of every override",
			targets:  targetsOf(p.members, 0), input: posInput,
			raw:      rawOverrides,
			langhost: locationsOf("overrides"),
		},
		{
			name: "usages of a type", tool: "find_usages",
			requests: "references on the type (declaration excluded)",
			compared: "the set of file:line of every usage (limit 100000); langhost's classification has no raw counterpart",
			targets:  targetsOf(types, 0), input: withLimit,
			raw: func(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
				return r.locations(ctx, "textDocument/references", t)
			},
			langhost: locationsOf("usages"),
		},
		{
			name: "method overloads", tool: "method_overloads",
			requests: "documentSymbol",
			compared: "the lines of the type's members of that name",
			targets:  p.overloads,
			input:    func(t csTarget) map[string]any { return map[string]any{"symbol": t.namePath, "file": t.file} },
			raw:      rawOverloads,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Overloads []struct {
						Line int `json:"line"`
					} `json:"overloads"`
					Total int `json:"total"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				a := answer{n: st.Total}
				for _, o := range st.Overloads {
					a.keys = append(a.keys, fmt.Sprint(o.Line))
				}
				slices.Sort(a.keys)
				return a, nil
			},
		},
		{
			name: "containing member", tool: "containing_member",
			requests: "documentSymbol",
			compared: "the name and line of the innermost declaration containing the position",
			targets:  targetsOf(p.bodies, 2),
			input: func(t csTarget) map[string]any {
				return map[string]any{"file": t.file, "line": t.line + t.inside, "column": 1}
			},
			raw: rawContaining,
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Member struct {
						Name string `json:"name"`
						Line int    `json:"line"`
					} `json:"member"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				return answer{n: 1, keys: []string{fmt.Sprintf("%s:%d", st.Member.Name, st.Member.Line)}}, nil
			},
		},
		{
			name: "document symbols", tool: "file_symbols",
			requests: "documentSymbol",
			compared: "every declaration of the tree as name:line, csharp-ls's after langhost's reshaping (no File wrapper, namespaces by full name)",
			targets:  filesOf(types),
			input:    func(t csTarget) map[string]any { return map[string]any{"file": t.file} },
			raw: func(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
				syms, err := r.documentSymbols(ctx, t.file)
				if err != nil {
					return answer{}, err
				}
				var a answer
				walkSymbols(syms, func(s lsp.DocumentSymbol, _ []lsp.DocumentSymbol) {
					// langhost drops csharp-ls's File wrapper and names a
					// namespace by its full name (plugins/semantic/dialect.go).
					switch {
					case s.Kind.String() == "file":
						return
					case s.Kind.String() == "namespace" && strings.HasSuffix(s.Detail, "."+s.Name) && !strings.ContainsAny(s.Detail, " ("):
						s.Name = s.Detail
					}
					a.keys = append(a.keys, fmt.Sprintf("%s:%d", s.Name, s.SelectionRange.Start.Line+1))
				})
				a.n = len(a.keys)
				slices.Sort(a.keys)
				return a, nil
			},
			langhost: func(r *csResult) (answer, error) {
				var st struct {
					Symbols []symbolNode `json:"symbols"`
				}
				if err := json.Unmarshal(r.data, &st); err != nil {
					return answer{}, err
				}
				var a answer
				var walk func([]symbolNode)
				walk = func(ns []symbolNode) {
					for _, n := range ns {
						a.keys = append(a.keys, fmt.Sprintf("%s:%d", n.Name, n.Line))
						walk(n.Children)
					}
				}
				walk(st.Symbols)
				a.n = len(a.keys)
				slices.Sort(a.keys)
				return a, nil
			},
		},
	}
}

type hierarchyNode struct {
	Name string `json:"name"`
	File string `json:"file"`
	Line int    `json:"line"`
}

func (n hierarchyNode) key() string { return fmt.Sprintf("%s@%s:%d", n.Name, n.File, n.Line) }

type symbolNode struct {
	Name     string       `json:"name"`
	Line     int          `json:"line"`
	Children []symbolNode `json:"children"`
}

// locationsOf reads the file:line of the items of a result's list.
func locationsOf(list string) func(r *csResult) (answer, error) {
	return func(r *csResult) (answer, error) {
		var st map[string]json.RawMessage
		if err := json.Unmarshal(r.data, &st); err != nil {
			return answer{}, err
		}
		type loc struct {
			File string `json:"file"`
			Line int    `json:"line"`
		}
		// A partial type's other declarations are its parts: langhost
		// lists the type once, the server each declaration.
		var items []struct {
			loc
			Parts []loc `json:"parts"`
		}
		if raw := st[list]; len(raw) > 0 {
			if err := json.Unmarshal(raw, &items); err != nil {
				return answer{}, err
			}
		}
		a := answer{n: len(items)}
		if raw := st["total"]; len(raw) > 0 {
			_ = json.Unmarshal(raw, &a.n)
		}
		for _, it := range items {
			a.keys = append(a.keys, fmt.Sprintf("%s:%d", it.File, it.Line))
			for _, p := range it.Parts {
				a.keys = append(a.keys, fmt.Sprintf("%s:%d", p.File, p.Line))
				a.n++
			}
		}
		slices.Sort(a.keys)
		return a, nil
	}
}

// ---- the raw server

// csRaw is the bare csharp-ls.
type csRaw struct {
	*rawServer
	version int32
	hover   bool // symbol_info asks for the hover text
}

func (r *csRaw) uri(file string) lsp.DocumentURI { return lsp.URIFromPath(filepath.Join(r.ws, file)) }

func (r *csRaw) rel(u lsp.DocumentURI) string {
	p, err := u.Path()
	if err != nil {
		return string(u)
	}
	rel, err := filepath.Rel(r.ws, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}

func (r *csRaw) pos(t csTarget) map[string]any {
	return map[string]any{
		"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(t.file)},
		"position":     lsp.Position{Line: uint32(t.line - 1), Character: uint32(t.column - 1)},
	}
}

func (r *csRaw) locations(ctx context.Context, method string, t csTarget) (answer, error) {
	params := r.pos(t)
	if method == "textDocument/references" {
		params["context"] = map[string]bool{"includeDeclaration": false}
	}
	var raw json.RawMessage
	if err := r.srv.Call(ctx, method, params, &raw); err != nil {
		return answer{}, err
	}
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return answer{}, err
	}
	a := answer{n: len(locs)}
	for _, l := range locs {
		a.keys = append(a.keys, fmt.Sprintf("%s:%d", r.rel(l.URI), l.Range.Start.Line+1))
	}
	slices.Sort(a.keys)
	return a, nil
}

func (r *csRaw) documentSymbols(ctx context.Context, file string) ([]lsp.DocumentSymbol, error) {
	var raw json.RawMessage
	if err := r.srv.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(file)}}, &raw); err != nil {
		return nil, err
	}
	return lsp.DecodeDocumentSymbols(raw)
}

// walkSymbols calls f on every symbol of a tree with its ancestors.
func walkSymbols(syms []lsp.DocumentSymbol, f func(s lsp.DocumentSymbol, path []lsp.DocumentSymbol)) {
	var walk func([]lsp.DocumentSymbol, []lsp.DocumentSymbol)
	walk = func(ss, path []lsp.DocumentSymbol) {
		for _, s := range ss {
			f(s, path)
			walk(s.Children, append(path, s))
		}
	}
	walk(syms, nil)
}

func rawSymbolInfo(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	var raw json.RawMessage
	if err := r.srv.Call(ctx, "textDocument/definition", r.pos(t), &raw); err != nil {
		return answer{}, err
	}
	defs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return answer{}, err
	}
	a := answer{n: 1}
	if len(defs) > 0 {
		a.keys = append(a.keys, fmt.Sprintf("def:%s:%d", r.rel(defs[0].URI), defs[0].Range.Start.Line+1))
		var sraw json.RawMessage
		if err := r.srv.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: defs[0].URI}}, &sraw); err != nil {
			return answer{}, err
		}
	}
	if r.hover {
		var h lsp.Hover
		if err := r.srv.Call(ctx, "textDocument/hover", r.pos(t), &h); err != nil {
			return answer{}, err
		}
		a.keys = append(a.keys, "hover:"+strings.TrimSpace(h.Text()))
	}
	slices.Sort(a.keys)
	return a, nil
}

func (r *csRaw) prepareType(ctx context.Context, t csTarget) (lsp.HierarchyItem, error) {
	var items []lsp.HierarchyItem
	if err := r.srv.Call(ctx, "textDocument/prepareTypeHierarchy", r.pos(t), &items); err != nil {
		return lsp.HierarchyItem{}, err
	}
	if len(items) == 0 {
		return lsp.HierarchyItem{}, fmt.Errorf("no type at %s:%d:%d", t.file, t.line, t.column)
	}
	return items[0], nil
}

func (r *csRaw) level(ctx context.Context, method string, it lsp.HierarchyItem, prefix string) ([]string, error) {
	var items []lsp.HierarchyItem
	if err := r.srv.Call(ctx, method, map[string]any{"item": it}, &items); err != nil {
		return nil, err
	}
	var keys []string
	for _, x := range items {
		keys = append(keys, fmt.Sprintf("%s%s@%s:%d", prefix, x.Name, r.rel(x.URI), x.SelectionRange.Start.Line+1))
	}
	return keys, nil
}

func rawHierarchy(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	it, err := r.prepareType(ctx, t)
	if err != nil {
		return answer{}, err
	}
	super, err := r.level(ctx, "typeHierarchy/supertypes", it, "super ")
	if err != nil {
		return answer{}, err
	}
	sub, err := r.level(ctx, "typeHierarchy/subtypes", it, "sub ")
	if err != nil {
		return answer{}, err
	}
	a := answer{keys: slices.Concat(super, sub)}
	a.n = len(a.keys)
	slices.Sort(a.keys)
	return a, nil
}

func rawSubclasses(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	it, err := r.prepareType(ctx, t)
	if err != nil {
		return answer{}, err
	}
	keys, err := r.level(ctx, "typeHierarchy/subtypes", it, "")
	if err != nil {
		return answer{}, err
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	return answer{n: len(keys), keys: keys}, nil
}

func rawWorkspaceSymbol(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	var syms []lsp.SymbolInformation
	if err := r.srv.Call(ctx, "workspace/symbol", map[string]string{"query": t.query}, &syms); err != nil {
		return answer{}, err
	}
	a := answer{n: len(syms)}
	for _, s := range syms {
		line := 0
		if s.Location.Range != nil {
			line = int(s.Location.Range.Start.Line) + 1
		}
		a.keys = append(a.keys, fmt.Sprintf("%s:%d", r.rel(s.Location.URI), line))
	}
	slices.Sort(a.keys)
	return a, nil
}

func rawDiagnostics(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	var diags []lsp.Diagnostic
	uri := r.uri(t.file)
	if _, pull := r.caps["diagnosticProvider"]; pull {
		var rep lsp.DocumentDiagnosticReport
		if err := r.srv.Call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: uri}}, &rep); err != nil {
			return answer{}, err
		}
		diags = rep.Items
	} else {
		content, err := os.ReadFile(filepath.Join(r.ws, t.file))
		if err != nil {
			return answer{}, err
		}
		r.version++
		v := r.version
		if err := r.srv.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{URI: uri, LanguageID: "csharp", Version: v, Text: string(content)}}); err != nil {
			return answer{}, err
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		e, err := r.srv.WaitDiagnostics(wctx, uri, func(e lsp.DiagnosticsEntry) bool { return e.Version != nil && *e.Version >= v })
		cancel()
		if err := r.srv.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: uri}}); err != nil {
			return answer{}, err
		}
		if err != nil {
			return answer{}, fmt.Errorf("diagnostics of %s: %w", t.file, err)
		}
		diags = e.Diagnostics
	}
	// langhost lists a diagnostic the server sent twice once (docs/output.md).
	diags = difftest.UniqueDiagnostics(diags)
	a := answer{n: len(diags)}
	for _, d := range diags {
		a.keys = append(a.keys, fmt.Sprintf("%d:%s", d.Range.Start.Line+1, d.CodeString()))
	}
	slices.Sort(a.keys)
	a.keys = slices.Compact(a.keys)
	return a, nil
}

func rawOrganize(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	content, err := os.ReadFile(filepath.Join(r.ws, t.file))
	if err != nil {
		return answer{}, err
	}
	m := lsp.NewMapper(content)
	end := lsp.Position{Line: uint32(m.LineCount() - 1), Character: uint32(len(m.LineText(m.LineCount())))}
	var raw json.RawMessage
	err = r.srv.Call(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(t.file)},
		"range":        lsp.Range{End: end},
		"context":      map[string]any{"diagnostics": []any{}, "only": []string{"source.organizeImports"}},
	}, &raw)
	if err != nil {
		return answer{}, err
	}
	actions, err := lsp.DecodeCodeActions(raw)
	if err != nil {
		return answer{}, err
	}
	for _, a := range actions {
		if a.Kind == "source.organizeImports" || strings.HasPrefix(a.Kind, "source.organizeImports.") {
			return answer{n: 1, keys: []string{"action"}}, nil
		}
	}
	return answer{failed: "unsupported_by_server"}, nil
}

func rawProjects(ctx context.Context, r *csRaw, _ csTarget) (answer, error) {
	sln, _ := filepath.Glob(filepath.Join(r.ws, "*.sln*"))
	if len(sln) == 0 {
		return answer{}, fmt.Errorf("no solution in %s", r.ws)
	}
	cmd := exec.CommandContext(ctx, "dotnet", "sln", filepath.Base(sln[0]), "list")
	cmd.Dir = r.ws
	out, err := cmd.Output()
	if err != nil {
		return answer{}, fmt.Errorf("dotnet sln list: %w", err)
	}
	var a answer
	for line := range strings.SplitSeq(string(out), "\n") {
		if line = strings.TrimSpace(line); strings.HasSuffix(line, "proj") {
			a.keys = append(a.keys, filepath.ToSlash(line))
		}
	}
	a.n = len(a.keys)
	slices.Sort(a.keys)
	return a, nil
}

// rawOverrides sends what find_overrides sends: the implementations of
// the member, and the members of the same name and parameters declared
// override in the types below the member's own (any member of an
// interface's implementations).
func rawOverrides(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	impl, err := r.locations(ctx, "textDocument/implementation", t)
	if err != nil {
		return answer{}, err
	}
	self := fmt.Sprintf("%s:%d", t.file, t.line)
	keys := slices.DeleteFunc(impl.keys, func(k string) bool { return k == self })
	syms, err := r.documentSymbols(ctx, t.file)
	if err != nil {
		return answer{}, err
	}
	var member *lsp.DocumentSymbol
	var owner lsp.DocumentSymbol
	walkSymbols(syms, func(s lsp.DocumentSymbol, path []lsp.DocumentSymbol) {
		if int(s.SelectionRange.Start.Line) == t.line-1 && len(path) > 0 && !s.Kind.IsType() {
			member, owner = &s, path[len(path)-1]
		}
	})
	if member == nil {
		return answer{}, fmt.Errorf("no member declared at %s", self)
	}
	var items []lsp.HierarchyItem
	pos := map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(t.file)}, "position": owner.SelectionRange.Start}
	if err := r.srv.Call(ctx, "textDocument/prepareTypeHierarchy", pos, &items); err != nil {
		return answer{}, err
	}
	fromInterface := owner.Kind.String() == "interface"
	outlines := map[lsp.DocumentURI][]lsp.DocumentSymbol{}
	seen := map[string]bool{}
	for level := items[:min(1, len(items))]; len(level) > 0; {
		var next []lsp.HierarchyItem
		for _, it := range level {
			var subs []lsp.HierarchyItem
			if err := r.srv.Call(ctx, "typeHierarchy/subtypes", map[string]any{"item": it}, &subs); err != nil {
				return answer{}, err
			}
			for _, sub := range subs {
				k := fmt.Sprint(sub.URI, sub.SelectionRange.Start)
				if seen[k] {
					continue
				}
				seen[k] = true
				next = append(next, sub)
				outline, ok := outlines[sub.URI]
				if !ok {
					var raw json.RawMessage
					if err := r.srv.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: sub.URI}}, &raw); err != nil {
						return answer{}, err
					}
					if outline, err = lsp.DecodeDocumentSymbols(raw); err != nil {
						return answer{}, err
					}
					outlines[sub.URI] = outline
				}
				p, _ := sub.URI.Path()
				content, _ := os.ReadFile(p)
				m := lsp.NewMapper(content)
				walkSymbols(outline, func(s lsp.DocumentSymbol, _ []lsp.DocumentSymbol) {
					if s.SelectionRange.Start != sub.SelectionRange.Start {
						return
					}
					for _, c := range s.Children {
						if c.Kind != member.Kind || !sameSignature(c.Name, member.Name) {
							continue
						}
						if !fromInterface && !overrideWord.MatchString(m.LineText(int(c.SelectionRange.Start.Line)+1)) {
							continue
						}
						keys = append(keys, fmt.Sprintf("%s:%d", r.rel(sub.URI), c.SelectionRange.Start.Line+1))
					}
				})
			}
		}
		level = next
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	return answer{n: len(keys), keys: keys}, nil
}

var overrideWord = regexp.MustCompile(`\boverride\b`)

// sameSignature compares member names as csharp-ls gives them, "Read()"
// or "WriteJson(JsonWriter writer, object? value)": the same name and
// parameter types.
func sameSignature(a, b string) bool {
	na, pa, _ := strings.Cut(a, "(")
	nb, pb, _ := strings.Cut(b, "(")
	last := func(n string) string { return n[strings.LastIndex(n, ".")+1:] }
	return last(strings.TrimSpace(na)) == last(strings.TrimSpace(nb)) && paramTypes(pa) == paramTypes(pb)
}

// paramTypes reduces "JsonWriter writer, object? value)" to
// "JsonWriter,object?".
func paramTypes(params string) string {
	params = strings.TrimSuffix(strings.TrimSpace(params), ")")
	var types []string
	depth, start := 0, 0
	for i := 0; i <= len(params); i++ {
		if i < len(params) {
			switch params[i] {
			case '<', '(', '[':
				depth++
			case '>', ')', ']':
				depth--
			}
			if params[i] != ',' || depth > 0 {
				continue
			}
		}
		f := strings.Fields(params[start:i])
		if len(f) > 1 {
			f = f[:len(f)-1]
		}
		types = append(types, strings.Join(f, " "))
		start = i + 1
	}
	return strings.Join(types, ",")
}

func rawOverloads(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	syms, err := r.documentSymbols(ctx, t.file)
	if err != nil {
		return answer{}, err
	}
	typ, method, _ := strings.Cut(t.namePath, "/")
	var a answer
	walkSymbols(syms, func(s lsp.DocumentSymbol, path []lsp.DocumentSymbol) {
		if len(path) > 0 && baseName(path[len(path)-1].Name) == typ && baseName(s.Name) == method {
			a.keys = append(a.keys, fmt.Sprint(s.SelectionRange.Start.Line+1))
		}
	})
	a.n = len(a.keys)
	slices.Sort(a.keys)
	return a, nil
}

// baseName is a symbol's name without its parameters or type arguments.
func baseName(name string) string {
	if i := strings.IndexAny(name, "(<"); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

func rawContaining(ctx context.Context, r *csRaw, t csTarget) (answer, error) {
	syms, err := r.documentSymbols(ctx, t.file)
	if err != nil {
		return answer{}, err
	}
	p := lsp.Position{Line: uint32(t.line + t.inside - 1)}
	var best *lsp.DocumentSymbol
	walkSymbols(syms, func(s lsp.DocumentSymbol, _ []lsp.DocumentSymbol) {
		if s.Range.Start.Line <= p.Line && p.Line <= s.Range.End.Line {
			best = &s
		}
	})
	if best == nil {
		return answer{}, fmt.Errorf("no declaration contains %s:%d", t.file, p.Line+1)
	}
	return answer{n: 1, keys: []string{fmt.Sprintf("%s:%d", best.Name, best.SelectionRange.Start.Line+1)}}, nil
}

// ---- langhost through the CLI and the daemon

// csCLI runs `langhost run` against the workspace's daemon. Its language
// server is started through a recording shim (record-lsp), so that the
// documents langhost opens and closes can be counted.
type csCLI struct {
	exe, ws string
	env     []string
	record  string // the shim's log of didOpen and didClose
}

func (c *csCLI) call(ctx context.Context, tool string, in map[string]any) (*csResult, time.Duration, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, 0, err
	}
	// csharp-ls runs the solution's MSBuild design-time build: consent for
	// the call, as an MCP client's approval gives it.
	cmd := exec.CommandContext(ctx, c.exe, "run", "csharp."+tool, "--input", string(body), "--workspace", c.ws, "--format", "json", "--allow-workspace-code")
	cmd.Env = c.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	if err != nil {
		return nil, 0, err
	}
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, 0, fmt.Errorf("langhost run csharp.%s (exit %d): %v: %s%s", tool, code, err, out, stderr.Bytes())
	}
	r := &csResult{data: env.Data, bytes: len(out), exitCode: code}
	if len(env.Errors) > 0 && (len(env.Data) == 0 || string(env.Data) == "null") {
		r.code, r.message = env.Errors[0].Code, env.Errors[0].Message
	}
	var dur struct {
		DurationMS float64 `json:"duration_ms"`
	}
	_ = json.Unmarshal(env.Data, &dur)
	r.inner = time.Duration(dur.DurationMS * float64(time.Millisecond))
	return r, d, nil
}

// daemonPID asks langhost for the pid of the workspace's daemon.
func (c *csCLI) daemonPID() (int, error) {
	cmd := exec.Command(c.exe, "daemon", "status", "--workspace", c.ws, "--format", "json")
	cmd.Env = c.env
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("langhost daemon status: %w", err)
	}
	var env struct {
		Data []struct {
			PID int `json:"pid"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &env); err != nil || len(env.Data) != 1 {
		return 0, fmt.Errorf("langhost daemon status: %s", out)
	}
	return env.Data[0].PID, nil
}

func (c *csCLI) stop() {
	cmd := exec.Command(c.exe, "daemon", "stop", "--workspace", c.ws)
	cmd.Env = c.env
	_ = cmd.Run()
}

// close stops the daemon and removes the shim.
func (c *csCLI) close() {
	c.stop()
	_ = os.RemoveAll(filepath.Dir(c.record))
}

// ---- langhost through MCP

func (l *langhost) callTool(ctx context.Context, tool string, in map[string]any) (*csResult, time.Duration, error) {
	start := time.Now()
	res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Name: toolname.Name("csharp." + tool), Arguments: in})
	d := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	body, err := json.Marshal(res)
	if err != nil {
		return nil, 0, err
	}
	data, _ := json.Marshal(res.StructuredContent)
	r := &csResult{data: data, bytes: len(body)}
	var st struct {
		DurationMS float64 `json:"duration_ms"`
		Errors     []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
		Code string `json:"code"`
	}
	_ = json.Unmarshal(data, &st)
	r.inner = time.Duration(st.DurationMS * float64(time.Millisecond))
	if res.IsError {
		r.code, r.message = st.Code, string(body)
		if len(st.Errors) > 0 {
			r.code, r.message = st.Errors[0].Code, st.Errors[0].Message
		}
		if r.code == "" {
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					r.message = t.Text
				}
			}
			r.code = failureCodeIn(r.message)
		}
	}
	return r, d, nil
}

// failureCodeIn finds a failure class named in an error text.
func failureCodeIn(msg string) string {
	for _, c := range []string{"unsupported_by_server", "not_found", "invalid_input", "timeout", "internal"} {
		if strings.Contains(msg, c) {
			return c
		}
	}
	return "error"
}

// ---- the run

// csPath is one of the three ways to the server.
type csPath int

const (
	pathRaw csPath = iota
	pathMCP
	pathCLI
)

// opStats are the samples of one operation through one path.
type opStats struct {
	first time.Duration // the first query after the load
	warm  []sample
	inner []time.Duration
}

func (s *opStats) add(d, inner time.Duration, bytes int) {
	if s.first == 0 {
		s.first = d
		return
	}
	s.warm = append(s.warm, sample{d: d, bytes: bytes})
	s.inner = append(s.inner, inner)
}

// csCheckpoint is the memory of the three trees and the documents open
// in the daemon's server after some queries.
type csCheckpoint struct {
	queries          int
	raw, mcp, daemon memory
	open             int
	opened, closed   int
}

// noDetail are the operations without a detail input.
var noDetail = []string{"list_projects", "organize_imports", "containing_member"}

// benchCSharp measures ops (all when onlyOps is empty) at detail:
// compact, standard or full for both langhost paths, or "default" for
// each path's own (compact over MCP, standard on the CLI).
func benchCSharp(ctx context.Context, cfg benchConfig, onlyOps, detail string) {
	picks, err := pickCSharp(ctx, cfg.ws)
	if err != nil {
		log.Fatal(err)
	}
	if len(cfg.symbols) > 0 { // -csharp-symbols
		for i := range cfg.symbols {
			locate(cfg.ws, &cfg.symbols[i])
		}
		picks.types = cfg.symbols
	}
	cfg.symbols = picks.types
	ops := csOps(picks)
	if onlyOps != "" {
		ops = slices.DeleteFunc(ops, func(o csOp) bool { return !slices.Contains(strings.Split(onlyOps, ","), o.tool) })
	}
	for i := range ops {
		for j := range ops[i].targets {
			if t := &ops[i].targets[j]; t.decl != "" {
				locate(cfg.ws, &t.symbol)
			}
		}
	}
	cfg.capabilities = semantic.ClientCapabilities() // so that csharp-ls answers raw requests as it answers langhost's
	cfg.op, cfg.untilAnswer = "references", true
	// The load ends with the first answer that says what the raw one
	// does, the references' locations: at standard, langhost would also
	// outline every referencing file on a server still cold.
	cfg.loadDetail = "compact"

	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cli, err := newCSCLI(cfg, self)
	if err != nil {
		log.Fatal(err)
	}
	defer cli.close()

	if warmCache {
		log.Printf("csharp-ls: warming the server's disk cache")
		warm, _, err := startRaw(ctx, cfg)
		if err != nil {
			log.Fatal(err)
		}
		warm.close()
	}

	// Cold starts, one at a time, in turn; the last of each stays up.
	var (
		raw   *rawServer
		lh    *langhost
		colds [3][]time.Duration
	)
	for i := range cfg.colds {
		for _, who := range alternate(i, "raw", "mcp", "cli") {
			log.Printf("csharp-ls: cold start %d of %d, %s", i+1, cfg.colds, who)
			last := i == cfg.colds-1
			switch who {
			case "raw":
				r, d, err := startRaw(ctx, cfg)
				if err != nil {
					log.Fatal(err)
				}
				colds[pathRaw] = append(colds[pathRaw], d)
				if last {
					raw = r
				} else {
					r.close()
				}
			case "mcp":
				l, d, err := startLanghost(ctx, cfg)
				if err != nil {
					log.Fatal(err)
				}
				colds[pathMCP] = append(colds[pathMCP], d)
				if last {
					lh = l
				} else {
					l.close()
				}
			case "cli":
				cli.stop()
				d, err := cli.cold(ctx, cfg)
				if err != nil {
					log.Fatal(err)
				}
				colds[pathCLI] = append(colds[pathCLI], d)
			}
		}
	}
	defer raw.close()
	defer lh.close()
	daemon, err := cli.daemonPID()
	if err != nil {
		log.Fatal(err)
	}
	// At compact symbol_info sends no hover, and neither does the raw
	// column then.
	r := &csRaw{rawServer: raw, hover: detail != "compact"}
	samplers := [3]*sampler{newSampler(raw.pid()), newSampler(lh.pid()), newSampler(daemon)}
	for _, s := range samplers {
		defer s.stop()
	}

	stats := make([][3]opStats, len(ops))
	mismatches := make([]mismatch, len(ops))
	failures := make([]map[string]int, len(ops)) // failure classes langhost answered, by op
	checkAt := slices.Compact([]int{min(20, cfg.queries), min(50, cfg.queries), min(250, cfg.queries), cfg.queries})
	var checkpoints []csCheckpoint
	log.Printf("csharp-ls: %d rounds of %d operations through 3 paths", cfg.queries, len(ops))
	for q := range cfg.queries {
		for oi, op := range rotate(ops, q) {
			oi = (oi + q) % len(ops)
			t := op.targets[q%len(op.targets)]
			in := op.input(t)
			if detail != "default" && !slices.Contains(noDetail, op.tool) {
				in["detail"] = detail
			}
			var got [3]*answer
			// Each path goes first, second and last in turn, so that none
			// always runs on a CPU another just warmed or left busy.
			paths := []string{"raw", "mcp", "cli"}
			k := (q + oi) % 3
			for _, who := range append(paths[k:], paths[:k]...) {
				switch who {
				case "raw":
					if op.rawLimit > 0 && len(stats[oi][pathRaw].warm)+1 >= op.rawLimit {
						continue
					}
					start := time.Now()
					a, err := op.raw(ctx, r, t)
					d := time.Since(start)
					if err != nil {
						log.Fatalf("raw %s %s: %v", op.tool, describe(t), err)
					}
					stats[oi][pathRaw].add(d, 0, 0)
					got[pathRaw] = &a
				case "mcp", "cli":
					var res *csResult
					var d time.Duration
					var err error
					p := pathMCP
					if who == "mcp" {
						res, d, err = lh.callTool(ctx, op.tool, in)
					} else {
						p = pathCLI
						res, d, err = cli.call(ctx, op.tool, in)
					}
					if err != nil {
						log.Fatalf("%s %s %s: %v", who, op.tool, describe(t), err)
					}
					stats[oi][p].add(d, res.inner, res.bytes)
					a := answer{failed: res.code}
					if res.code == "" {
						if a, err = op.langhost(res); err != nil {
							log.Fatalf("%s %s %s: decoding the result: %v: %s", who, op.tool, describe(t), err, res.data)
						}
					} else {
						if failures[oi] == nil {
							failures[oi] = map[string]int{}
						}
						failures[oi][res.code]++
						if verbose && q == 0 {
							log.Printf("%s %s: %s: %s", who, op.tool, res.code, res.message)
						}
					}
					got[p] = &a
				}
			}
			if verbose && q < len(op.targets) {
				log.Printf("%s %s: raw %v; mcp %v; cli %v", op.tool, describe(t), got[pathRaw], got[pathMCP], got[pathCLI])
			}
			var diff string
			switch {
			case !got[pathMCP].same(*got[pathCLI]):
				diff = fmt.Sprintf("%s: MCP %v, CLI %v", describe(t), got[pathMCP], got[pathCLI])
			case got[pathRaw] != nil && !got[pathRaw].same(*got[pathMCP]):
				diff = fmt.Sprintf("%s: raw %d, langhost %d%s", describe(t), got[pathRaw].n, got[pathMCP].n, difference(*got[pathRaw], *got[pathMCP]))
			}
			if diff != "" {
				if mismatches[oi].n == 0 {
					mismatches[oi].example = diff
				}
				mismatches[oi].n++
			}
		}
		if (q+1)%10 == 0 {
			log.Printf("csharp-ls: %d of %d rounds", q+1, cfg.queries)
		}
		// Every 50 rounds too, so that a run stopped early has reported
		// its memory recently.
		if slices.Contains(checkAt, q+1) || (q+1)%50 == 0 {
			cp := csCheckpoint{queries: q + 1,
				raw: treeMemory(raw.pid(), cfg.exe), mcp: treeMemory(lh.pid(), cfg.exe), daemon: treeMemory(daemon, cfg.exe)}
			cp.open, cp.opened, cp.closed = openDocuments(cli.record)
			checkpoints = append(checkpoints, cp)
			log.Printf("csharp-ls: %d rounds done", q+1)
			// Every checkpoint prints the tables so far, so that a long
			// run stopped early still reports.
			if q+1 < cfg.queries {
				fmt.Printf("\n### after %d of %d rounds\n\n", q+1, cfg.queries)
			} else {
				fmt.Printf("\n### after all %d rounds\n\n", q+1)
			}
			printCSharp(cfg, detail, ops, colds, stats, checkpoints, samplers, mismatches, failures)
		}
	}
}

// difference names what only one of two answers has, a few of each.
func difference(raw, lh answer) string {
	only := func(a, b []string) []string {
		var out []string
		for _, k := range a {
			if !slices.Contains(b, k) {
				out = append(out, k)
			}
		}
		if len(out) > 4 {
			out = append(out[:4:4], fmt.Sprintf("(%d more)", len(out)-4))
		}
		return out
	}
	var s string
	if o := only(raw.keys, lh.keys); len(o) > 0 {
		s += fmt.Sprintf("; only raw: %q", o)
	}
	if o := only(lh.keys, raw.keys); len(o) > 0 {
		s += fmt.Sprintf("; only langhost: %q", o)
	}
	if raw.failed != lh.failed {
		s += fmt.Sprintf("; raw %q, langhost %q", raw.failed, lh.failed)
	}
	return s
}

// rotate returns ops starting at the q-th, so that no operation always
// runs right after the same other.
func rotate(ops []csOp, q int) []csOp {
	k := q % len(ops)
	return append(slices.Clone(ops[k:]), ops[:k]...)
}

func describe(t csTarget) string {
	switch {
	case t.query != "":
		return "query " + t.query
	case t.namePath != "":
		return t.namePath
	case t.ident != "":
		return fmt.Sprintf("%s (%s:%d)", t.ident, t.file, t.line+t.inside)
	}
	return t.file
}

// mismatch counts the queries whose answers differ, with the first.
type mismatch struct {
	n       int
	example string
}

func printCSharp(cfg benchConfig, detail string, ops []csOp, colds [3][]time.Duration, stats [][3]opStats, cps []csCheckpoint, samplers [3]*sampler, mismatches []mismatch, failures []map[string]int) {
	cold := func(p csPath) time.Duration {
		d := slices.Sorted(slices.Values(colds[p]))
		return d[len(d)/2]
	}
	fmt.Printf("Solution load (process start to the first non-empty references answer for %s, langhost's at compact detail; median of %d): raw csharp-ls %s, langhost MCP %s (%+.0f%%), langhost CLI starting its daemon %s (%+.0f%%).\n\n",
		cfg.symbols[0].ident, cfg.colds, secs(cold(pathRaw)), secs(cold(pathMCP)), pct(cold(pathMCP), cold(pathRaw)), secs(cold(pathCLI)), pct(cold(pathCLI), cold(pathRaw)))
	n := cps[len(cps)-1].queries
	// The memory table has the checkpoints at 20, 50, 250 and all rounds,
	// and the latest.
	cps = slices.DeleteFunc(slices.Clone(cps), func(c csCheckpoint) bool {
		return c.queries != n && !slices.Contains([]int{20, 50, 250, cfg.queries}, c.queries)
	})
	fmt.Printf("%d rounds; in each, every operation through the three paths in turn, on the next of its targets. first: the first query after the load; warm: the rest. langhost's detail: %s.\n\n", n, detailSaid(detail))
	fmt.Println("| operation | raw: first | raw: warm median | MCP: first | MCP: warm median (× raw) | MCP p95 | in the plugin (CLI's duration_ms) | CLI: first | CLI: warm median (× raw) | seed's cached figure |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for i, op := range ops {
		s := stats[i]
		seed := "–"
		if op.seed > 0 {
			seed = ms(op.seed)
		}
		rawMed := median(s[pathRaw].warm)
		times := func(p csPath) string {
			m := median(s[p].warm)
			if rawMed == 0 || len(s[pathRaw].warm) == 0 {
				return ms(m)
			}
			return fmt.Sprintf("%s (%.2f×)", ms(m), float64(m)/float64(rawMed))
		}
		// The time inside the tool call: MCP's semantic results no longer
		// carry duration_ms (each fact once), the CLI's envelope does.
		inner := make([]sample, len(s[pathCLI].inner))
		for j, d := range s[pathCLI].inner {
			inner[j].d = d
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", op.name,
			ms(s[pathRaw].first), ms(rawMed), ms(s[pathMCP].first), times(pathMCP), ms(p95(s[pathMCP].warm)), ms(median(inner)),
			ms(s[pathCLI].first), times(pathCLI), seed)
	}

	fmt.Println()
	fmt.Print("| memory (tree RSS / PSS) |")
	for _, cp := range cps {
		fmt.Printf(" after %d rounds |", cp.queries)
	}
	fmt.Println(" peak RSS |")
	fmt.Println("|---|" + strings.Repeat("---|", len(cps)+1))
	rows := []struct {
		name string
		m    func(cp csCheckpoint) memory
		own  bool
	}{
		{"raw csharp-ls", func(cp csCheckpoint) memory { return cp.raw }, false},
		{"langhost MCP: whole tree", func(cp csCheckpoint) memory { return cp.mcp }, false},
		{"langhost MCP: its own processes (host, plugin, reaper)", func(cp csCheckpoint) memory { return cp.mcp }, true},
		{"langhost daemon: whole tree (the recording shim left out)", func(cp csCheckpoint) memory { return cp.daemon }, false},
		{"langhost daemon: its own processes", func(cp csCheckpoint) memory { return cp.daemon }, true},
	}
	for ri, row := range rows {
		fmt.Printf("| %s |", row.name)
		for _, cp := range cps {
			m := row.m(cp)
			if row.own {
				fmt.Printf(" %s / %s |", mib(m.own), mib(m.ownPSS()))
			} else {
				fmt.Printf(" %s / %s |", mib(m.rss), mib(m.pss))
			}
		}
		peak := "″"
		switch ri {
		case 0:
			peak = mib(samplers[pathRaw].peak())
		case 1:
			peak = mib(samplers[pathMCP].peak())
		case 3:
			peak = mib(samplers[pathCLI].peak())
		}
		fmt.Printf(" %s |\n", peak)
	}
	first, last := cps[0], cps[len(cps)-1]
	if i := slices.IndexFunc(cps, func(c csCheckpoint) bool { return c.queries == 50 }); i >= 0 && i < len(cps)-1 {
		first = cps[i] // memory after 50 rounds is the baseline of flatness
	}
	fmt.Println()
	check := func(ok bool, format string, args ...any) {
		mark := "met"
		if !ok {
			mark = "NOT met"
		}
		fmt.Printf("- %s: %s\n", fmt.Sprintf(format, args...), mark)
	}
	check(cold(pathMCP) <= cold(pathRaw)*11/10, "solution load through MCP ≤ raw + 10%%: %+.0f%%", pct(cold(pathMCP), cold(pathRaw)))
	check(last.mcp.rss <= last.raw.rss+80<<20, "MCP tree RSS ≤ raw + 80 MiB after %d rounds: %+.0f MiB", last.queries, float64(last.mcp.rss-last.raw.rss)/(1<<20))
	check(last.mcp.pss <= last.raw.pss+80<<20, "MCP tree PSS ≤ raw + 80 MiB after %d rounds: %+.0f MiB", last.queries, float64(last.mcp.pss-last.raw.pss)/(1<<20))
	if len(cps) > 1 {
		grow := func(m func(csCheckpoint) memory) float64 { return float64(m(last).rss-m(first).rss) / (1 << 20) }
		check(grow(func(c csCheckpoint) memory { return c.mcp }) <= max(0, grow(func(c csCheckpoint) memory { return c.raw }))+32,
			"memory flat from %d to %d rounds: MCP tree %+.0f MiB, daemon tree %+.0f MiB, raw %+.0f MiB", first.queries, last.queries,
			grow(func(c csCheckpoint) memory { return c.mcp }), grow(func(c csCheckpoint) memory { return c.daemon }), grow(func(c csCheckpoint) memory { return c.raw }))
	}
	var warmOK, warmAll int
	for i := range ops {
		if len(stats[i][pathRaw].warm) == 0 || ops[i].rawLimit > 0 {
			continue
		}
		warmAll++
		if float64(median(stats[i][pathMCP].warm)) <= 1.2*float64(median(stats[i][pathRaw].warm)) {
			warmOK++
		}
	}
	check(warmOK == warmAll, "MCP warm median ≤ 1.2× raw: %d of %d operations", warmOK, warmAll)
	for _, cp := range cps {
		check(cp.open == 0, "documents left open in the daemon's csharp-ls after %d rounds: %d (didOpen %d, didClose %d so far)", cp.queries, cp.open, cp.opened, cp.closed)
	}
	printProcesses(first.queries, last.queries, first.mcp, last.mcp)

	fmt.Println()
	fmt.Println("| operation | langhost tool | raw requests | compared | queries | different answers |")
	fmt.Println("|---|---|---|---|---|---|")
	for i, op := range ops {
		n := len(stats[i][pathMCP].warm) + 1
		d := "none"
		if mismatches[i].n > 0 {
			d = fmt.Sprintf("%d, e.g. %s", mismatches[i].n, mismatches[i].example)
		}
		if len(failures[i]) > 0 {
			d += fmt.Sprintf("; langhost failed: %v", failures[i])
		}
		fmt.Printf("| %s | `csharp.%s` | %s | %s | %d | %s |\n", op.name, op.tool, op.requests, op.compared, n, d)
	}
}

func detailSaid(detail string) string {
	if detail == "default" {
		return "each path's default (compact over MCP, standard on the CLI)"
	}
	return detail + " on both paths"
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func pct(a, b time.Duration) float64 { return 100 * (float64(a) - float64(b)) / float64(b) }

// ---- the CLI's daemon, started through a recording shim

func newCSCLI(cfg benchConfig, self string) (*csCLI, error) {
	real, err := exec.LookPath("csharp-ls")
	if err != nil {
		return nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-scale-shim-*")
	if err != nil {
		return nil, err
	}
	c := &csCLI{exe: cfg.exe, ws: cfg.ws, record: filepath.Join(dir, "lsp.log")}
	script := fmt.Sprintf("#!/bin/sh\nexec %s record-lsp %s %s \"$@\"\n", shellQuote(self), shellQuote(c.record), shellQuote(real))
	if err := os.WriteFile(filepath.Join(dir, "csharp-ls"), []byte(script), 0o755); err != nil {
		return nil, err
	}
	for _, kv := range os.Environ() {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + dir + string(os.PathListSeparator) + path
		}
		c.env = append(c.env, kv)
	}
	return c, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cold starts the daemon with the first CLI call and repeats it until its
// answer is not empty; it returns the time from the first call.
func (c *csCLI) cold(ctx context.Context, cfg benchConfig) (time.Duration, error) {
	start := time.Now()
	deadline := start.Add(5 * time.Minute)
	s := cfg.symbols[0]
	for {
		res, _, err := c.call(ctx, "find_references", map[string]any{"file": s.file, "line": s.line, "column": s.column, "detail": cfg.loadDetail})
		if err != nil {
			return 0, err
		}
		var st struct {
			Total int `json:"total"`
		}
		_ = json.Unmarshal(res.data, &st)
		if res.code == "" && st.Total > 0 {
			return time.Since(start), nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no references of %s through the CLI after five minutes (%s %s)", s.ident, res.code, res.message)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openDocuments reads the shim's log: the documents open now, and the
// didOpen and didClose notifications sent so far.
func openDocuments(path string) (open, opened, closed int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0
	}
	// The log spans every server the shim started (cold starts): count
	// per server, by the pid each line starts with, the last one.
	isOpen := map[string]bool{}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		key := f[0] + " " + f[2]
		switch f[1] {
		case "open":
			opened++
			isOpen[key] = true
		case "close":
			closed++
			delete(isOpen, key)
		}
	}
	return len(isOpen), opened, closed
}

// recordLSP runs a language server with stdin passed through a reader
// that logs each didOpen and didClose ("<pid> open <uri>") to a file;
// its stdout and stderr are the server's own. It never returns.
func recordLSP(args []string) {
	if len(args) < 2 {
		log.Fatal("usage: record-lsp LOG SERVER [ARG...]")
	}
	f, err := os.OpenFile(args[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	go func() {
		defer w.Close()
		rd := bufio.NewReader(os.Stdin)
		for {
			body, err := lsp.ReadMessage(rd)
			if err != nil {
				return
			}
			var m struct {
				Method string `json:"method"`
				Params struct {
					TextDocument struct {
						URI string `json:"uri"`
					} `json:"textDocument"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) == nil && (m.Method == "textDocument/didOpen" || m.Method == "textDocument/didClose") {
				mu.Lock()
				fmt.Fprintf(f, "%d %s %s\n", cmd.Process.Pid, strings.ToLower(strings.TrimPrefix(m.Method, "textDocument/did")), m.Params.TextDocument.URI)
				mu.Unlock()
			}
			if err := lsp.WriteMessage(w, body); err != nil {
				return
			}
		}
	}()
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = 1
	}
	os.Exit(code)
}
