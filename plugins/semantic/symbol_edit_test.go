package semantic

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// editsGo is the Go file the structured edit tests change.
const editsGo = `package edits

import "strings"

// Shape is a figure.
type Shape struct {
	Name  string
	Sides int
}

// Area is not done yet.
func (s *Shape) Area() float64 {
	return 0
}

// Label names the shape.
func (s *Shape) Label() string { return strings.ToUpper(s.Name) }

// Old is going away.
// Nothing calls it.
func Old() int { return 1 }

// Keep stays.
func Keep() int { return 2 }
`

// goEditEngine starts gopls on a fresh copy of the Go fixture with
// edits/edits.go and extra files.
func goEditEngine(t testing.TB, extra map[string]string) (*Engine, string) {
	t.Helper()
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	files := map[string]string{"edits/edits.go": editsGo}
	for k, v := range extra {
		files[k] = v
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openEngine(t, root, "go", goplsTxnConfig), root
}

func symbolEditOut(t *testing.T, m map[string]any) symbolEditOutput {
	t.Helper()
	raw, _ := json.Marshal(m)
	var out symbolEditOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStructuredEditsGo(t *testing.T) {
	e, root := goEditEngine(t, nil)
	const file = "edits/edits.go"

	t.Run("replace a method body by name", func(t *testing.T) {
		m, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{
			"symbol": "edits.Shape.Area", "body": "if s.Sides == 0 {\n    return 0\n}\nreturn float64(s.Sides) * 2"})
		if err != nil {
			t.Fatal(err)
		}
		out := symbolEditOut(t, m)
		if !out.Applied || out.ID == "" || out.Symbol != "Shape/Area" || !strings.HasPrefix(out.SymbolID, "sym_") {
			t.Errorf("result = %s", dump(m))
		}
		want := "func (s *Shape) Area() float64 {\n\tif s.Sides == 0 {\n\t\treturn 0\n\t}\n\treturn float64(s.Sides) * 2\n}\n"
		if got := readFile(t, root, file); !strings.Contains(got, want) {
			t.Errorf("file after the edit:\n%s\nwant it to contain:\n%s", got, want)
		}
	})

	t.Run("a body that breaks the syntax is rejected", func(t *testing.T) {
		before := readFile(t, root, file)
		_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{
			"symbol": "Shape/Label", "file": file, "body": "return s.Name +", "packet": "compact"})
		tr := rejected(t, err)
		if len(tr.Delta.New) == 0 {
			t.Errorf("delta = %+v", tr.Delta)
		}
		fe := wantCode(t, err, failure.DiagnosticRegression, "")
		p, ok := fe.Details["packet"].(*diagnostic.Packet)
		if !ok || len(p.Items) == 0 || p.Items[0].Symbol != "Shape/Label" {
			t.Errorf("packet = %s", dump(fe.Details["packet"]))
		}
		if got := readFile(t, root, file); got != before {
			t.Errorf("the file changed:\n%s", got)
		}
	})

	t.Run("ambiguous name lists selectors", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Shape/Area", "body": "return 1"})
		fe := wantCode(t, err, failure.Ambiguous, "symbol")
		var sels []string
		for _, c := range fe.Details["candidates"].([]Candidate) {
			sels = append(sels, c.File+" "+c.Selector)
		}
		if got := strings.Join(sels, ", "); !strings.Contains(got, "edits/edits.go Shape/Area") || !strings.Contains(got, "shape/shape.go Shape/Area") {
			t.Errorf("candidates = %s", got)
		}
	})

	t.Run("unresolved name suggests", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "delete_symbol", map[string]any{"symbol": "Shape/Lable", "file": file})
		fe := wantCode(t, err, failure.AnchorNotResolved, "symbol")
		if !strings.Contains(fe.Message, `did you mean "Shape/Label"`) {
			t.Errorf("message %q", fe.Message)
		}
	})

	t.Run("add_member places a field after the last field", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "edits.Shape", "member": "Color string"})
		if err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, file); !strings.Contains(got, "\tSides int\n\tColor string\n}") {
			t.Errorf("file:\n%s", got)
		}
	})

	t.Run("add_member places a method after the last method", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "edits.Shape", "member": "// Double doubles the sides.\nfunc (s *Shape) Double() { s.Sides *= 2 }"})
		if err != nil {
			t.Fatal(err)
		}
		want := "func (s *Shape) Label() string { return strings.ToUpper(s.Name) }\n\n// Double doubles the sides.\nfunc (s *Shape) Double() { s.Sides *= 2 }\n\n// Old is going away."
		if got := readFile(t, root, file); !strings.Contains(got, want) {
			t.Errorf("file:\n%s", got)
		}
	})

	t.Run("delete with its doc comment", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "delete_symbol", map[string]any{"symbol": "Old", "file": file})
		if err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, file)
		if strings.Contains(got, "Old") || strings.Contains(got, "Nothing calls it") || !strings.Contains(got, "}\n\n// Keep stays.\nfunc Keep()") {
			t.Errorf("file:\n%s", got)
		}
	})

	t.Run("deleting a used symbol is rejected", func(t *testing.T) {
		before := readFile(t, root, "calc/calc.go")
		_, err := invokeConfirmed(t, e, "delete_symbol", map[string]any{"symbol": "calc.TotalArea"})
		rejected(t, err)
		if readFile(t, root, "calc/calc.go") != before {
			t.Error("calc.go changed")
		}
	})

	t.Run("insert before and after", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "insert_before_symbol", map[string]any{"symbol": "Keep", "file": file, "text": "// Two is 2.\nconst Two = 2"}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "insert_after_symbol", map[string]any{"symbol": "Keep", "file": file, "text": "// Three is 3.\nconst Three = 3"}); err != nil {
			t.Fatal(err)
		}
		want := "// Two is 2.\nconst Two = 2\n\n// Keep stays.\nfunc Keep() int { return 2 }\n\n// Three is 3.\nconst Three = 3\n"
		if got := readFile(t, root, file); !strings.HasSuffix(got, want) {
			t.Errorf("file:\n%s", got)
		}
	})

	t.Run("update_imports", func(t *testing.T) {
		// Adding an import nothing uses is an error in Go: rejected.
		_, err := invokeConfirmed(t, e, "update_imports", map[string]any{"file": file, "add": []string{"fmt"}})
		rejected(t, err)
		// With a use of it, accepted.
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Keep", "file": file, "body": "return len(fmt.Sprint(2))", "policy": "never"}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "update_imports", map[string]any{"file": file, "add": []string{"fmt"}}); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, file); !strings.Contains(got, "import (\n\t\"fmt\"\n\t\"strings\"\n)\n") {
			t.Errorf("file:\n%s", got)
		}
		_, err = invokeConfirmed(t, e, "update_imports", map[string]any{"file": file, "remove": []string{"os"}})
		wantCode(t, err, failure.AnchorNotResolved, "remove[0]")
	})

	t.Run("dry run writes nothing", func(t *testing.T) {
		before := readFile(t, root, file)
		m, err := invoke(t, e, "rename_symbol", map[string]any{"symbol": "edits.Shape.Label", "new_name": "Title", "dry_run": true})
		if err != nil {
			t.Fatal(err)
		}
		if out := symbolEditOut(t, m); out.Applied || !strings.Contains(out.Diff, "+func (s *Shape) Title() string") {
			t.Errorf("result = %s", dump(m))
		}
		if readFile(t, root, file) != before {
			t.Error("a dry run wrote the file")
		}
	})

	t.Run("get_file_content", func(t *testing.T) {
		m := mustInvoke(t, e, "get_file_content", map[string]any{"file": file, "start_line": 1, "end_line": 2})
		if got := get(t, m, "content"); got != "1\tpackage edits\n2\t\n" {
			t.Errorf("content = %q", got)
		}
		_, err := invoke(t, e, "get_file_content", map[string]any{"file": "../../etc/passwd"})
		if err == nil {
			t.Error("read outside the workspace")
		}
	})
}

