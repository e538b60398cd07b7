package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type handler func(s *server, params json.RawMessage) (any, *rpcError)

var handlers = map[string]handler{
	"textDocument/definition":           (*server).definition,
	"textDocument/references":           (*server).references,
	"textDocument/implementation":       (*server).implementation,
	"textDocument/documentSymbol":       (*server).documentSymbol,
	"workspace/symbol":                  (*server).workspaceSymbol,
	"textDocument/hover":                (*server).hover,
	"textDocument/prepareRename":        (*server).prepareRename,
	"textDocument/rename":               (*server).rename,
	"textDocument/diagnostic":           (*server).documentDiagnostic,
	"workspace/diagnostic":              (*server).workspaceDiagnostic,
	"textDocument/formatting":           (*server).formatting,
	"textDocument/codeAction":           (*server).codeAction,
	"codeAction/resolve":                (*server).resolveCodeAction,
	"textDocument/prepareTypeHierarchy": (*server).prepareTypeHierarchy,
	"typeHierarchy/supertypes":          (*server).supertypes,
	"typeHierarchy/subtypes":            (*server).subtypes,
	"textDocument/prepareCallHierarchy": (*server).prepareCallHierarchy,
	"callHierarchy/incomingCalls":       (*server).incomingCalls,
	"callHierarchy/outgoingCalls":       (*server).outgoingCalls,
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspRange struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type location struct {
	URI   string   `json:"uri"`
	Range lspRange `json:"range"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type textDocumentPosition struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     position               `json:"position"`
}

func decode(params json.RawMessage, v any) *rpcError {
	if err := json.Unmarshal(params, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	return nil
}

func span(f *file, line, start, end int) lspRange {
	l := ""
	if line < len(f.Lines) {
		l = f.Lines[line]
	}
	return lspRange{Start: position{line, utf16Col(l, start)}, End: position{line, utf16Col(l, end)}}
}

func nameRange(sym *symbol) lspRange { return span(sym.File, sym.Line, sym.NameStart, sym.NameEnd) }

func fullRange(sym *symbol) lspRange {
	f := sym.File
	start := len(f.Lines[sym.Line]) - len(strings.TrimLeft(f.Lines[sym.Line], " \t"))
	return lspRange{
		Start: position{sym.Line, utf16Col(f.Lines[sym.Line], start)},
		End:   position{sym.EndLine, utf16Col(f.Lines[sym.EndLine], sym.EndCol)},
	}
}

// at resolves a text document position to the identifier under it. f is
// nil when the document is not part of the loaded workspace.
func (s *server) at(params json.RawMessage) (f *file, word string, line, col int, rerr *rpcError) {
	var p textDocumentPosition
	if rerr = decode(params, &p); rerr != nil {
		return
	}
	f = s.idx.files[p.TextDocument.URI]
	if f == nil || p.Position.Line < 0 || p.Position.Line >= len(f.Lines) {
		return nil, "", 0, 0, nil
	}
	line = p.Position.Line
	col = byteCol(f.Lines[line], p.Position.Character)
	word, _, _ = f.wordAt(line, col)
	return
}

// targets returns the declarations the identifier at a position denotes.
func (s *server) targets(f *file, word string, line, col int) []*symbol {
	if word == "" {
		return nil
	}
	if d := f.declarationAt(line, col); d != nil {
		return []*symbol{d}
	}
	return s.idx.resolve(word)
}

func locations(syms []*symbol) []location {
	out := []location{}
	for _, sym := range syms {
		out = append(out, location{URI: sym.File.URI, Range: nameRange(sym)})
	}
	return out
}

func (s *server) definition(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil {
		return []location{}, rerr
	}
	return locations(s.targets(f, word, line, col)), nil
}

func (s *server) references(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Context struct {
			IncludeDeclaration bool `json:"includeDeclaration"`
		} `json:"context"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil || len(s.targets(f, word, line, col)) == 0 {
		return []location{}, rerr
	}
	out := []location{}
	for _, o := range s.idx.occurrences(word) {
		if !p.Context.IncludeDeclaration && o.File.declarationAt(o.Line, o.Start) != nil {
			continue
		}
		out = append(out, location{URI: o.File.URI, Range: span(o.File, o.Line, o.Start, o.End)})
	}
	return out, nil
}

// derivedTypes returns the types that list base directly or indirectly.
func (x *index) derivedTypes(base string, direct bool) []*symbol {
	var out []*symbol
	seen := map[string]bool{base: true}
	queue := []string{base}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, t := range x.allSymbols() {
			if !t.isType() || seen[t.Name] {
				continue
			}
			for _, b := range t.Bases {
				if b == name {
					seen[t.Name] = true
					out = append(out, t)
					if !direct {
						queue = append(queue, t.Name)
					}
				}
			}
		}
	}
	return out
}

