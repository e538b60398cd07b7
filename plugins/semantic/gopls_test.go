package semantic

import (
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestGoplsNavigation(t *testing.T) {
	e, _ := goEngine(t)

	t.Run("find_symbol", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "TotalArea", "kind": "function"})
		if got := get(t, out, "total"); got != 1 {
			t.Fatalf("total = %v, want 1: %s", got, dump(out))
		}
		if got := locOf(t, out, "symbols.0"); got != "calc/calc.go:11:6" {
			t.Errorf("TotalArea at %s, want calc/calc.go:11:6", got)
		}
	})
	t.Run("file_symbols", func(t *testing.T) {
		out := mustInvoke(t, e, "file_symbols", map[string]any{"file": "circle/circle.go"})
		want := []struct {
			path, name, kind string
			line, col        int
		}{
			{"symbols.0", "Circle", "struct", 5, 6},
			{"symbols.0.children.0", "Radius", "field", 6, 2},
			{"symbols.1", "(Circle).Area", "method", 10, 17},
			{"symbols.2", "(Circle).Name", "method", 15, 17},
		}
		for _, w := range want {
			if get(t, out, w.path+".name") != w.name || get(t, out, w.path+".kind") != w.kind ||
				get(t, out, w.path+".line") != w.line || get(t, out, w.path+".column") != w.col {
				t.Errorf("%s = %s, want %s %s at %d:%d", w.path, dump(get(t, out, w.path)), w.kind, w.name, w.line, w.col)
			}
		}
		if got := get(t, out, "symbols.1.end_line"); got != 12 {
			t.Errorf("Area endLine = %v, want 12", got)
		}
	})
	t.Run("symbol_info by name", func(t *testing.T) {
		out := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Area", "container": "Circle"})
		if got := locOf(t, out, "definition"); got != "circle/circle.go:10:17" {
			t.Errorf("definition %s, want circle/circle.go:10:17", got)
		}
		if get(t, out, "kind") != "method" || !strings.Contains(get(t, out, "hover").(string), "func (c Circle) Area() float64") {
			t.Errorf("unexpected info %s", dump(out))
		}
	})
	t.Run("symbol_info by position of a use", func(t *testing.T) {
		// calc.go:28 "	return TotalArea(shapes)": TotalArea starts at column 9.
		out := mustInvoke(t, e, "symbol_info", map[string]any{"file": "calc/calc.go", "line": 28, "column": 10})
		if got := locOf(t, out, "definition"); got != "calc/calc.go:11:6" {
			t.Errorf("definition %s, want calc/calc.go:11:6", got)
		}
		if get(t, out, "name") != "TotalArea" || get(t, out, "kind") != "function" {
			t.Errorf("unexpected info %s", dump(out))
		}
	})
	t.Run("find_references", func(t *testing.T) {
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "TotalArea", "includeDeclaration": true})
		if get(t, out, "total") != 3 {
			t.Fatalf("want 3 references: %s", dump(out))
		}
		want := []struct{ loc, snippet, member string }{
			{"calc/calc.go:11:6", "func TotalArea(shapes []shape.Shape) float64 {", "TotalArea"},
			{"calc/calc.go:28:9", "return TotalArea(shapes)", "C"},
			{"calc/calc.go:32:32", "func Report() float64 { return TotalArea(nil) }", "Report"},
		}
		for i, w := range want {
			p := "references." + string(rune('0'+i))
			if got := locOf(t, out, p); got != w.loc || get(t, out, p+".snippet") != w.snippet || get(t, out, p+".containing_member") != w.member {
				t.Errorf("reference %d = %s, want %+v", i, dump(get(t, out, p)), w)
			}
		}
	})
	t.Run("find_references paginated", func(t *testing.T) {
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "TotalArea", "includeDeclaration": true, "offset": 1, "limit": 1, "detail": "compact"})
		if get(t, out, "total") != 3 || get(t, out, "next_offset") != 2 || locOf(t, out, "references.0") != "calc/calc.go:28:9" {
			t.Errorf("page = %s", dump(out))
		}
		if _, ok := get(t, out, "references.0").(map[string]any)["snippet"]; ok {
			t.Errorf("compact detail has a snippet: %s", dump(out))
		}
		last := mustInvoke(t, e, "find_references", map[string]any{"symbol": "TotalArea", "includeDeclaration": true, "offset": 2, "limit": 5})
		if _, ok := last["next_offset"]; ok || len(last["references"].([]any)) != 1 {
			t.Errorf("last page = %s", dump(last))
		}
	})
	t.Run("find_implementations", func(t *testing.T) {
		out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "Shape", "kind": "interface"})
		if get(t, out, "total") != 2 || locOf(t, out, "implementations.0") != "circle/circle.go:5:6" ||
			locOf(t, out, "implementations.1") != "square/square.go:5:6" || get(t, out, "implementations.1.name") != "Square" {
			t.Errorf("implementations = %s", dump(out))
		}
	})
	t.Run("type_hierarchy", func(t *testing.T) {
		out := mustInvoke(t, e, "type_hierarchy", map[string]any{"file": "shape/shape.go", "line": 5, "column": 6, "direction": "subtypes"})
		if locOf(t, out, "root") != "shape/shape.go:5:6" || get(t, out, "root.name") != "Shape" {
			t.Errorf("root = %s", dump(out))
		}
		if locOf(t, out, "root.subtypes.0") != "circle/circle.go:5:6" || locOf(t, out, "root.subtypes.1") != "square/square.go:5:6" {
			t.Errorf("subtypes = %s", dump(out))
		}
		up := mustInvoke(t, e, "type_hierarchy", map[string]any{"symbol": "Circle", "direction": "supertypes"})
		if locOf(t, up, "root.supertypes.0") != "shape/shape.go:5:6" {
			t.Errorf("supertypes of Circle = %s", dump(up))
		}
	})
	t.Run("find_callers", func(t *testing.T) {
		out := mustInvoke(t, e, "find_callers", map[string]any{"symbol": "C", "depth": 2})
		if locOf(t, out, "target") != "calc/calc.go:26:6" {
			t.Errorf("target = %s", dump(out))
		}
		if get(t, out, "callers.0.name") != "B" || locOf(t, out, "callers.0") != "calc/calc.go:23:6" ||
			locOf(t, out, "callers.0.call_sites.0") != "calc/calc.go:23:27" {
			t.Errorf("caller B = %s", dump(out))
		}
		if get(t, out, "callers.0.callers.0.name") != "A" || locOf(t, out, "callers.0.callers.0.call_sites.0") != "calc/calc.go:20:27" {
			t.Errorf("caller A = %s", dump(out))
		}
	})
	t.Run("get_source", func(t *testing.T) {
		out := mustInvoke(t, e, "get_source", map[string]any{"symbol": "Area", "container": "Circle"})
		want := "func (c Circle) Area() float64 {\n\treturn 3.14159 * c.Radius * c.Radius\n}"
		if get(t, out, "source") != want || get(t, out, "line") != 10 || get(t, out, "end_line") != 12 {
			t.Errorf("source = %s", dump(out))
		}
	})
	t.Run("type_members", func(t *testing.T) {
		out := mustInvoke(t, e, "type_members", map[string]any{"symbol": "Circle", "kind": "struct"})
		var names []string
		for _, m := range out["members"].([]any) {
			names = append(names, m.(map[string]any)["name"].(string))
		}
		if strings.Join(names, ",") != "Radius,(Circle).Area,(Circle).Name" || get(t, out, "members.1.line") != 10 {
			t.Errorf("members = %s", dump(out))
		}
		_, err := invoke(t, e, "type_members", map[string]any{"symbol": "TotalArea"})
		wantCode(t, err, failure.InvalidInput, "symbol")
	})
	t.Run("containing_member", func(t *testing.T) {
		out := mustInvoke(t, e, "containing_member", map[string]any{"file": "circle/circle.go", "line": 11, "column": 5})
		if get(t, out, "member.name") != "(Circle).Area" || get(t, out, "member.line") != 10 || get(t, out, "member.end_line") != 12 {
			t.Errorf("member = %s", dump(out))
		}
		_, err := invoke(t, e, "containing_member", map[string]any{"file": "circle/circle.go", "line": 2, "column": 1})
		wantCode(t, err, failure.NotFound, "line")
	})
}