// Every attack is a clear error before anything is written.
func TestStructuredEditsHostileInput(t *testing.T) {
	e, root := goEditEngine(t, nil)
	const file = "edits/edits.go"
	before := readFile(t, root, file)
	huge := strings.Repeat("x", maxEditText+1)
	cases := []struct {
		name  string
		op    string
		input map[string]any
		code  failure.Code
		field string
	}{
		{"huge body", "replace_symbol_body", map[string]any{"symbol": "Keep", "body": huge}, failure.InvalidInput, "body"},
		{"path as name", "replace_symbol_body", map[string]any{"symbol": "../../etc/passwd", "body": "return 1"}, failure.InvalidInput, "symbol"},
		{"empty segment", "delete_symbol", map[string]any{"symbol": "Shape//Area"}, failure.InvalidInput, "symbol"},
		{"control character", "delete_symbol", map[string]any{"symbol": "Keep\x1b[2J"}, failure.InvalidInput, "symbol"},
		{"bad overload index", "delete_symbol", map[string]any{"symbol": "Keep#0"}, failure.InvalidInput, "symbol"},
		{"overload past the end", "delete_symbol", map[string]any{"symbol": "Keep#2", "file": file}, failure.AnchorNotResolved, "symbol"},
		{"file outside", "delete_symbol", map[string]any{"symbol": "Keep", "file": "/etc/passwd"}, "", "file"},
		{"not a type", "add_member", map[string]any{"symbol": "Keep", "file": file, "member": "X int"}, failure.InvalidInput, "symbol"},
		{"no body", "replace_symbol_body", map[string]any{"symbol": "shape.Shape.Area", "body": "return 1"}, failure.Precondition, "symbol"},
		{"unknown policy", "delete_symbol", map[string]any{"symbol": "Keep", "policy": "sometimes"}, failure.InvalidInput, "policy"},
		{"unknown packet", "delete_symbol", map[string]any{"symbol": "Keep", "packet": "loud"}, failure.InvalidInput, "packet"},
		{"multi-line import", "update_imports", map[string]any{"file": file, "add": []string{"fmt\"\nfunc init() { panic(1) }\n//"}}, failure.InvalidInput, "add[0]"},
		{"statement in an import", "update_imports", map[string]any{"file": file, "add": []string{`fmt" ; func init() { panic(1) } //`}}, failure.InvalidInput, "add[0]"},
		{"quote in an import", "update_imports", map[string]any{"file": file, "add": []string{`f"mt`}}, failure.InvalidInput, "add[0]"},
		{"bad new name", "rename_symbol", map[string]any{"symbol": "Keep", "new_name": "a/b"}, failure.InvalidInput, "new_name"},
		{"huge range", "get_file_content", map[string]any{"file": file, "start_line": 5, "end_line": 2}, failure.InvalidInput, "end_line"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := invokeConfirmed(t, e, tc.op, tc.input)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.code != "" {
				wantCode(t, err, tc.code, tc.field)
			}
			if readFile(t, root, file) != before {
				t.Fatal("the file changed")
			}
		})
	}
}

