package semantic

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/dotnet"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Operations on types and members built from the requests the other
// operations use: type hierarchy (find_subclasses), implementation
// (find_overrides), references (find_usages) and document symbols
// (method_overloads); and load_status, what the server has loaded.

// ---- find_subclasses

// maxSubclassDepth bounds a transitive walk down a type hierarchy.
const maxSubclassDepth = 20

type findSubclassesInput struct {
	Target
	Transitive bool   `json:"transitive,omitempty" jsonschema:"also the subclasses of subclasses, to any depth (default: direct ones only)"`
	Detail     string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findSubclassesInput) validate() error { return checkDetail(in.Detail) }

// Subclass is a type deriving from (or implementing) the target.
type Subclass struct {
	HierarchyNode
	// Base is the name of the type it derives from directly: the target,
	// or another subclass when the walk is transitive.
	Base  string `json:"base"`
	Depth int    `json:"depth"`
}

type findSubclassesOutput struct {
	Type       HierarchyNode `json:"type"`
	Subclasses []Subclass    `json:"subclasses"`
	Total      int           `json:"total"`
	Coverage
}

func findSubclasses(ctx context.Context, c *call, in *findSubclassesInput) (*findSubclassesOutput, error) {
	item, err := c.prepareTypeHierarchy(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	root := c.node(item, in.Detail)
	subs, err := c.subtypes(ctx, item, in.Transitive)
	if err != nil {
		return nil, err
	}
	out := &findSubclassesOutput{Type: root, Subclasses: []Subclass{}, Total: len(subs)}
	for _, sub := range subs {
		out.Subclasses = append(out.Subclasses, Subclass{HierarchyNode: c.node(sub.item, in.Detail), Base: sub.base, Depth: sub.depth})
	}
	return out, nil
}

// subtype is a type found below another in a type hierarchy.
type subtype struct {
	item  lsp.HierarchyItem
	base  string // the name of the type it derives from directly
	depth int
}

// subtypes walks typeHierarchy/subtypes from item, one level or, with
// transitive, every level (up to maxSubclassDepth), breadth first; each
// level in file order, since servers answer in no stable order.
func (c *call) subtypes(ctx context.Context, item lsp.HierarchyItem, transitive bool) ([]subtype, error) {
	var out []subtype
	seen := map[string]bool{itemKey(item): true}
	level := []subtype{{item: item}}
	for depth := 1; len(level) > 0 && depth <= maxSubclassDepth; depth++ {
		var next []subtype
		for _, parent := range level {
			var items []lsp.HierarchyItem
			if err := c.s.call(ctx, "typeHierarchy/subtypes", map[string]any{"item": parent.item}, &items); err != nil {
				return nil, err
			}
			slices.SortFunc(items, func(a, b lsp.HierarchyItem) int {
				return cmp.Or(cmp.Compare(a.URI, b.URI), cmp.Compare(a.SelectionRange.Start.Line, b.SelectionRange.Start.Line))
			})
			for _, it := range items {
				if key := itemKey(it); !seen[key] {
					seen[key] = true
					next = append(next, subtype{item: it, base: parent.item.Name, depth: depth})
				}
			}
		}
		out = append(out, next...)
		if !transitive {
			break
		}
		level = next
	}
	return out, nil
}

// prepareTypeHierarchy resolves a target to the type hierarchy item of
// the type there.
func (c *call) prepareTypeHierarchy(ctx context.Context, t Target) (lsp.HierarchyItem, error) {
	if err := c.s.require("typeHierarchyProvider", "textDocument/prepareTypeHierarchy"); err != nil {
		return lsp.HierarchyItem{}, err
	}
	r, err := c.resolveTarget(ctx, t)
	if err != nil {
		return lsp.HierarchyItem{}, err
	}
	var items []lsp.HierarchyItem
	if err := c.s.call(ctx, "textDocument/prepareTypeHierarchy", c.docPos(r.doc, r.pos), &items); err != nil {
		return lsp.HierarchyItem{}, err
	}
	if len(items) == 0 {
		return lsp.HierarchyItem{}, fieldErr(failure.NotFound, "symbol", "no type at %s", c.where(r))
	}
	return items[0], nil
}

// ---- find_overrides

type findOverridesInput struct {
	Target
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findOverridesInput) validate() error { return checkDetail(in.Detail) }

// Override is a member that overrides or implements the target member.
type Override struct {
	Loc
	Name           string `json:"name"`
	Kind           string `json:"kind"`
	ContainingType string `json:"containing_type,omitempty"`
	Signature      string `json:"signature,omitempty"`
	Snippet        string `json:"snippet,omitempty"`
}

type findOverridesOutput struct {
	Member    string     `json:"member"`
	Overrides []Override `json:"overrides"`
	Total     int        `json:"total"`
	Coverage
}

// memberKinds of declarations that can override or implement a member.
var overridingKinds = []string{"method", "property", "event", "operator", "function", "field"}

func findOverrides(ctx context.Context, c *call, in *findOverridesInput) (*findOverridesOutput, error) {
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	member, chain := c.declarationOf(ctx, lsp.Location{URI: r.doc.uri, Range: lsp.Range{Start: r.pos, End: r.pos}})
	if member == nil {
		return nil, fieldErr(failure.NotFound, "symbol", "no declaration at %s", c.where(r))
	}
	if member.Kind.IsType() {
		return nil, fieldErr(failure.InvalidInput, "symbol", "%s at %s is a %s; find_overrides takes a method or property (find_subclasses takes a type)", member.Name, c.where(r), member.Kind)
	}
	out := &findOverridesOutput{Member: member.Name, Overrides: []Override{}}
	seen := map[string]bool{fmt.Sprint(r.doc.uri, member.SelectionRange.Start): true}
	add := func(uri lsp.DocumentURI, sym lsp.DocumentSymbol, owner string) {
		key := fmt.Sprint(uri, sym.SelectionRange.Start)
		if seen[key] {
			return
		}
		seen[key] = true
		o := Override{Loc: c.loc(uri, sym.SelectionRange, in.Detail), Name: sym.Name, Kind: sym.Kind.String(), ContainingType: owner}
		if in.Detail != detailCompact {
			o.Signature = sym.Detail
			o.Snippet = c.lineText(uri, sym.SelectionRange.Start.Line)
		}
		out.Overrides = append(out.Overrides, o)
	}

	// What the server calls implementations of the member: for some
	// servers (gopls, typescript-language-server) every override, for
	// csharp-ls those of an interface member only.
	if c.s.supports("implementationProvider", "textDocument/implementation") {
		var raw json.RawMessage
		if err := c.s.call(ctx, "textDocument/implementation", c.docPos(r.doc, r.pos), &raw); err != nil {
			return nil, err
		}
		locs, err := lsp.DecodeLocations(raw)
		if err != nil {
			return nil, failure.Wrap(failure.Internal, err, "decoding implementation result from %s", c.s.name)
		}
		for _, l := range locs {
			sym, chain := c.declarationOf(ctx, l)
			if sym != nil && slices.Contains(overridingKinds, sym.Kind.String()) {
				add(l.URI, *sym, ownerOf(chain))
			}
		}
	}

	// The members of the same name and parameters in the types below the
	// member's own, through the type hierarchy: in C# only those declared
	// override (or implementing an interface's member), not those hiding
	// it with new.
	owner := -1
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].Kind.IsType() {
			owner = i
			break
		}
	}
	if owner >= 0 && c.s.supports("typeHierarchyProvider", "textDocument/prepareTypeHierarchy") {
		var items []lsp.HierarchyItem
		if err := c.s.call(ctx, "textDocument/prepareTypeHierarchy", c.docPos(r.doc, chain[owner].SelectionRange.Start), &items); err != nil {
			return nil, err
		}
		if len(items) > 0 {
			subs, err := c.subtypes(ctx, items[0], true)
			if err != nil {
				return nil, err
			}
			fromInterface := chain[owner].Kind.String() == "interface"
			for _, sub := range subs {
				typ, _ := c.declarationOf(ctx, lsp.Location{URI: sub.item.URI, Range: sub.item.SelectionRange})
				if typ == nil {
					continue
				}
				for _, m := range typ.Children {
					if m.Kind != member.Kind || !sameMember(m.Name, member.Name) {
						continue
					}
					if c.e.lang == "csharp" && !fromInterface && !declaresOverride(c.lineText(sub.item.URI, m.SelectionRange.Start.Line)) {
						continue
					}
					add(sub.item.URI, m, typ.Name)
				}
			}
		}
	}
	slices.SortStableFunc(out.Overrides, func(a, b Override) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	out.Total = len(out.Overrides)
	return out, nil
}

