package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// Answer is the comparable part of an answer: a multiset of keys
// (duplicates count), or a failure class.
type Answer struct {
	Keys    []string
	Failure string
	// Accept are further answers as right as this one: the declarations a
	// bare name may resolve to when the server knows several.
	Accept [][]string
}

func answerOf(keys []string) Answer {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	if keys == nil {
		keys = []string{}
	}
	return Answer{Keys: keys}
}

// Same reports whether lh is the raw answer a, or one of its accepted
// alternatives.
func (a Answer) Same(lh Answer) bool {
	if a.Failure == lh.Failure && slices.Equal(a.Keys, lh.Keys) {
		return true
	}
	if lh.Failure == "" {
		for _, alt := range a.Accept {
			if slices.Equal(alt, lh.Keys) {
				return true
			}
		}
	}
	return false
}

func (a Answer) String() string {
	if a.Failure != "" {
		return a.Failure
	}
	k := a.Keys
	if len(k) > 8 {
		k = append(k[:8:8], fmt.Sprintf("... %d more", len(a.Keys)-8))
	}
	return fmt.Sprintf("%d %q", len(a.Keys), k)
}

// Query is one question of an operation: the target or file, and
// langhost's input.
type Query struct {
	Target Target
	File   string // file operations
	Text   string // find_symbol's query
	Input  map[string]any
}

func (q Query) String() string {
	switch {
	case q.Text != "":
		return fmt.Sprintf("query %q", q.Text)
	case q.Target.Why == "" && q.File != "":
		return q.File
	}
	if by, ok := q.Input["symbol"]; ok {
		return fmt.Sprintf("%s %q (by name; declared at %s)", q.Target.Why, by, q.Target.Decl.Loc)
	}
	return fmt.Sprintf("%s %s at %s", q.Target.Why, q.Target.Decl.Name, q.Target.At)
}

// Op is one semantic operation: which queries it is asked, what the bare
// server is sent for each, and how langhost's answer reads.
type Op struct {
	Tool     string
	Requests string // what the raw side sends
	queries  func(ix *Index, r *Raw) []Query
	raw      func(ctx context.Context, r *Raw, ix *Index, q Query) (Answer, error)
	langhost func(data json.RawMessage) (Answer, error)
}

// positional are the categories whose target is a declaration's name.
func positional(t Target) bool {
	switch t.Why {
	case "doc-comment", "string", "attribute":
		return false
	}
	return true
}

func posInput(at Loc) map[string]any {
	return map[string]any{"file": at.File, "line": at.Line, "column": at.Column, "detail": "standard"}
}

func targetsWhere(keep func(Target) bool, input func(Target) map[string]any) func(ix *Index, r *Raw) []Query {
	return func(ix *Index, _ *Raw) []Query {
		var qs []Query
		for _, t := range ix.Targets {
			if keep(t) {
				qs = append(qs, Query{Target: t, Input: input(t)})
			}
		}
		return qs
	}
}

func locKeys(locs []Loc) Answer {
	keys := make([]string, 0, len(locs))
	for _, l := range locs {
		keys = append(keys, l.String())
	}
	return answerOf(keys)
}

type lhLoc struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

func (l lhLoc) String() string { return Loc(l).String() }

func lhLocs(field string) func(json.RawMessage) (Answer, error) {
	return func(data json.RawMessage) (Answer, error) {
		var st map[string]json.RawMessage
		if err := json.Unmarshal(data, &st); err != nil {
			return Answer{}, err
		}
		var locs []lhLoc
		if raw, ok := st[field]; ok {
			if err := json.Unmarshal(raw, &locs); err != nil {
				return Answer{}, fmt.Errorf("%s: %w", field, err)
			}
		}
		keys := make([]string, 0, len(locs))
		for _, l := range locs {
			keys = append(keys, l.String())
		}
		return answerOf(keys), nil
	}
}