func TestStructuredEditsPython(t *testing.T) {
	requireTool(t, "pyright-langserver")
	root := copyTree(t, filepath.Join("testdata", "pypkg"))
	e := openEngine(t, root, "python", pyrightConfig)
	const file = "zoo/animals.py"

	if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Dog/speak", "body": "sound = \"woof\"\nreturn sound.upper()"}); err != nil {
		t.Fatal(err)
	}
	want := "class Dog(Animal):\n    def speak(self) -> str:\n        sound = \"woof\"\n        return sound.upper()\n\n\nclass Puppy"
	if got := readFile(t, root, file); !strings.Contains(got, want) {
		t.Errorf("file:\n%s", got)
	}
	if _, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "zoo.animals.Dog", "member": "def sit(self) -> None:\n    pass"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, file); !strings.Contains(got, "        return sound.upper()\n\n    def sit(self) -> None:\n        pass\n\n\nclass Puppy") {
		t.Errorf("file:\n%s", got)
	}
	// A type error is rejected, the file unchanged.
	before := readFile(t, root, file)
	_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Puppy/speak", "body": "return 42"})
	rejected(t, err)
	if readFile(t, root, file) != before {
		t.Error("file changed")
	}
	// A decorated method goes with its decorator and comment.
	if _, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "Puppy", "member": "# A puppy's age.\n@staticmethod\ndef age() -> int:\n    return 1", "member_kind": "method"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, file); !strings.HasSuffix(got, "        return \"yip\"\n\n    # A puppy's age.\n    @staticmethod\n    def age() -> int:\n        return 1\n") {
		t.Errorf("file:\n%s", got)
	}
	m := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Puppy/age", "file": file})
	if get(t, m, "modifiers.0") != "staticmethod" || get(t, m, "name_path") != "Puppy/age" || get(t, m, "signature") != "def age() -> int" {
		t.Errorf("symbol_info = %s", dump(m))
	}
	if _, err := invokeConfirmed(t, e, "delete_symbol", map[string]any{"symbol": "Puppy/age", "file": file}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, file); strings.Contains(got, "age") || strings.Contains(got, "staticmethod") || !strings.HasSuffix(got, "return \"yip\"\n") {
		t.Errorf("file after delete:\n%q", got)
	}
	if _, err := invokeConfirmed(t, e, "update_imports", map[string]any{"file": "zoo/keeper.py", "add": []string{"os", "from typing import List"}, "policy": "never"}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, root, "zoo/keeper.py"); !strings.HasPrefix(got, "from typing import List\nfrom zoo.animals import Animal, Dog\nimport os\n") {
		t.Errorf("keeper.py:\n%s", got)
	}
}