// ownerOf names the innermost type of a chain of declarations.
func ownerOf(chain []lsp.DocumentSymbol) string {
	for i := len(chain) - 1; i >= 0; i-- {
		if chain[i].Kind.IsType() {
			return chain[i].Name
		}
	}
	return ""
}

// sameMember compares two declarations' names as servers give them,
// "Speak()" or "Feed(IAnimal animal)" with the parameters, else bare.
func sameMember(a, b string) bool {
	if a == b {
		return true
	}
	sa, pa, okA := symbolSegments(a)
	sb, pb, okB := symbolSegments(b)
	if len(sa) == 0 || len(sb) == 0 || sa[len(sa)-1] != sb[len(sb)-1] {
		return false
	}
	return !okA || !okB || paramTypes(pa) == paramTypes(pb)
}

// paramTypes reduces a parameter list to its types: "IAnimal animal, int
// n" becomes "IAnimal,int".
func paramTypes(params string) string {
	var types []string
	for _, p := range splitTopLevel(params, ',') {
		f := strings.Fields(strings.TrimSpace(p))
		if len(f) > 1 {
			f = f[:len(f)-1]
		}
		types = append(types, strings.Join(f, " "))
	}
	return strings.Join(types, ",")
}

var overrideKeyword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\boverride\b`) })

func declaresOverride(line string) bool { return overrideKeyword().MatchString(line) }

// ---- find_usages

type findUsagesInput struct {
	Target
	Offset int    `json:"offset,omitempty" jsonschema:"index of the first usage to return (pagination)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"maximum number of usages to return (default 100)"`
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findUsagesInput) validate() error {
	if in.Offset < 0 {
		return fieldErr(failure.InvalidInput, "offset", "must not be negative")
	}
	if in.Limit < 0 {
		return fieldErr(failure.InvalidInput, "limit", "must not be negative")
	}
	return checkDetail(in.Detail)
}

