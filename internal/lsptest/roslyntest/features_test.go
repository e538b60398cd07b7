package roslyntest_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// loaded starts a fake with the fixture solution open and ready.
func loaded(t *testing.T, env ...string) (*peer, func(string) string) {
	t.Helper()
	p := startPeer(t, append([]string{"FAKEROSLYN_LOAD_DELAY=0"}, env...))
	root := fixture(t)
	p.handshake(root)
	p.openAndWait(root)
	return p, func(rel string) string { return fileURI(filepath.Join(root, rel)) }
}

func at(uri string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}}
}

type loc struct {
	URI   string `json:"uri"`
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
}

// short renders a location as "file:line:col-col" (0-based, as on the wire).
func (l loc) short() string {
	return fmt.Sprintf("%s:%d:%d-%d", filepath.Base(l.URI), l.Range.Start.Line, l.Range.Start.Character, l.Range.End.Character)
}

func locs(t *testing.T, p *peer, method string, params map[string]any) []string {
	t.Helper()
	var ls []loc
	p.mustCall(method, params, &ls)
	out := []string{}
	for _, l := range ls {
		out = append(out, l.short())
	}
	return out
}

func TestNavigation(t *testing.T) {
	p, uri := loaded(t)
	refs := func(u string, line, char int, decl bool) map[string]any {
		m := at(u, line, char)
		m["context"] = map[string]any{"includeDeclaration": decl}
		return m
	}
	tests := []struct {
		name   string
		method string
		params map[string]any
		want   []string
	}{
		{"definition of a call", "textDocument/definition", at(uri("src/Shapes.App/Report.cs"), 10, 35),
			[]string{"AreaCalculator.cs:9:18-27"}},
		{"definition through the interface", "textDocument/definition", at(uri("src/Shapes.App/AreaCalculator.cs"), 11, 34),
			[]string{"IShape.cs:5:11-15"}},
		{"definition of a type", "textDocument/definition", at(uri("src/Shapes.App/Program.cs"), 8, 50),
			[]string{"Circle.cs:2:13-19"}},
		{"definition on whitespace", "textDocument/definition", at(uri("src/Shapes.App/Program.cs"), 0, 5), []string{}},
		{"references with declaration", "textDocument/references", refs(uri("src/Shapes.App/AreaCalculator.cs"), 9, 20, true),
			[]string{"AreaCalculator.cs:9:18-27", "Report.cs:10:34-43"}},
		{"references without declaration", "textDocument/references", refs(uri("src/Shapes/IShape.cs"), 3, 20, false),
			[]string{"AreaCalculator.cs:9:40-46", "Program.cs:8:30-36", "Report.cs:8:38-44", "Circle.cs:2:22-28", "Square.cs:2:33-39"}},
		{"implementations of an interface", "textDocument/implementation", at(uri("src/Shapes/IShape.cs"), 3, 20),
			[]string{"Circle.cs:2:13-19", "Square.cs:2:24-30"}},
		{"implementations of an interface member", "textDocument/implementation", at(uri("src/Shapes/IShape.cs"), 5, 12),
			[]string{"Circle.cs:11:18-22", "Square.cs:8:22-26"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := locs(t, p, tt.method, tt.params); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %q\nwant %q", tt.method, got, tt.want)
			}
		})
	}
}