// A guided packet for an unused import in Go offers gopls's fix, as the
// apply_code_action call that applies it.
func TestGuidedPacketGo(t *testing.T) {
	e, root := goEditEngine(t, nil)
	const file = "edits/edits.go"
	m, err := invokeConfirmed(t, e, "update_imports", map[string]any{"file": file, "add": []string{"os"}, "policy": "never", "packet": "guided"})
	if err != nil {
		t.Fatal(err)
	}
	out := symbolEditOut(t, m)
	if out.Packet == nil || len(out.Packet.Items) == 0 {
		t.Fatalf("result = %s", dump(m))
	}
	it := out.Packet.Items[0]
	if it.Severity != "error" || !strings.Contains(it.Message, `"os" imported and not used`) || it.Location != "edits/edits.go:4:2" {
		t.Errorf("item = %s", dump(it))
	}
	if len(it.Suggestions) == 0 || it.Suggestions[0].Tool != "go.apply_code_action" || it.Suggestions[0].Title != "Organize Imports" {
		t.Fatalf("suggestions = %s", dump(it.Suggestions))
	}
	s := it.Suggestions[0]
	if _, err := invokeConfirmed(t, e, "apply_code_action", s.Input); err != nil {
		t.Fatalf("applying %s: %v", dump(s), err)
	}
	if got := readFile(t, root, file); strings.Contains(got, `"os"`) {
		t.Errorf("the fix left the import:\n%s", got)
	}
}

func TestNamePath(t *testing.T) {
	for _, tc := range []struct {
		in     string
		segs   string
		params string
		index  int
		bad    bool
	}{
		{in: "Shape/Area", segs: "Shape Area"},
		{in: "pkg.Type.Method", segs: "pkg Type Method"},
		{in: "Area(int, List<string>)", segs: "Area", params: "int|List<string>"},
		{in: "Area()", segs: "Area", params: ""},
		{in: "Shape/Area#2", segs: "Shape Area", index: 2},
		{in: "Counter/#step", segs: "Counter #step"},
		{in: "Counter/#step#2", segs: "Counter #step", index: 2},
		{in: "../etc/passwd", bad: true},
		{in: "a//b", bad: true},
		{in: "Area#x", bad: true},
		{in: "Area(int", bad: true},
		{in: " ", bad: true},
	} {
		np, err := parseNamePath("symbol", tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q parsed as %+v", tc.in, np)
			}
			continue
		}
		if err != nil || strings.Join(np.segs, " ") != tc.segs || strings.Join(np.params, "|") != tc.params || np.index != tc.index {
			t.Errorf("%q = %+v, %v", tc.in, np, err)
		}
	}
	for name, want := range map[string]string{"(*Square).Area": "Square Area", "(List[T]).Push": "List Push", "Area(int)": "Area", "Dog": "Dog"} {
		if segs, _, _ := symbolSegments(name); strings.Join(segs, " ") != want {
			t.Errorf("symbolSegments(%q) = %q, want %q", name, segs, want)
		}
	}
}