// Usage is one place a type is used.
type Usage struct {
	Reference
	// Usage is how the type is used there: instantiation (new T, T{...}),
	// inheritance (a base type or implemented interface), type_test (is,
	// as, typeof, instanceof), constructor_chain (C#'s ": base(...)" in a
	// derived type's constructor) or reference (any other mention).
	Usage string `json:"usage"`
}

type findUsagesOutput struct {
	Type       string         `json:"type"`
	Kind       string         `json:"kind,omitempty"`
	Total      int            `json:"total"`
	ByUsage    map[string]int `json:"by_usage"`
	Offset     int            `json:"offset"`
	Usages     []Usage        `json:"usages"`
	NextOffset *int           `json:"next_offset,omitempty"`
	Coverage
}

func findUsages(ctx context.Context, c *call, in *findUsagesInput) (*findUsagesOutput, error) {
	if err := c.s.require("referencesProvider", "textDocument/references"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	sym := c.symbol(ctx, r)
	if sym == nil || !sym.Kind.IsType() {
		what := "no declaration"
		if sym != nil {
			what = "a " + sym.Kind.String()
		}
		return nil, fieldErr(failure.InvalidInput, "symbol", "%s is %s, not a type; find_usages takes a class, interface, struct or enum (find_references takes any symbol)", c.where(r), what)
	}
	params := c.docPos(r.doc, r.pos)
	params["context"] = map[string]bool{"includeDeclaration": false}
	var locs []lsp.Location
	if err := c.s.call(ctx, "textDocument/references", params, &locs); err != nil {
		return nil, err
	}
	// A server may list the declaration anyway (csharp-ls does).
	locs = slices.DeleteFunc(locs, func(l lsp.Location) bool { return l.URI == r.doc.uri && l.Range.Contains(sym.SelectionRange.Start) })
	sortLocations(locs)
	name := baseName(sym.Name)
	out := &findUsagesOutput{Type: name, Kind: sym.Kind.String(), Total: len(locs), ByUsage: map[string]int{}, Offset: in.Offset, Usages: []Usage{}}
	// Classify each site once, reading each file once: a type's usages
	// cluster in few files (hundreds of sites in one file is common).
	kinds := make([]string, len(locs))
	files := map[lsp.DocumentURI]*lsp.Mapper{}
	for i, l := range locs {
		m, ok := files[l.URI]
		if !ok {
			m, _ = c.peekURI(l.URI)
			files[l.URI] = m
		}
		kinds[i] = usageKind(m, l, name, c.e.lang)
		out.ByUsage[kinds[i]]++
	}
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}
	if in.Offset >= len(locs) {
		return out, nil
	}
	page := locs[in.Offset:min(in.Offset+limit, len(locs))]
	if next := in.Offset + len(page); next < len(locs) {
		out.NextOffset = &next
	}
	refs, _ := c.references(ctx, page, in.Detail)
	for i, ref := range refs {
		out.Usages = append(out.Usages, Usage{Reference: ref, Usage: kinds[in.Offset+i]})
	}
	return out, nil
}