// candidates are the declarations a bare name names: the server's
// workspace symbols of exactly that name, and the index's declarations.
func candidates(ctx context.Context, r *Raw, ix *Index, name string) ([]Loc, error) {
	syms, err := r.WorkspaceSymbols(ctx, name)
	if err != nil {
		return nil, err
	}
	var out []Loc
	add := func(l Loc) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for _, s := range syms {
		// Outside the workspace (a dependency, the standard library): a
		// name there does not compete with the workspace's own
		// declarations, which the targets are.
		if bareName(s.Name) == name && s.Line > 0 && !filepath.IsAbs(s.File) {
			add(s.Loc)
		}
	}
	for _, d := range ix.Named(name) {
		add(d.Loc)
	}
	return out, nil
}

// byName is the raw answer to a question by bare name: the answer at the
// one declaration, or when there are several, ambiguous_target or the
// answer at any of them.
func byName(ctx context.Context, r *Raw, ix *Index, q Query, at func(Loc) (Answer, error)) (Answer, error) {
	cands, err := candidates(ctx, r, ix, q.Target.Name)
	if err != nil {
		return Answer{}, err
	}
	if len(cands) <= 1 {
		return at(q.Target.Decl.Loc)
	}
	a := Answer{Failure: "ambiguous_target"}
	for _, c := range cands[:min(len(cands), 6)] {
		alt, err := at(c)
		if err != nil {
			return Answer{}, err
		}
		a.Accept = append(a.Accept, alt.Keys)
	}
	return a, nil
}

func definitionAt(ctx context.Context, r *Raw, at Loc) (Answer, error) {
	locs, err := r.Locations(ctx, "textDocument/definition", at, nil)
	if err != nil {
		return Answer{}, err
	}
	if len(locs) == 0 {
		return Answer{Failure: "not_found"}, nil
	}
	return locKeys(locs), nil
}

func referencesAt(ctx context.Context, r *Raw, at Loc) (Answer, error) {
	locs, err := r.Locations(ctx, "textDocument/references", at, map[string]any{"context": map[string]bool{"includeDeclaration": false}})
	if err != nil {
		return Answer{}, err
	}
	return locKeys(locs), nil
}