func TestImportEntries(t *testing.T) {
	for _, ok := range []string{"fmt", `"fmt"`, `f "fmt"`, "_ embed", "golang.org/x/tools/go/packages", "os", "from typing import List, Dict",
		"from x import (a, b)", "import numpy as np", "from . import sibling", "System.Text", "using System.Text;", "using static System.Math;", "gopkg.in/yaml.v3"} {
		if !importEntryRE().MatchString(ok) {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, bad := range []string{`fmt"; func init() {}`, "os\nimport sys", "a; b", "import os; os.system('x')", `"a" "b" "c"`, "#", ""} {
		if importEntryRE().MatchString(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestEditImports(t *testing.T) {
	for _, tc := range []struct {
		name, lang, text string
		add, remove      []string
		want             string
	}{
		{"go single to block", "go", "package p\n\nimport \"strings\"\n\nvar _ = 1\n", []string{"fmt"}, nil,
			"package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nvar _ = 1\n"},
		{"go none", "go", "package p\n\nvar _ = 1\n", []string{"fmt"}, nil, "package p\n\nimport (\n\t\"fmt\"\n)\n\nvar _ = 1\n"},
		{"go remove", "go", "package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n", nil, []string{"os"}, "package p\n\nimport (\n\t\"fmt\"\n)\n"},
		{"go alias", "go", "package p\n\nimport (\n\t\"os\"\n)\n", []string{"f fmt"}, nil, "package p\n\nimport (\n\tf \"fmt\"\n\t\"os\"\n)\n"},
		{"csharp", "csharp", "using System;\nusing Zeta;\n\nnamespace N;\n", []string{"System.Text"}, []string{"Zeta"}, "using System;\nusing System.Text;\n\nnamespace N;\n"},
		{"python none", "python", "def f():\n    pass\n", []string{"os"}, nil, "import os\n\ndef f():\n    pass\n"},
	} {
		got, err := editImports(tc.lang, tc.text, tc.add, tc.remove)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
}

func TestStructuredEditSchemas(t *testing.T) {
	for _, op := range Operations() {
		if !strings.Contains(op.Description, "name path") && op.Name != "update_imports" && op.Name != "apply_code_action" && op.Name != "get_file_content" {
			continue
		}
		var in map[string]any
		if err := json.Unmarshal(op.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		props, _ := in["properties"].(map[string]any)
		if op.SideEffects == "workspace" {
			for _, k := range []string{"policy", "dry_run", "packet"} {
				if _, ok := props[k]; !ok {
					t.Errorf("%s input lacks %s: %s", op.Name, k, op.InputSchema)
				}
			}
		}
	}
}

// The envelope of symbol_info: its symbol_id is stable across calls and
// unrelated edits, and changes when the symbol is renamed.
func TestSymbolEnvelopeGo(t *testing.T) {
	e, _ := goEditEngine(t, nil)
	info := func() map[string]any {
		return mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "edits.Shape.Area", "include_reference_count": true})
	}
	m := info()
	for key, want := range map[string]any{
		"name_path": "Shape/Area", "kind": "method", "containing_symbol": "Shape",
		"signature": "func (s *Shape) Area() float64", "declaration.file": "edits/edits.go", "declaration.line": 12,
		"reference_count": 0, "modifiers.0": "exported",
	} {
		if got := get(t, m, key); got != want {
			t.Errorf("%s = %v, want %v in %s", key, got, want, dump(m))
		}
	}
	if doc, _ := m["documentation"].(string); !strings.Contains(doc, "Area is not done yet") {
		t.Errorf("documentation = %q", doc)
	}
	id := m["symbol_id"].(string)
	if again := info()["symbol_id"]; again != id {
		t.Errorf("symbol_id changed between calls: %v, %v", id, again)
	}
	if _, err := invokeConfirmed(t, e, "insert_before_symbol", map[string]any{"symbol": "edits.Shape", "text": "// Unrelated is new.\nconst Unrelated = 1"}); err != nil {
		t.Fatal(err)
	}
	m = info()
	if m["symbol_id"] != id || get(t, m, "declaration.line") != 15 {
		t.Errorf("after an unrelated edit: %s (id was %s)", dump(m), id)
	}
	if _, err := invokeConfirmed(t, e, "rename_symbol", map[string]any{"symbol": "edits.Shape.Area", "new_name": "Surface"}); err != nil {
		t.Fatal(err)
	}
	m = mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Shape/Surface", "file": "edits/edits.go"})
	if m["symbol_id"] == id || m["name_path"] != "Shape/Surface" {
		t.Errorf("after the rename: %s", dump(m))
	}
	// A name path also addresses read operations.
	src := mustInvoke(t, e, "get_source", map[string]any{"symbol": "Shape/Label", "file": "edits/edits.go"})
	if !strings.Contains(src["source"].(string), "func (s *Shape) Label() string") {
		t.Errorf("get_source = %s", dump(src))
	}
}

// BenchmarkReplaceSymbolBodyDryRun measures a structured edit on warm
// gopls: name path resolution, the new text, and the transaction's
// in-memory apply with diagnostics before and after; nothing is written.
func BenchmarkReplaceSymbolBodyDryRun(b *testing.B) {
	e, _ := goEditEngine(b, nil)
	bodies := []string{"return float64(s.Sides) * 2", "return float64(s.Sides) * 3"}
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		raw, _ := json.Marshal(map[string]any{"symbol": "edits.Shape.Area", "body": bodies[i%2], "dry_run": true})
		if _, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: "replace_symbol_body", Input: raw}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// Two structured edits of one file at once both land: the second is
// computed under the file's lock, on the text the first wrote.
func TestStructuredEditsConcurrent(t *testing.T) {
	e, root := goEditEngine(t, nil)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, sym := range []string{"Keep", "Old"} {
		wg.Go(func() {
			_, errs[i] = invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": sym, "file": "edits/edits.go", "body": "return 40 + " + sym + "Base"})
		})
	}
	wg.Wait()
	for _, err := range errs {
		wantCode(t, err, failure.DiagnosticRegression, "") // undefined: KeepBase, OldBase
	}
	for i, sym := range []string{"Keep", "Old"} {
		wg.Go(func() {
			_, errs[i] = invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": sym, "file": "edits/edits.go", "body": "return 40 + " + string(rune('1'+i))})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := readFile(t, root, "edits/edits.go")
	if !strings.Contains(got, "func Keep() int {\n\treturn 40 + 1\n}") || !strings.Contains(got, "func Old() int {\n\treturn 40 + 2\n}") {
		t.Errorf("file:\n%s", got)
	}
	if n := len(records(t, root)); n != 2 {
		t.Errorf("%d transaction records, want 2", n)
	}
}

// A file that leads out of the workspace is neither read nor written; a
// long file is returned in bounded pieces.
func TestStructuredEditsOutside(t *testing.T) {
	e, root := goEditEngine(t, map[string]string{"long/long.txt": strings.Repeat("line\n", maxContentLines+10) + strings.Repeat("y", maxLineRunes+5) + "\n"})
	outside := filepath.Join(t.TempDir(), "out.go")
	if err := os.WriteFile(outside, []byte("package out\n\nfunc Secret() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "edits", "link.go")); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"replace_symbol_body", "delete_symbol"} {
		_, err := invokeConfirmed(t, e, op, map[string]any{"symbol": "Secret", "file": "edits/link.go", "body": "return 2"})
		if err == nil {
			t.Errorf("%s through a symlink out of the workspace succeeded", op)
		}
	}
	if _, err := invoke(t, e, "get_file_content", map[string]any{"file": "edits/link.go"}); err == nil {
		t.Error("get_file_content read through a symlink out of the workspace")
	}
	if b, _ := os.ReadFile(outside); !strings.Contains(string(b), "return 1") {
		t.Errorf("the outside file changed: %s", b)
	}
	m := mustInvoke(t, e, "get_file_content", map[string]any{"file": "long/long.txt"})
	if get(t, m, "truncated") != true || get(t, m, "end_line") != maxContentLines || get(t, m, "total_lines") != maxContentLines+11 {
		t.Errorf("long file: %v", dump(map[string]any{"end": m["end_line"], "total": m["total_lines"], "truncated": m["truncated"]}))
	}
	m = mustInvoke(t, e, "get_file_content", map[string]any{"file": "long/long.txt", "start_line": maxContentLines + 11})
	if c := m["content"].(string); get(t, m, "truncated") != true || !strings.HasSuffix(c, "y…\n") || len([]rune(c)) > maxLineRunes+20 {
		t.Errorf("long line: %q", c)
	}
}