var (
	// typeHeader matches a type declaration up to its base list.
	typeHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(class|struct|interface|record|enum)\s+\w+[^:{(]*(\([^)]*\))?\s*(:|\bextends\b|\bimplements\b)`)
	})
	typeTest = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\bis|\bas|\btypeof\s*\(|\binstanceof|\bnameof\s*\()\s*$`)
	})
)

// usageKind classifies a mention of the type name at l from its line in
// m, the content of l's file (nil: unreadable).
func usageKind(m *lsp.Mapper, l lsp.Location, name, lang string) string {
	if m == nil {
		return "reference"
	}
	line := m.LineText(int(l.Range.Start.Line) + 1)
	_, col := m.LineColumn(l.Range.Start)
	runes := []rune(line)
	if col < 1 || col-1 > len(runes) {
		return "reference"
	}
	before, after := string(runes[:col-1]), string(runes[col-1:])
	if !strings.HasPrefix(after, name) && (strings.HasPrefix(after, "base") || strings.HasPrefix(after, "this")) {
		return "constructor_chain" // ": base(...)" calls the type's constructor
	}
	after = strings.TrimPrefix(after, name)
	trimmed := strings.TrimRight(before, " \t")
	switch {
	case strings.HasSuffix(trimmed, "new") && (len(trimmed) == 3 || !isIdentRune(rune(trimmed[len(trimmed)-4]))):
		return "instantiation"
	case typeTest().MatchString(before):
		return "type_test"
	case typeHeader().MatchString(before) && !strings.Contains(before, "="):
		return "inheritance"
	case strings.HasPrefix(strings.TrimLeft(after, " "), "{") && strings.HasSuffix(trimmed, "=") || strings.HasPrefix(after, "{") && lang == "go":
		return "instantiation"
	}
	return "reference"
}

func isIdentRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// ---- method_overloads

type methodOverloadsInput struct {
	File   string `json:"file,omitempty" jsonschema:"file declaring the method, relative to the workspace root (default: found through workspace symbols)"`
	Symbol string `json:"symbol" jsonschema:"the method by name path: Type/Method or Namespace.Type.Method (a parameter list or #n selector is ignored)"`
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *methodOverloadsInput) validate() error {
	if strings.TrimSpace(in.Symbol) == "" {
		return fieldErr(failure.InvalidInput, "symbol", "is required")
	}
	return checkDetail(in.Detail)
}