func (s *server) implementation(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil {
		return []location{}, rerr
	}
	var out []*symbol
	for _, t := range s.targets(f, word, line, col) {
		switch {
		case t.isType():
			for _, d := range s.idx.derivedTypes(t.Name, false) {
				if d.Kind != kindInterface {
					out = append(out, d)
				}
			}
		case t.Parent != nil:
			for _, d := range s.idx.derivedTypes(t.Parent.Name, false) {
				for _, c := range d.Children {
					if c.Name == t.Name && c.Kind == t.Kind {
						out = append(out, c)
					}
				}
			}
		}
	}
	return locations(out), nil
}

type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          lspRange         `json:"range"`
	SelectionRange lspRange         `json:"selectionRange"`
	Children       []documentSymbol `json:"children,omitempty"`
}

type symbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

func (s *server) documentSymbol(params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f := s.idx.files[p.TextDocument.URI]
	if f == nil {
		return []any{}, nil
	}
	if !s.clientCaps.hierarchicalSymbols {
		out := []symbolInformation{}
		for _, sym := range f.Symbols {
			out = append(out, symbolInformation{Name: sym.Name, Kind: sym.Kind, ContainerName: sym.Container,
				Location: location{URI: f.URI, Range: nameRange(sym)}})
		}
		return out, nil
	}
	var build func(sym *symbol) documentSymbol
	build = func(sym *symbol) documentSymbol {
		d := documentSymbol{Name: sym.Name, Detail: sym.Signature, Kind: sym.Kind, Range: fullRange(sym), SelectionRange: nameRange(sym)}
		for _, c := range sym.Children {
			d.Children = append(d.Children, build(c))
		}
		return d
	}
	out := []documentSymbol{}
	for _, sym := range f.Symbols {
		if sym.Parent == nil {
			out = append(out, build(sym))
		}
	}
	return out, nil
}

// matchesQuery is Roslyn-like fuzzy matching: a case-insensitive substring
// or the capitals of a PascalCase name ("AC" finds AreaCalculator).
func matchesQuery(name, query string) bool {
	if query == "" || strings.Contains(strings.ToLower(name), strings.ToLower(query)) {
		return true
	}
	var caps strings.Builder
	for _, r := range name {
		if 'A' <= r && r <= 'Z' {
			caps.WriteRune(r)
		}
	}
	return strings.HasPrefix(caps.String(), strings.ToUpper(query)) && strings.ToUpper(query) == query
}