func TestWorkspaceSymbol(t *testing.T) {
	p, _ := loaded(t)
	tests := []struct {
		query string
		want  []string
	}{
		{"TotalArea", []string{"Shapes.App.AreaCalculator.TotalArea"}},
		{"AC", []string{"Shapes.App.AreaCalculator"}}, // PascalCase capitals
		{"ishape", []string{"Shapes.IShape"}},         // case-insensitive
		{"Radius", []string{"Shapes.Circle.Radius"}},  // property
		{"side", []string{"Shapes.Square.side"}},      // field
		{"Nothing", []string{}},
	}
	for _, tt := range tests {
		var syms []struct {
			Name, ContainerName string
		}
		p.mustCall("workspace/symbol", map[string]any{"query": tt.query}, &syms)
		got := []string{}
		for _, s := range syms {
			got = append(got, s.ContainerName+"."+s.Name)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("workspace/symbol %q = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestDocumentSymbol(t *testing.T) {
	p, uri := loaded(t)
	type docSym struct {
		Name     string   `json:"name"`
		Detail   string   `json:"detail"`
		Kind     int      `json:"kind"`
		Children []docSym `json:"children"`
	}
	var syms []docSym
	p.mustCall("textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri("src/Shapes/Circle.cs")}}, &syms)
	want := []docSym{{Name: "Circle", Detail: "class Shapes.Circle", Kind: 5, Children: []docSym{
		{Name: "Circle", Detail: "Circle.Circle(double radius)", Kind: 9},
		{Name: "Radius", Detail: "double Circle.Radius { get; }", Kind: 7},
		{Name: "Area", Detail: "double Circle.Area()", Kind: 6},
		{Name: "Name", Detail: "string Circle.Name", Kind: 7},
	}}}
	if !reflect.DeepEqual(syms, want) {
		t.Errorf("documentSymbol = %+v\nwant %+v", syms, want)
	}
}

func TestHover(t *testing.T) {
	p, uri := loaded(t)
	tests := []struct {
		line, char int
		file, want string
	}{
		{3, 20, "src/Shapes/IShape.cs", "```csharp\ninterface Shapes.IShape\n```\n\nA closed two-dimensional shape."},
		{10, 35, "src/Shapes.App/Report.cs", "```csharp\ndouble AreaCalculator.TotalArea(IEnumerable<IShape> shapes)\n```"},
	}
	for _, tt := range tests {
		var h struct {
			Contents struct{ Kind, Value string } `json:"contents"`
		}
		p.mustCall("textDocument/hover", at(uri(tt.file), tt.line, tt.char), &h)
		if h.Contents.Kind != "markdown" || h.Contents.Value != tt.want {
			t.Errorf("hover %s:%d = %+v, want %q", tt.file, tt.line, h.Contents, tt.want)
		}
	}
	raw, _ := p.call("textDocument/hover", at(uri("src/Shapes/Circle.cs"), 0, 3)) // "namespace" keyword
	if string(raw) != "null" {
		t.Errorf("hover on a keyword = %s, want null", raw)
	}
}

func TestRename(t *testing.T) {
	p, uri := loaded(t)
	raw, _ := p.call("textDocument/prepareRename", at(uri("src/Shapes.App/Report.cs"), 10, 35))
	if string(raw) != `{"placeholder":"TotalArea","range":{"end":{"character":43,"line":10},"start":{"character":34,"line":10}}}` {
		t.Errorf("prepareRename = %s", raw)
	}
	if raw, _ := p.call("textDocument/prepareRename", at(uri("src/Shapes.App/Report.cs"), 11, 10)); string(raw) != "null" {
		t.Errorf("prepareRename on 'return' = %s, want null", raw)
	}
	params := at(uri("src/Shapes.App/Report.cs"), 10, 35)
	params["newName"] = "SumOfAreas"
	var edit struct {
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int   `json:"version"`
			} `json:"textDocument"`
			Edits []struct {
				Range   json.RawMessage `json:"range"`
				NewText string          `json:"newText"`
			} `json:"edits"`
		} `json:"documentChanges"`
	}
	p.mustCall("textDocument/rename", params, &edit)
	var got []string
	for _, dc := range edit.DocumentChanges {
		for _, e := range dc.Edits {
			got = append(got, filepath.Base(dc.TextDocument.URI)+" "+string(e.Range)+" "+e.NewText)
		}
	}
	want := []string{
		`AreaCalculator.cs {"end":{"character":27,"line":9},"start":{"character":18,"line":9}} SumOfAreas`,
		`Report.cs {"end":{"character":43,"line":10},"start":{"character":34,"line":10}} SumOfAreas`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rename edits = %q\nwant %q", got, want)
	}
	params["newName"] = "not valid"
	if _, e := p.call("textDocument/rename", params); e == nil {
		t.Error("rename to an invalid identifier succeeded")
	}
}

func TestPullDiagnostics(t *testing.T) {
	p, uri := loaded(t)
	var full struct {
		Kind     string `json:"kind"`
		ResultID string `json:"resultId"`
		Items    []struct {
			Code     string `json:"code"`
			Message  string `json:"message"`
			Severity int    `json:"severity"`
			Range    struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"items"`
	}
	doc := map[string]any{"textDocument": map[string]any{"uri": uri("src/Shapes.App/Broken.cs")}}
	p.mustCall("textDocument/diagnostic", doc, &full)
	if full.Kind != "full" || full.ResultID == "" || len(full.Items) != 1 {
		t.Fatalf("diagnostic = %+v, want one full report", full)
	}
	d := full.Items[0]
	if d.Code != "CS1002" || d.Message != "; expected" || d.Severity != 1 || d.Range.Start.Line != 6 || d.Range.Start.Character != 30 {
		t.Errorf("diagnostic = %+v, want CS1002 at 6:30", d)
	}
	doc["previousResultId"] = full.ResultID
	raw, _ := p.call("textDocument/diagnostic", doc)
	if want := `{"kind":"unchanged","resultId":"` + full.ResultID + `"}`; string(raw) != want {
		t.Errorf("repeat diagnostic = %s, want %s", raw, want)
	}

	// Workspace diagnostics: only Broken.cs has an error.
	var ws struct {
		Items []struct {
			URI   string `json:"uri"`
			Kind  string `json:"kind"`
			Items []any  `json:"items"`
		} `json:"items"`
	}
	p.mustCall("workspace/diagnostic", map[string]any{"previousResultIds": []any{}}, &ws)
	counts := map[string]int{}
	for _, it := range ws.Items {
		counts[filepath.Base(it.URI)] = len(it.Items)
	}
	want := map[string]int{"AreaCalculator.cs": 0, "Broken.cs": 1, "Program.cs": 0, "Report.cs": 0, "Circle.cs": 0, "IShape.cs": 0, "Square.cs": 0}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("workspace diagnostics per file = %v, want %v", counts, want)
	}
	for _, m := range p.seenMethods() {
		if m == "textDocument/publishDiagnostics" {
			t.Error("the server pushed diagnostics; Roslyn's are pull-only")
		}
	}
}

func TestEditingRefreshesDiagnostics(t *testing.T) {
	p, uri := loaded(t)
	u := uri("src/Shapes.App/Broken.cs")
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "csharp", "version": 1,
		"text": "namespace Shapes.App;\n\ninternal static class Broken\n{\n    internal static int Twice(int value)\n    {\n        int result = value * 2\n        return result;\n    }\n}\n"}})
	p.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 6, "character": 30}, "end": map[string]any{"line": 6, "character": 30}}, "text": ";"}}})
	var full struct {
		Items []any `json:"items"`
	}
	p.mustCall("textDocument/diagnostic", map[string]any{"textDocument": map[string]any{"uri": u}}, &full)
	if len(full.Items) != 0 {
		t.Errorf("after inserting ';': %v, want no diagnostics", full.Items)
	}
}

func TestFormatting(t *testing.T) {
	p, uri := loaded(t)
	raw, _ := p.call("textDocument/formatting", map[string]any{"textDocument": map[string]any{"uri": uri("src/Shapes/Square.cs")},
		"options": map[string]any{"tabSize": 4, "insertSpaces": true}})
	want := `[{"newText":"","range":{"end":{"character":42,"line":2},"start":{"character":39,"line":2}}},` +
		`{"newText":"","range":{"end":{"character":56,"line":6},"start":{"character":55,"line":6}}}]`
	var a, b any
	json.Unmarshal(raw, &a)
	json.Unmarshal([]byte(want), &b)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("formatting = %s\nwant %s", raw, want)
	}
}

func TestCodeActions(t *testing.T) {
	p, uri := loaded(t)
	actions := func(file string, line int, only []string) []map[string]any {
		var as []map[string]any
		ctx := map[string]any{"diagnostics": []any{}}
		if only != nil {
			ctx["only"] = only
		}
		p.mustCall("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri(file)},
			"range":   map[string]any{"start": map[string]any{"line": line, "character": 0}, "end": map[string]any{"line": line, "character": 0}},
			"context": ctx}, &as)
		return as
	}
	as := actions("src/Shapes.App/Broken.cs", 6, nil)
	if len(as) != 1 || as[0]["title"] != "Insert ';'" || as[0]["kind"] != "quickfix" {
		t.Fatalf("actions on the broken line = %v", as)
	}
	if _, hasEdit := as[0]["edit"]; hasEdit {
		t.Error("the client declared resolveSupport for edit, yet the action carries its edit")
	}
	var resolved map[string]any
	p.mustCall("codeAction/resolve", as[0], &resolved)
	edit, _ := json.Marshal(resolved["edit"])
	want := `{"documentChanges":[{"edits":[{"newText":";","range":{"end":{"character":30,"line":6},"start":{"character":30,"line":6}}}],` +
		`"textDocument":{"uri":"` + uri("src/Shapes.App/Broken.cs") + `","version":null}}]}`
	if string(edit) != want {
		t.Errorf("resolved edit = %s\nwant %s", edit, want)
	}

	as = actions("src/Shapes.App/AreaCalculator.cs", 0, []string{"source.organizeImports"})
	if len(as) != 1 || as[0]["title"] != "Sort Usings" {
		t.Fatalf("organize imports actions = %v", as)
	}
	p.mustCall("codeAction/resolve", as[0], &resolved)
	edit, _ = json.Marshal(resolved["edit"])
	if !strings.Contains(string(edit), `"newText":"using System.Collections.Generic;\nusing System.Linq;\nusing Shapes;"`) {
		t.Errorf("sort usings edit = %s", edit)
	}
	if as := actions("src/Shapes/Circle.cs", 3, nil); len(as) != 0 {
		t.Errorf("actions in a clean file = %v, want none", as)
	}
}

func TestHierarchies(t *testing.T) {
	p, uri := loaded(t, "FAKEROSLYN_HIERARCHY=1")
	prepare := func(method, file string, line, char int) map[string]any {
		var items []map[string]any
		p.mustCall(method, at(uri(file), line, char), &items)
		if len(items) != 1 {
			t.Fatalf("%s = %v, want one item", method, items)
		}
		return items[0]
	}
	names := func(method string, item map[string]any, key string) []string {
		var res []map[string]any
		p.mustCall(method, map[string]any{"item": item}, &res)
		out := []string{}
		for _, r := range res {
			it := r
			if key != "" {
				it = r[key].(map[string]any)
			}
			out = append(out, fmt.Sprint(it["detail"], ".", it["name"]))
		}
		sort.Strings(out)
		return out
	}
	ishape := prepare("textDocument/prepareTypeHierarchy", "src/Shapes/IShape.cs", 3, 20)
	if got := names("typeHierarchy/subtypes", ishape, ""); !reflect.DeepEqual(got, []string{"Shapes.Circle", "Shapes.Square"}) {
		t.Errorf("subtypes(IShape) = %q", got)
	}
	circle := prepare("textDocument/prepareTypeHierarchy", "src/Shapes/Circle.cs", 2, 15)
	if got := names("typeHierarchy/supertypes", circle, ""); !reflect.DeepEqual(got, []string{"Shapes.IShape"}) {
		t.Errorf("supertypes(Circle) = %q", got)
	}

	total := prepare("textDocument/prepareCallHierarchy", "src/Shapes.App/AreaCalculator.cs", 9, 20)
	if got := names("callHierarchy/incomingCalls", total, "from"); !reflect.DeepEqual(got, []string{"Shapes.App.Report.Print"}) {
		t.Errorf("incomingCalls(TotalArea) = %q", got)
	}
	if got := names("callHierarchy/outgoingCalls", total, "to"); !reflect.DeepEqual(got, []string{"Shapes.IShape.Area"}) {
		t.Errorf("outgoingCalls(TotalArea) = %q", got)
	}
	print := prepare("textDocument/prepareCallHierarchy", "src/Shapes.App/Report.cs", 8, 20)
	if got := names("callHierarchy/incomingCalls", print, "from"); !reflect.DeepEqual(got, []string{"Shapes.App.Program.Main"}) {
		t.Errorf("incomingCalls(Print) = %q", got)
	}
	main := prepare("textDocument/prepareCallHierarchy", "src/Shapes.App/Program.cs", 6, 25)
	if got := names("callHierarchy/outgoingCalls", main, "to"); !reflect.DeepEqual(got, []string{"Shapes.App.Report.Print", "Shapes.Circle.Circle", "Shapes.Square.Square"}) {
		t.Errorf("outgoingCalls(Main) = %q", got)
	}
}