func TestGoplsDiagnostics(t *testing.T) {
	e, _ := goEngine(t)
	for _, in := range []map[string]any{{"file": "broken/broken.go"}, {}} {
		out := mustInvoke(t, e, "diagnostics", in)
		if get(t, out, "counts.error") != 1 || diagLoc(t, out, "diagnostics.0") != "broken/broken.go:5:14" ||
			!strings.Contains(get(t, out, "diagnostics.0.message").(string), `cannot use "three"`) {
			t.Errorf("diagnostics %v = %s", in, dump(out))
		}
	}
	clean := mustInvoke(t, e, "diagnostics", map[string]any{"file": "circle/circle.go"})
	if n := len(clean["diagnostics"].([]any)); n != 0 {
		t.Errorf("circle.go has %d diagnostics: %s", n, dump(clean))
	}
}

func TestGoplsEditsPreview(t *testing.T) {
	e, root := goEngine(t)
	t.Run("organize_imports", func(t *testing.T) {
		out := mustInvoke(t, e, "organize_imports", map[string]any{"file": "messy/messy.go"})
		text := get(t, out, "newText").(string)
		if !strings.Contains(text, "import (\n\t\"fmt\"\n\t\"strings\"\n)") || !strings.Contains(text, "func Shout(s string)string{") {
			t.Errorf("organized = %q", text)
		}
	})
	t.Run("format", func(t *testing.T) {
		out := mustInvoke(t, e, "format", map[string]any{"file": "messy/messy.go"})
		want := "package messy\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc Shout(s string) string {\n\treturn fmt.Sprint(strings.ToUpper(s))\n}\n"
		if get(t, out, "newText") != want || get(t, out, "changed") != true {
			t.Errorf("formatted = %s", dump(out))
		}
		if !strings.Contains(get(t, out, "diff").(string), "+func Shout(s string) string {\n") {
			t.Errorf("diff = %s", get(t, out, "diff"))
		}
	})
	t.Run("rename preview writes nothing", func(t *testing.T) {
		out := mustInvoke(t, e, "rename", map[string]any{"file": "calc/calc.go", "line": 11, "column": 6, "newName": "SumAreas"})
		diff := get(t, out, "diff").(string)
		for _, want := range []string{"--- a/calc/calc.go\n+++ b/calc/calc.go\n@@ -7,8 +7,8 @@\n", "-func TotalArea(shapes", "+func SumAreas(shapes", "+\treturn SumAreas(shapes)\n"} {
			if !strings.Contains(diff, want) {
				t.Errorf("diff lacks %q:\n%s", want, diff)
			}
		}
		if get(t, out, "applied") != false || get(t, out, "files.0.edits") != 4 {
			t.Errorf("rename = %s", dump(out))
		}
		if b := readFile(t, root, "calc/calc.go"); strings.Contains(b, "SumAreas") {
			t.Errorf("preview wrote the file")
		}
		_, err := invoke(t, e, "rename", map[string]any{"symbol": "TotalArea", "newName": "SumAreas", "apply": true})
		wantCode(t, err, failure.Precondition, "")
	})
	t.Run("code_actions", func(t *testing.T) {
		out := mustInvoke(t, e, "code_actions", map[string]any{"file": "broken/broken.go", "line": 5, "column": 14})
		title := ""
		for _, a := range out["actions"].([]any) {
			if a.(map[string]any)["kind"] == "refactor.rewrite.changeQuote" {
				title = a.(map[string]any)["title"].(string)
			}
		}
		if title == "" {
			t.Fatalf("no changeQuote action: %s", dump(out))
		}
		prev := mustInvoke(t, e, "code_actions", map[string]any{"file": "broken/broken.go", "line": 5, "column": 14, "preview": title})
		if d := get(t, prev, "diff").(string); !strings.Contains(d, "+\tvar n int = `three`\n") {
			t.Errorf("preview diff = %s", d)
		}
		_, err := invoke(t, e, "code_actions", map[string]any{"file": "broken/broken.go", "line": 5, "column": 14, "preview": 99})
		wantCode(t, err, failure.NotFound, "preview")
	})
}