func (s *server) workspaceSymbol(params json.RawMessage) (any, *rpcError) {
	var p struct {
		Query string `json:"query"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	out := []symbolInformation{}
	for _, sym := range s.idx.allSymbols() {
		if matchesQuery(sym.Name, p.Query) {
			out = append(out, symbolInformation{Name: sym.Name, Kind: sym.Kind, ContainerName: sym.Container,
				Location: location{URI: sym.File.URI, Range: nameRange(sym)}})
		}
	}
	// Exact matches first, as Roslyn's navigate-to ranks them.
	sort.SliceStable(out, func(i, j int) bool {
		return strings.EqualFold(out[i].Name, p.Query) && !strings.EqualFold(out[j].Name, p.Query)
	})
	return out, nil
}

func (s *server) hover(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil {
		return nil, rerr
	}
	targets := s.targets(f, word, line, col)
	if len(targets) == 0 {
		return nil, nil
	}
	sym := targets[0]
	_, start, end := f.wordAt(line, col)
	value := "```csharp\n" + sym.Signature + "\n```"
	if doc := docComment(sym); doc != "" {
		value += "\n\n" + doc
	}
	return map[string]any{
		"contents": map[string]any{"kind": "markdown", "value": value},
		"range":    span(f, line, start, end),
	}, nil
}

var summaryRE = regexp.MustCompile(`<summary>\s*(.*?)\s*</summary>`)

// docComment returns the one-line <summary> above a declaration.
func docComment(sym *symbol) string {
	var lines []string
	for i := sym.Line - 1; i >= 0; i-- {
		t := strings.TrimSpace(sym.File.Lines[i])
		if !strings.HasPrefix(t, "///") {
			break
		}
		lines = append([]string{strings.TrimSpace(strings.TrimPrefix(t, "///"))}, lines...)
	}
	if m := summaryRE.FindStringSubmatch(strings.Join(lines, " ")); m != nil {
		return m[1]
	}
	return ""
}

func (s *server) prepareRename(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil || len(s.targets(f, word, line, col)) == 0 {
		return nil, rerr
	}
	_, start, end := f.wordAt(line, col)
	return map[string]any{"range": span(f, line, start, end), "placeholder": word}, nil
}

func (s *server) rename(params json.RawMessage) (any, *rpcError) {
	var p struct {
		NewName string `json:"newName"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil || len(s.targets(f, word, line, col)) == 0 {
		return nil, rerr
	}
	if !identRE.MatchString(p.NewName) || keywords[p.NewName] {
		return nil, &rpcError{Code: codeRequestFailed, Message: fmt.Sprintf("'%s' is not a valid identifier", p.NewName)}
	}
	byFile := map[*file][]any{}
	var files []*file
	for _, o := range s.idx.occurrences(word) {
		if _, ok := byFile[o.File]; !ok {
			files = append(files, o.File)
		}
		byFile[o.File] = append(byFile[o.File], map[string]any{"range": span(o.File, o.Line, o.Start, o.End), "newText": p.NewName})
	}
	changes := []any{}
	for _, of := range files {
		changes = append(changes, map[string]any{
			"textDocument": map[string]any{"uri": of.URI, "version": of.Version},
			"edits":        byFile[of],
		})
	}
	return map[string]any{"documentChanges": changes}, nil
}

// resultID identifies a document's diagnostics by its text.
func resultID(f *file) string {
	h := fnv.New64a()
	h.Write([]byte(f.Text))
	return strconv.FormatUint(h.Sum64(), 36)
}

var controlWords = map[string]bool{
	"if": true, "else": true, "for": true, "foreach": true, "while": true, "do": true, "switch": true, "case": true,
	"default": true, "try": true, "catch": true, "finally": true, "using": true, "lock": true, "fixed": true,
	"checked": true, "unchecked": true, "unsafe": true, "get": true, "set": true, "init": true, "add": true, "remove": true,
}

// missingSemicolons finds statement lines in member bodies that end
// without ';' and are not continued on the next line: Roslyn's CS1002.
func missingSemicolons(f *file) []map[string]any {
	out := []map[string]any{}
	for i, l := range f.Masked {
		if !f.InBody[i] {
			continue
		}
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "[") {
			continue
		}
		last := t[len(t)-1]
		isEnd := last == ')' || last == ']' || last == '"' || last == '\'' || last == '_' ||
			('a' <= last && last <= 'z') || ('A' <= last && last <= 'Z') || ('0' <= last && last <= '9')
		if !isEnd || controlWords[strings.FieldsFunc(t, func(r rune) bool { return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })[0]] {
			continue
		}
		next := ""
		for k := i + 1; k < len(f.Masked); k++ {
			if n := strings.TrimSpace(f.Masked[k]); n != "" {
				next = n
				break
			}
		}
		if next != "" && strings.ContainsRune(".?:+-*/%&|=<>{(,", rune(next[0])) {
			continue
		}
		end := len(strings.TrimRight(f.Lines[i], " \t"))
		out = append(out, map[string]any{
			"range":    span(f, i, end, end),
			"severity": 1,
			"code":     "CS1002",
			"codeDescription": map[string]any{
				"href": "https://msdn.microsoft.com/query/roslyn.query?appId=roslyn&k=k(CS1002)",
			},
			"source":  "csharp",
			"message": "; expected",
		})
	}
	return out
}