func lhDefinitions(data json.RawMessage) (Answer, error) {
	var st struct {
		Definition  *lhLoc  `json:"definition"`
		Definitions []lhLoc `json:"definitions"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return Answer{}, err
	}
	var keys []string
	if len(st.Definitions) > 0 {
		for _, l := range st.Definitions {
			keys = append(keys, l.String())
		}
	} else if st.Definition != nil {
		keys = append(keys, st.Definition.String())
	}
	return answerOf(keys), nil
}

// lhWithParts reads a list of declarations (find_implementations,
// find_symbol): every declaration of each, the other parts of a partial
// type included, which langhost lists once with its parts and the server
// once per declaration.
func lhWithParts(field string) func(json.RawMessage) (Answer, error) {
	return func(data json.RawMessage) (Answer, error) {
		var st map[string]json.RawMessage
		if err := json.Unmarshal(data, &st); err != nil {
			return Answer{}, err
		}
		var items []struct {
			lhLoc
			Parts []lhLoc `json:"parts"`
		}
		if raw, ok := st[field]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return Answer{}, fmt.Errorf("%s: %w", field, err)
			}
		}
		var keys []string
		for _, it := range items {
			keys = append(keys, it.String())
			for _, p := range it.Parts {
				keys = append(keys, p.String())
			}
		}
		return answerOf(keys), nil
	}
}

type lhNode struct {
	Name string `json:"name"`
	lhLoc
	Supertypes []lhNode `json:"supertypes"`
	Subtypes   []lhNode `json:"subtypes"`
	Children   []lhNode `json:"children"`
}

func itemKey(r *Raw, it lsp.HierarchyItem) string {
	return it.Name + "@" + r.loc(it.URI, it.SelectionRange.Start).String()
}

// capped is the answer of a workspace/symbol cut at the server's cap.
const capped = "incomplete: cut at the server's cap"

// Ops are the operations compared, in report order.
func Ops() []Op {
	byNameInput := func(t Target) map[string]any { return map[string]any{"symbol": t.Name, "detail": "standard"} }
	decl := func(t Target) bool { return positional(t) }
	return []Op{
		{
			Tool: "find_symbol", Requests: "workspace/symbol",
			queries: func(ix *Index, _ *Raw) []Query {
				var qs []Query
				seen := map[string]bool{}
				for _, t := range ix.Targets {
					if positional(t) && !seen[t.Name] {
						seen[t.Name] = true
						qs = append(qs, Query{Target: t, Text: t.Name, Input: map[string]any{"query": t.Name, "limit": 100000, "detail": "standard"}})
					}
				}
				return qs
			},
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				syms, err := r.WorkspaceSymbols(ctx, q.Text)
				if err != nil {
					return Answer{}, err
				}
				if r.lang.SymbolCap > 0 && len(syms) >= r.lang.SymbolCap {
					// Cut at the cap, a different cut each time: what
					// can be compared is that langhost says so.
					return answerOf([]string{capped}), nil
				}
				locs := make([]Loc, 0, len(syms))
				for _, s := range syms {
					locs = append(locs, s.Loc)
				}
				return locKeys(locs), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Complete *bool `json:"complete"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				if st.Complete != nil && !*st.Complete {
					return answerOf([]string{capped}), nil
				}
				return lhWithParts("symbols")(data)
			},
		},
		{
			Tool: "file_symbols", Requests: "textDocument/documentSymbol",
			queries: func(ix *Index, _ *Raw) []Query { return targetFiles(ix, map[string]any{"detail": "standard"}) },
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				syms, err := r.DocumentSymbols(ctx, q.File)
				if err != nil {
					return Answer{}, err
				}
				m, err := r.Mapper(q.File)
				if err != nil {
					return Answer{}, err
				}
				var keys []string
				var walk func([]lsp.DocumentSymbol, string)
				walk = func(syms []lsp.DocumentSymbol, path string) {
					for _, s := range syms {
						l, c := m.LineColumn(s.SelectionRange.Start)
						keys = append(keys, fmt.Sprintf("%s%s %s@%d:%d", path, s.Name, s.Kind, l, c))
						walk(s.Children, path+s.Name+"/")
					}
				}
				walk(syms, "")
				return answerOf(keys), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var nodes struct {
					Symbols json.RawMessage `json:"symbols"`
				}
				if err := json.Unmarshal(data, &nodes); err != nil {
					return Answer{}, err
				}
				type node struct {
					Name     string `json:"name"`
					Kind     string `json:"kind"`
					Line     int    `json:"line"`
					Column   int    `json:"column"`
					Children []node `json:"children"`
				}
				var tree []node
				if err := json.Unmarshal(nodes.Symbols, &tree); err != nil {
					return Answer{}, err
				}
				var keys []string
				var walk func([]node, string)
				walk = func(ns []node, path string) {
					for _, n := range ns {
						keys = append(keys, fmt.Sprintf("%s%s %s@%d:%d", path, n.Name, n.Kind, n.Line, n.Column))
						walk(n.Children, path+n.Name+"/")
					}
				}
				walk(tree, "")
				return answerOf(keys), nil
			},
		},
		{
			Tool: "symbol_info", Requests: "textDocument/definition at the position",
			queries: targetsWhere(decl, func(t Target) map[string]any { return posInput(t.At) }),
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				return definitionAt(ctx, r, q.Target.At)
			},
			langhost: lhDefinitions,
		},
		{
			Tool: "symbol_info", Requests: "by bare name: workspace/symbol for the candidates, textDocument/definition at each",
			queries: targetsWhere(decl, byNameInput),
			raw: func(ctx context.Context, r *Raw, ix *Index, q Query) (Answer, error) {
				return byName(ctx, r, ix, q, func(l Loc) (Answer, error) { return definitionAt(ctx, r, l) })
			},
			langhost: lhDefinitions,
		},
		{
			Tool: "find_references", Requests: "textDocument/references (declaration excluded)",
			queries: targetsWhere(decl, func(t Target) map[string]any {
				in := posInput(t.At)
				in["limit"] = 100000
				return in
			}),
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				return referencesAt(ctx, r, q.Target.At)
			},
			langhost: lhLocs("references"),
		},
		{
			Tool: "find_references", Requests: "by bare name: workspace/symbol for the candidates, textDocument/references at each",
			queries: targetsWhere(decl, func(t Target) map[string]any {
				in := byNameInput(t)
				in["limit"] = 100000
				return in
			}),
			raw: func(ctx context.Context, r *Raw, ix *Index, q Query) (Answer, error) {
				return byName(ctx, r, ix, q, func(l Loc) (Answer, error) { return referencesAt(ctx, r, l) })
			},
			langhost: lhLocs("references"),
		},
		{
			Tool: "find_implementations", Requests: "textDocument/implementation",
			queries: targetsWhere(func(t Target) bool {
				return positional(t) && (isType(t.Decl.Kind) || isFunc(t.Decl.Kind))
			}, func(t Target) map[string]any { return posInput(t.At) }),
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				locs, err := r.Locations(ctx, "textDocument/implementation", q.Target.At, nil)
				if err != nil {
					return Answer{}, err
				}
				return locKeys(locs), nil
			},
			langhost: lhWithParts("implementations"),
		},
		{
			Tool: "type_hierarchy", Requests: "textDocument/prepareTypeHierarchy, typeHierarchy/supertypes and /subtypes",
			queries: func(ix *Index, r *Raw) []Query {
				if !r.Supports("typeHierarchyProvider") {
					return nil
				}
				return targetsWhere(func(t Target) bool { return positional(t) && isType(t.Decl.Kind) },
					func(t Target) map[string]any { return posInput(t.At) })(ix, r)
			},
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				var keys []string
				for _, dir := range []string{"supertypes", "subtypes"} {
					root, items, err := r.Hierarchy(ctx, "textDocument/prepareTypeHierarchy", "typeHierarchy/"+dir, q.Target.At)
					if err != nil {
						return Answer{}, err
					}
					if root == nil {
						return Answer{Failure: "not_found"}, nil
					}
					for _, raw := range items {
						var it lsp.HierarchyItem
						if err := json.Unmarshal(raw, &it); err != nil {
							return Answer{}, err
						}
						keys = append(keys, dir+" "+itemKey(r, it))
					}
				}
				return answerOf(keys), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Root lhNode `json:"root"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				var keys []string
				for _, n := range st.Root.Supertypes {
					keys = append(keys, "supertypes "+n.Name+"@"+n.lhLoc.String())
				}
				for _, n := range st.Root.Subtypes {
					keys = append(keys, "subtypes "+n.Name+"@"+n.lhLoc.String())
				}
				return answerOf(keys), nil
			},
		},
		{
			Tool: "find_callers", Requests: "textDocument/prepareCallHierarchy, callHierarchy/incomingCalls",
			queries: func(ix *Index, r *Raw) []Query {
				if !r.Supports("callHierarchyProvider") {
					return nil
				}
				return targetsWhere(func(t Target) bool { return positional(t) && isFunc(t.Decl.Kind) },
					func(t Target) map[string]any { return posInput(t.At) })(ix, r)
			},
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				root, calls, err := r.Hierarchy(ctx, "textDocument/prepareCallHierarchy", "callHierarchy/incomingCalls", q.Target.At)
				if err != nil {
					return Answer{}, err
				}
				if root == nil {
					return Answer{Failure: "not_found"}, nil
				}
				var keys []string
				for _, raw := range calls {
					var c lsp.CallHierarchyIncomingCall
					if err := json.Unmarshal(raw, &c); err != nil {
						return Answer{}, err
					}
					keys = append(keys, itemKey(r, c.From))
				}
				return answerOf(keys), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Callers []lhNode `json:"callers"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				var keys []string
				for _, n := range st.Callers {
					keys = append(keys, n.Name+"@"+n.lhLoc.String())
				}
				return answerOf(keys), nil
			},
		},
		{
			Tool: "type_members", Requests: "textDocument/documentSymbol: the type's children (and gopls's top-level (T).M methods)",
			queries: targetsWhere(func(t Target) bool { return positional(t) && isType(t.Decl.Kind) },
				func(t Target) map[string]any { return posInput(t.At) }),
			raw: func(ctx context.Context, r *Raw, ix *Index, q Query) (Answer, error) {
				d := q.Target.Decl
				path := strings.Join(append(slices.Clone(d.Container), d.Name), "/")
				var keys []string
				for _, m := range ix.Decls {
					if m.File != d.File {
						continue
					}
					inType := strings.Join(m.Container, "/") == path
					goMethod := len(m.Container) == 0 && (strings.HasPrefix(m.Name, "("+d.Name+").") || strings.HasPrefix(m.Name, "(*"+d.Name+")."))
					if inType || goMethod {
						keys = append(keys, fmt.Sprintf("%s@%d:%d", m.Name, m.Line, m.Column))
					}
				}
				return answerOf(keys), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Members []lhNode `json:"members"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				var keys []string
				for _, n := range st.Members {
					keys = append(keys, fmt.Sprintf("%s@%d:%d", n.Name, n.Line, n.Column))
				}
				return answerOf(keys), nil
			},
		},
		{
			Tool: "containing_member", Requests: "textDocument/documentSymbol: the innermost symbol whose range holds the position",
			queries: targetsWhere(func(Target) bool { return true }, func(t Target) map[string]any {
				return map[string]any{"file": t.At.File, "line": t.At.Line, "column": t.At.Column}
			}),
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				syms, err := r.DocumentSymbols(ctx, q.Target.At.File)
				if err != nil {
					return Answer{}, err
				}
				m, err := r.Mapper(q.Target.At.File)
				if err != nil {
					return Answer{}, err
				}
				pos, err := m.Position(q.Target.At.Line, q.Target.At.Column)
				if err != nil {
					return Answer{}, err
				}
				var inner *lsp.DocumentSymbol
				for level := syms; ; {
					i := slices.IndexFunc(level, func(s lsp.DocumentSymbol) bool { return s.Range.Contains(pos) })
					if i < 0 {
						break
					}
					inner, level = &level[i], level[i].Children
				}
				if inner == nil {
					return Answer{Failure: "not_found"}, nil
				}
				l, _ := m.LineColumn(inner.SelectionRange.Start)
				return answerOf([]string{fmt.Sprintf("%s@%d", inner.Name, l)}), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Member lhNode `json:"member"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				return answerOf([]string{fmt.Sprintf("%s@%d", st.Member.Name, st.Member.Line)}), nil
			},
		},
		{
			Tool: "diagnostics", Requests: "textDocument/diagnostic (pull), else the diagnostics published after didOpen",
			queries: func(ix *Index, _ *Raw) []Query { return targetFiles(ix, nil) },
			raw: func(ctx context.Context, r *Raw, _ *Index, q Query) (Answer, error) {
				diags, err := r.Diagnostics(ctx, q.File)
				if err != nil {
					return Answer{}, err
				}
				m, err := r.Mapper(q.File)
				if err != nil {
					return Answer{}, err
				}
				var keys []string
				for _, d := range UniqueDiagnostics(diags) {
					l, c := m.LineColumn(d.Range.Start)
					// langhost's diagnostics shape names severities
					// its own way ("info" for LSP's "information").
					keys = append(keys, fmt.Sprintf("%d:%d %s %s", l, c, diagnostic.NormalizeSeverity(d.Severity.String()), d.CodeString()))
				}
				return answerOf(keys), nil
			},
			langhost: func(data json.RawMessage) (Answer, error) {
				var st struct {
					Diagnostics []struct {
						Line     int    `json:"line"`
						Column   int    `json:"column"`
						Severity string `json:"severity"`
						Code     string `json:"code"`
					} `json:"diagnostics"`
				}
				if err := json.Unmarshal(data, &st); err != nil {
					return Answer{}, err
				}
				var keys []string
				for _, d := range st.Diagnostics {
					keys = append(keys, fmt.Sprintf("%d:%d %s %s", d.Line, d.Column, d.Severity, d.Code))
				}
				return answerOf(keys), nil
			},
		},
	}
}

// targetFiles is one query per file holding a target, with input extra
// beside the file.
func targetFiles(ix *Index, extra map[string]any) []Query {
	var qs []Query
	seen := map[string]bool{}
	for _, t := range ix.Targets {
		if seen[t.At.File] {
			continue
		}
		seen[t.At.File] = true
		in := map[string]any{"file": t.At.File}
		maps.Copy(in, extra)
		qs = append(qs, Query{File: t.At.File, Input: in})
	}
	return qs
}