// MethodOverload is one declaration of a method name in a type.
type MethodOverload struct {
	Loc
	Selector  string `json:"selector" jsonschema:"name path addressing exactly this overload"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Signature string `json:"signature,omitempty"`
}

type methodOverloadsOutput struct {
	Name      string           `json:"name"`
	Container string           `json:"container" jsonschema:"the type declaring the overloads"`
	Overloads []MethodOverload `json:"overloads"`
	Total     int              `json:"total"`
	Coverage
}

var callableKinds = []lsp.SymbolKind{lsp.ParseSymbolKind("method"), lsp.ParseSymbolKind("function"), lsp.ParseSymbolKind("constructor"), lsp.ParseSymbolKind("operator")}

func methodOverloads(ctx context.Context, c *call, in *methodOverloadsInput) (*methodOverloadsOutput, error) {
	np, err := parseNamePath("symbol", in.Symbol)
	if err != nil {
		return nil, err
	}
	np.params, np.hasParams, np.index = nil, false, 0
	var docs []*document
	if in.File != "" {
		doc, err := c.view(ctx, "file", in.File)
		if err != nil {
			return nil, err
		}
		docs = []*document{doc}
	} else if docs, err = c.candidateDocs(ctx, np.segs[len(np.segs)-1]); err != nil {
		return nil, err
	}
	// The overloads, grouped by the name path of their container: a
	// partial type's overloads may be spread over several files.
	groups := map[string][]*symbolRef{}
	var order []string
	for _, doc := range docs {
		syms, err := c.documentSymbols(ctx, doc)
		if err != nil {
			return nil, err
		}
		all := flatten(syms)
		quals := c.qualifiers(doc)
		for _, fs := range all {
			if !slices.Contains(callableKinds, fs.sym().Kind) || !pathMatches(np, fs.segs, quals) {
				continue
			}
			key := strings.Join(fs.segs[:len(fs.segs)-1], "/")
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key] = append(groups[key], c.symbolRefOf(doc, all, fs))
		}
	}
	switch len(order) {
	case 0:
		return nil, fieldErr(failure.NotFound, "symbol", "no method %q in %s", in.Symbol, cmpOr(in.File, "the workspace"))
	case 1:
	default:
		var cands []Candidate
		for _, key := range order {
			r := groups[key][0]
			line, _ := r.doc.mapper.LineColumn(r.sym.SelectionRange.Start)
			cands = append(cands, Candidate{Name: key, Kind: "container", File: c.e.relPath(r.doc.uri), Line: line, Selector: key + "/" + np.segs[len(np.segs)-1]})
		}
		amb := fieldErr(failure.Ambiguous, "symbol", "%q is declared in %d types; name one (Type/Method)", in.Symbol, len(order))
		amb.Details = map[string]any{"candidates": cands}
		return nil, amb
	}
	refs := groups[order[0]]
	out := &methodOverloadsOutput{Name: np.segs[len(np.segs)-1], Container: ownerOf(refs[0].chain), Overloads: []MethodOverload{}, Total: len(refs)}
	for _, r := range refs {
		o := MethodOverload{Loc: c.locIn(r.doc.mapper, r.doc.uri, r.sym.SelectionRange, in.Detail), Selector: r.selector(), Name: r.sym.Name, Kind: r.sym.Kind.String()}
		if in.Detail != detailCompact {
			o.Signature = r.sym.Detail
		}
		out.Overloads = append(out.Overloads, o)
	}
	return out, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ---- load_status

type loadStatusInput struct{}

// LoadedProject is a project the server reports it has loaded.
type LoadedProject struct {
	Name string `json:"name"`
}

type loadStatusOutput struct {
	Server  string `json:"server"`
	Version string `json:"version,omitempty"`
	Command string `json:"command"`
	// Root is the directory the server was started on, relative to the
	// workspace root ("." for the root itself).
	Root string `json:"root"`
	// Solution is the solution a .NET server loads, and Projects the
	// projects it names (else the project files found under the root).
	Solution string   `json:"solution,omitempty"`
	Projects []string `json:"project_files,omitempty"`
	// Loaded are the projects the server reported loading, in order.
	Loaded      []LoadedProject `json:"loaded_projects,omitempty"`
	LoadedTotal int             `json:"loaded_total,omitempty" jsonschema:"how many projects the server said it would load"`
	// Complete is true once the server is ready and reports no work in
	// progress.
	Complete bool     `json:"complete"`
	Ready    bool     `json:"ready"`
	Progress []string `json:"progress,omitempty" jsonschema:"work the server reports in progress"`
	LoadMS   int64    `json:"load_ms,omitempty" jsonschema:"milliseconds from start to ready"`
	Messages []string `json:"messages,omitempty" jsonschema:"the server's log messages about loading"`
}

func loadStatus(_ context.Context, c *call, _ *loadStatusInput) (*loadStatusOutput, error) {
	s := c.s
	out := &loadStatusOutput{Server: s.name, Version: s.version, Command: c.e.cfg.Command, Root: c.e.relPath(lsp.URIFromPath(c.e.lspRoot))}
	s.readyMu.Lock()
	out.Ready = s.ready
	if !s.readyAt.IsZero() {
		out.LoadMS = s.readyAt.Sub(s.startedAt).Milliseconds()
	}
	s.readyMu.Unlock()
	for _, ev := range s.srv.ActiveProgress() {
		out.Progress = append(out.Progress, strings.Trim(strings.TrimSpace(ev.Title+": "+ev.Message), ": "))
	}
	out.Complete = out.Ready && len(out.Progress) == 0
	if c.e.cfg.Dialect == DialectRoslyn || c.e.cfg.Dialect == DialectCSharpLS {
		solutions, projects, err := dotnetProjects(s)
		if err == nil && len(solutions) > 0 {
			out.Solution = c.e.relPath(lsp.URIFromPath(solutions[0]))
			// The projects the solution names (what the server loads);
			// a solution it cannot parse still has its own name listed.
			if sol, err := dotnet.ParseSolution(c.e.root, solutions[0]); err == nil {
				for _, p := range sol.Projects {
					if !strings.EqualFold(p.TypeGUID, dotnet.SolutionFolderTypeGUID) {
						out.Projects = append(out.Projects, p.Path)
					}
				}
			}
		}
		for _, p := range projects {
			out.Projects = append(out.Projects, c.e.relPath(lsp.URIFromPath(p)))
		}
	}
	if lr, ok := s.dialect.(loadReporter); ok {
		names, total, msgs := lr.loadReport()
		for _, n := range names {
			out.Loaded = append(out.Loaded, LoadedProject{Name: n})
		}
		out.LoadedTotal, out.Messages = total, msgs
	}
	return out, nil
}

// loadReporter is a dialect that follows what its server loads.
type loadReporter interface {
	loadReport() (projects []string, total int, messages []string)
}