func (s *server) documentDiagnostic(params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument     textDocumentIdentifier `json:"textDocument"`
		PreviousResultID string                 `json:"previousResultId"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f := s.idx.files[p.TextDocument.URI]
	if f == nil {
		return emptyResult("textDocument/diagnostic"), nil
	}
	id := resultID(f)
	if p.PreviousResultID == id {
		return map[string]any{"kind": "unchanged", "resultId": id}, nil
	}
	return map[string]any{"kind": "full", "resultId": id, "items": missingSemicolons(f)}, nil
}

func (s *server) workspaceDiagnostic(params json.RawMessage) (any, *rpcError) {
	var p struct {
		PreviousResultIDs []struct {
			URI   string `json:"uri"`
			Value string `json:"value"`
		} `json:"previousResultIds"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	prev := map[string]string{}
	for _, r := range p.PreviousResultIDs {
		prev[r.URI] = r.Value
	}
	items := []any{}
	for _, f := range s.idx.sortedFiles() {
		id := resultID(f)
		if prev[f.URI] == id {
			items = append(items, map[string]any{"kind": "unchanged", "uri": f.URI, "version": f.Version, "resultId": id})
			continue
		}
		items = append(items, map[string]any{"kind": "full", "uri": f.URI, "version": f.Version, "resultId": id, "items": missingSemicolons(f)})
	}
	return map[string]any{"items": items}, nil
}

type textEdit struct {
	Range   lspRange `json:"range"`
	NewText string   `json:"newText"`
}

func (s *server) formatting(params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f := s.idx.files[p.TextDocument.URI]
	if f == nil {
		// Formatting needs no project: read the file like a misc document.
		path, err := uriToPath(p.TextDocument.URI)
		if err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: err.Error()}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
		}
		f = parseFile(path, p.TextDocument.URI, string(data))
	}
	edits := []textEdit{}
	for i, l := range f.Lines {
		trimmed := strings.TrimRight(l, " \t")
		if len(trimmed) < len(l) {
			edits = append(edits, textEdit{Range: span(f, i, len(trimmed), len(l)), NewText: ""})
		}
	}
	return edits, nil
}

// codeActionData travels with an unresolved code action to codeAction/resolve.
type codeActionData struct {
	URI    string `json:"uri"`
	Action string `json:"action"` // "insertSemicolon" or "sortUsings"
	Line   int    `json:"line"`
}

var usingRE = regexp.MustCompile(`^using\s+(?:static\s+)?[\w.]+\s*;$`)

// usingBlock returns the first and last line of the leading using
// directives and their sorted text (System namespaces first).
func usingBlock(f *file) (first, last int, sorted []string, ok bool) {
	first = -1
	for i, l := range f.Masked {
		t := strings.TrimSpace(l)
		switch {
		case usingRE.MatchString(t):
			if first < 0 {
				first = i
			}
			last = i
			continue
		case t == "" && first < 0:
			continue
		}
		break
	}
	if first < 0 {
		return 0, 0, nil, false
	}
	var lines []string
	for i := first; i <= last; i++ {
		if t := strings.TrimSpace(f.Lines[i]); t != "" {
			lines = append(lines, t)
		}
	}
	sorted = append([]string{}, lines...)
	key := func(u string) string {
		name := strings.TrimSuffix(strings.TrimPrefix(u, "using "), ";")
		if name == "System" || strings.HasPrefix(name, "System.") {
			return "0" + name
		}
		return "1" + name
	}
	sort.SliceStable(sorted, func(i, j int) bool { return key(sorted[i]) < key(sorted[j]) })
	return first, last, sorted, strings.Join(sorted, "\n") != strings.Join(lines, "\n")
}

func (s *server) codeAction(params json.RawMessage) (any, *rpcError) {
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
		Range        lspRange               `json:"range"`
		Context      struct {
			Only []string `json:"only"`
		} `json:"context"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	f := s.idx.files[p.TextDocument.URI]
	if f == nil {
		return []any{}, nil
	}
	wants := func(kind string) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, o := range p.Context.Only {
			if kind == o || strings.HasPrefix(kind, o+".") {
				return true
			}
		}
		return false
	}
	actions := []any{}
	if wants("quickfix") {
		for _, d := range missingSemicolons(f) {
			line := d["range"].(lspRange).Start.Line
			if line < p.Range.Start.Line || line > p.Range.End.Line {
				continue
			}
			actions = append(actions, s.action("Insert ';'", "quickfix", []any{d}, codeActionData{URI: f.URI, Action: "insertSemicolon", Line: line}))
		}
	}
	actions = append(actions, s.refactorings(f, p.Range, wants)...)
	if _, _, _, unsorted := usingBlock(f); unsorted && wants("source.organizeImports") {
		actions = append(actions, s.action("Sort Usings", "source.organizeImports", nil, codeActionData{URI: f.URI, Action: "sortUsings"}))
	}
	return actions, nil
}

// action builds a code action: lazy (data, no edit) when the client can
// resolve edits, as Roslyn does; otherwise with the edit inline.
func (s *server) action(title, kind string, diags []any, data codeActionData) map[string]any {
	a := map[string]any{"title": title, "kind": kind, "data": data}
	if diags != nil {
		a["diagnostics"] = diags
	}
	if !s.clientCaps.codeActionResolve {
		if edit, rerr := s.actionEdit(data); rerr == nil {
			a["edit"] = edit
		}
	}
	return a
}

func (s *server) actionEdit(d codeActionData) (any, *rpcError) {
	f := s.idx.files[d.URI]
	if f == nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "unknown document " + d.URI}
	}
	var edits []textEdit
	switch d.Action {
	case "insertSemicolon":
		if d.Line < 0 || d.Line >= len(f.Lines) {
			return nil, &rpcError{Code: codeInvalidParams, Message: "line out of range"}
		}
		end := len(strings.TrimRight(f.Lines[d.Line], " \t"))
		edits = []textEdit{{Range: span(f, d.Line, end, end), NewText: ";"}}
	case "sortUsings":
		first, last, sorted, _ := usingBlock(f)
		edits = []textEdit{{Range: lspRange{Start: position{first, 0}, End: position{last, utf16Col(f.Lines[last], len(f.Lines[last]))}},
			NewText: strings.Join(sorted, "\n")}}
	default:
		if strings.HasPrefix(d.Action, "implementInterface:") {
			var rerr *rpcError
			if edits, rerr = s.implementInterfaceEdit(f, d); rerr != nil {
				return nil, rerr
			}
			break
		}
		return nil, &rpcError{Code: codeInvalidParams, Message: "unknown code action " + d.Action}
	}
	return map[string]any{"documentChanges": []any{map[string]any{
		"textDocument": map[string]any{"uri": f.URI, "version": f.Version},
		"edits":        edits,
	}}}, nil
}

func (s *server) resolveCodeAction(params json.RawMessage) (any, *rpcError) {
	var a map[string]any
	var p struct {
		Data codeActionData `json:"data"`
	}
	if rerr := decode(params, &a); rerr != nil {
		return nil, rerr
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	edit, rerr := s.actionEdit(p.Data)
	if rerr != nil {
		return nil, rerr
	}
	a["edit"] = edit
	return a, nil
}

// hierarchyItem is a TypeHierarchyItem or CallHierarchyItem.
type hierarchyItem struct {
	Name           string        `json:"name"`
	Kind           int           `json:"kind"`
	Detail         string        `json:"detail,omitempty"`
	URI            string        `json:"uri"`
	Range          lspRange      `json:"range"`
	SelectionRange lspRange      `json:"selectionRange"`
	Data           hierarchyData `json:"data"`
}

type hierarchyData struct {
	URI  string `json:"uri"`
	Line int    `json:"line"`
	Name string `json:"name"`
}

func item(sym *symbol) hierarchyItem {
	return hierarchyItem{Name: sym.Name, Kind: sym.Kind, Detail: sym.Container, URI: sym.File.URI,
		Range: fullRange(sym), SelectionRange: nameRange(sym), Data: hierarchyData{URI: sym.File.URI, Line: sym.Line, Name: sym.Name}}
}

func (s *server) fromItem(params json.RawMessage) (*symbol, *rpcError) {
	var p struct {
		Item hierarchyItem `json:"item"`
	}
	if rerr := decode(params, &p); rerr != nil {
		return nil, rerr
	}
	if f := s.idx.files[p.Item.Data.URI]; f != nil {
		for _, sym := range f.Symbols {
			if sym.Line == p.Item.Data.Line && sym.Name == p.Item.Data.Name {
				return sym, nil
			}
		}
	}
	return nil, &rpcError{Code: codeInvalidParams, Message: "item does not name a known symbol"}
}

func (s *server) prepareTypeHierarchy(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil {
		return nil, rerr
	}
	var out []hierarchyItem
	for _, t := range s.targets(f, word, line, col) {
		if t.isType() {
			out = append(out, item(t))
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (s *server) supertypes(params json.RawMessage) (any, *rpcError) {
	sym, rerr := s.fromItem(params)
	if rerr != nil {
		return nil, rerr
	}
	out := []hierarchyItem{}
	for _, b := range sym.Bases {
		for _, t := range s.idx.symbolsNamed(b) {
			if t.isType() {
				out = append(out, item(t))
			}
		}
	}
	return out, nil
}

func (s *server) subtypes(params json.RawMessage) (any, *rpcError) {
	sym, rerr := s.fromItem(params)
	if rerr != nil {
		return nil, rerr
	}
	out := []hierarchyItem{}
	for _, t := range s.idx.derivedTypes(sym.Name, true) {
		out = append(out, item(t))
	}
	return out, nil
}

func (s *server) prepareCallHierarchy(params json.RawMessage) (any, *rpcError) {
	f, word, line, col, rerr := s.at(params)
	if rerr != nil || f == nil {
		return nil, rerr
	}
	var out []hierarchyItem
	for _, t := range s.targets(f, word, line, col) {
		if t.Kind == kindMethod || t.Kind == kindConstructor || t.Kind == kindProperty {
			out = append(out, item(t))
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

var callRE = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// call is one call site inside a member body.
type call struct {
	caller *symbol
	callee *symbol
	rng    lspRange
}

// calls lists the call sites in member bodies that resolve to indexed
// methods and constructors.
func (x *index) calls() []call {
	var out []call
	for _, f := range x.sortedFiles() {
		for _, m := range f.Symbols {
			if !m.isMember() {
				continue
			}
			for i := m.Line; i <= m.EndLine && i < len(f.Masked); i++ {
				for _, loc := range callRE.FindAllStringSubmatchIndex(f.Masked[i], -1) {
					if i == m.Line && loc[2] == m.NameStart {
						continue // the declaration itself
					}
					name := f.Masked[i][loc[2]:loc[3]]
					isNew := regexp.MustCompile(`\bnew\s+$`).MatchString(f.Masked[i][:loc[2]])
					for _, callee := range x.resolve(name) {
						if callee.isType() && isNew {
							for _, c := range callee.Children {
								if c.Kind == kindConstructor {
									out = append(out, call{m, c, span(f, i, loc[2], loc[3])})
								}
							}
						} else if callee.Kind == kindMethod || callee.Kind == kindConstructor {
							out = append(out, call{m, callee, span(f, i, loc[2], loc[3])})
						}
					}
				}
			}
		}
	}
	return out
}

func (s *server) incomingCalls(params json.RawMessage) (any, *rpcError) {
	sym, rerr := s.fromItem(params)
	if rerr != nil {
		return nil, rerr
	}
	return groupCalls(s.idx.calls(), func(c call) (*symbol, bool) { return c.caller, c.callee == sym }, "from"), nil
}

func (s *server) outgoingCalls(params json.RawMessage) (any, *rpcError) {
	sym, rerr := s.fromItem(params)
	if rerr != nil {
		return nil, rerr
	}
	return groupCalls(s.idx.calls(), func(c call) (*symbol, bool) { return c.callee, c.caller == sym }, "to"), nil
}

func groupCalls(calls []call, pick func(call) (*symbol, bool), key string) []any {
	var order []*symbol
	ranges := map[*symbol][]lspRange{}
	for _, c := range calls {
		other, ok := pick(c)
		if !ok {
			continue
		}
		if _, seen := ranges[other]; !seen {
			order = append(order, other)
		}
		ranges[other] = append(ranges[other], c.rng)
	}
	out := []any{}
	for _, o := range order {
		out = append(out, map[string]any{key: item(o), "fromRanges": ranges[o]})
	}
	return out
}

// documentSync keeps open documents' text and re-reads changed files.
func (s *server) documentSync(method string, params json.RawMessage) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
			Text    string `json:"text"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Range *lspRange `json:"range"`
			Text  string    `json:"text"`
		} `json:"contentChanges"`
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.problem(fmt.Sprintf("%s: %v", method, err))
		return
	}
	uri := p.TextDocument.URI
	switch method {
	case "textDocument/didOpen":
		path, _ := fileURIPath(uri)
		f := parseFile(path, uri, p.TextDocument.Text)
		v := p.TextDocument.Version
		f.Version = &v
		s.idx.files[uri] = f
	case "textDocument/didChange":
		f := s.idx.files[uri]
		if f == nil || f.Version == nil {
			s.problem(fmt.Sprintf("didChange for %s, which is not open", uri))
			return
		}
		text := f.Text
		for _, c := range p.ContentChanges {
			if c.Range == nil {
				text = c.Text
				continue
			}
			text = applyChange(text, *c.Range, c.Text)
		}
		nf := parseFile(f.Path, uri, text)
		v := p.TextDocument.Version
		nf.Version = &v
		s.idx.files[uri] = nf
	case "textDocument/didClose", "textDocument/didSave":
		s.reload(uri, method == "textDocument/didClose")
	case "workspace/didChangeWatchedFiles":
		for _, c := range p.Changes {
			if f := s.idx.files[c.URI]; f != nil && f.Version == nil {
				s.reload(c.URI, false)
			}
		}
	}
}

// reload re-reads a document from disk; a closed document that is not
// part of the workspace leaves the index.
func (s *server) reload(uri string, closed bool) {
	f := s.idx.files[uri]
	if f == nil {
		return
	}
	if !closed && f.Version != nil {
		return // the client's text wins while the document is open
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		delete(s.idx.files, uri)
		return
	}
	s.idx.files[uri] = parseFile(f.Path, uri, string(data))
}

// applyChange applies an incremental content change.
func applyChange(text string, r lspRange, newText string) string {
	offset := func(p position) int {
		off := 0
		lines := strings.SplitAfter(text, "\n")
		for i := 0; i < p.Line && i < len(lines); i++ {
			off += len(lines[i])
		}
		if p.Line < len(lines) {
			off += byteCol(strings.TrimRight(lines[p.Line], "\r\n"), p.Character)
		}
		return min(off, len(text))
	}
	start, end := offset(r.Start), offset(r.End)
	if end < start {
		start, end = end, start
	}
	return text[:start] + newText + text[end:]
}
