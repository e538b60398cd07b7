package semantic

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/lsptest/csharpls"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// csharpLSConfig is languages/csharp.yaml's csharp-ls server.
var csharpLSConfig = Config{
	Command:      "csharp-ls",
	Dialect:      DialectCSharpLS,
	RootMarkers:  []string{"*.sln", "*.slnx", "*.csproj"},
	LanguageIDs:  map[string]string{".cs": "csharp"},
	ReadyTimeout: "3m",
}

// requireCSharpLS fails where dotnet is on PATH and csharp-ls is not,
// and skips where dotnet is not.
func requireCSharpLS(t testing.TB) {
	t.Helper()
	csharpls.Require(t)
}

var sharedCS shared

// csEngine is the shared csharp-ls on a copy of testdata/zoo: a solution
// of a class library (an interface, an abstract class, overrides,
// overloads) and an application referencing it.
func csEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	requireCSharpLS(t)
	return sharedCS.get(t, "csharp-ls", filepath.Join("testdata", "zoo"), nil, "csharp", csharpLSConfig)
}

// TestCSharpLSNavigation runs every read operation against real
// csharp-ls on testdata/zoo.
func TestCSharpLSNavigation(t *testing.T) {
	e, _ := csEngine(t)
	show := func(t *testing.T, out map[string]any) { t.Helper(); t.Logf("%s", dump(out)) }

	t.Run("load_status", func(t *testing.T) {
		out := mustInvoke(t, e, "load_status", map[string]any{})
		if get(t, out, "server") != "csharp-ls" || !strings.HasPrefix(get(t, out, "version").(string), "0.28.0") ||
			get(t, out, "solution") != "Zoo.sln" || get(t, out, "complete") != true || get(t, out, "loaded_total") != 2 ||
			get(t, out, "loaded_projects.0.name") != "Zoo.Core" || get(t, out, "loaded_projects.1.name") != "Zoo.App" ||
			get(t, out, "project_files.0") != "src/Zoo.Core/Zoo.Core.csproj" || get(t, out, "project_files.1") != "src/Zoo.App/Zoo.App.csproj" {
			show(t, out)
			t.Error("unexpected load status")
		}
	})
	t.Run("find_symbol", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Dog", "kind": "class"})
		if get(t, out, "total") != 1 || locOf(t, out, "symbols.0") != "src/Zoo.Core/Dog.cs:3:14" {
			show(t, out)
			t.Error("Dog not found at its declaration")
		}
		out = mustInvoke(t, e, "find_symbol", map[string]any{"query": "Speak", "kind": "method"})
		if get(t, out, "total") != 5 || get(t, out, "symbols.4.container") != "IAnimal" || get(t, out, "symbols.4.name") != "Speak" {
			show(t, out)
			t.Error("want the five Speak methods, each named Speak in its type")
		}
	})
	t.Run("file_symbols", func(t *testing.T) {
		out := mustInvoke(t, e, "file_symbols", map[string]any{"file": "src/Zoo.Core/Dog.cs"})
		if get(t, out, "symbols.0.name") != "Zoo.Core" || get(t, out, "symbols.0.kind") != "namespace" ||
			get(t, out, "symbols.0.children.0.name") != "Dog" || get(t, out, "symbols.0.children.1.name") != "Puppy" ||
			get(t, out, "symbols.0.children.0.children.1.name") != "Speak()" {
			show(t, out)
			t.Error("unexpected outline")
		}
	})
	t.Run("symbol_info", func(t *testing.T) {
		out := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Dog/Speak"})
		if locOf(t, out, "definition") != "src/Zoo.Core/Dog.cs:9:28" || get(t, out, "kind") != "method" ||
			!strings.Contains(get(t, out, "hover").(string), "string Dog.Speak()") {
			show(t, out)
			t.Error("unexpected info")
		}
		_, err := invoke(t, e, "symbol_info", map[string]any{"symbol": "Feeder/Feed"})
		fe := wantCode(t, err, failure.Ambiguous, "symbol")
		if n := len(fe.Details["candidates"].([]Candidate)); n != 3 {
			t.Errorf("candidates = %v, want the three overloads", fe.Details)
		}
		out = mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Speak", "container": "Cat"})
		if locOf(t, out, "definition") != "src/Zoo.Core/Cat.cs:9:28" {
			show(t, out)
			t.Error("Cat.Speak by name and container")
		}
	})
	t.Run("find_references", func(t *testing.T) {
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "Feeder", "kind": "class"})
		if get(t, out, "total") != 2 || locOf(t, out, "references.0") != "src/Zoo.App/Keeper.cs:7:22" || locOf(t, out, "references.1") != "src/Zoo.App/Keeper.cs:7:42" {
			show(t, out)
			t.Error("unexpected references")
		}
	})
	t.Run("find_implementations", func(t *testing.T) {
		out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "IAnimal"})
		var names []string
		for _, impl := range out["implementations"].([]any) {
			names = append(names, impl.(map[string]any)["name"].(string))
		}
		if strings.Join(names, ",") != "Animal,Cat,Dog,Puppy" {
			show(t, out)
			t.Errorf("implementations %v", names)
		}
	})
	t.Run("type_hierarchy", func(t *testing.T) {
		out := mustInvoke(t, e, "type_hierarchy", map[string]any{"symbol": "Dog", "direction": "both"})
		if get(t, out, "root.supertypes.0.name") != "Animal" || get(t, out, "root.subtypes.0.name") != "Puppy" {
			show(t, out)
			t.Error("unexpected hierarchy")
		}
	})
	t.Run("find_callers", func(t *testing.T) {
		out := mustInvoke(t, e, "find_callers", map[string]any{"symbol": "Feeder/Feed#1", "depth": 2})
		if !strings.HasPrefix(get(t, out, "callers.0.name").(string), "Morning") || locOf(t, out, "callers.0.call_sites.0") != "src/Zoo.App/Keeper.cs:13:20" {
			show(t, out)
			t.Error("Keeper.Morning calls Feed(IAnimal)")
		}
	})
	t.Run("diagnostics", func(t *testing.T) {
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "src/Zoo.App/Keeper.cs"})
		if get(t, out, "counts.error") != 0 || get(t, out, "complete") != true {
			show(t, out)
			t.Error("Keeper.cs is clean")
		}
	})
	t.Run("get_source", func(t *testing.T) {
		out := mustInvoke(t, e, "get_source", map[string]any{"symbol": "Dog/Describe"})
		if src, _ := out["source"].(string); !strings.Contains(src, "public override string Describe()") || !strings.Contains(src, `return "Dog " + base.Describe();`) {
			show(t, out)
			t.Error("unexpected source")
		}
	})
	t.Run("type_members", func(t *testing.T) {
		out := mustInvoke(t, e, "type_members", map[string]any{"symbol": "Animal", "kind": "class"})
		var names []string
		for _, m := range out["members"].([]any) {
			names = append(names, m.(map[string]any)["name"].(string))
		}
		if got := strings.Join(names, ","); !strings.Contains(got, "Name") || !strings.Contains(got, "Speak") || !strings.Contains(got, "Describe") {
			show(t, out)
			t.Errorf("members %s", got)
		}
	})
	t.Run("containing_member", func(t *testing.T) {
		out := mustInvoke(t, e, "containing_member", map[string]any{"file": "src/Zoo.App/Keeper.cs", "line": 13, "column": 13})
		if !strings.HasPrefix(dump(out), "{") || !strings.Contains(dump(out), "Morning") {
			show(t, out)
			t.Error("line 13 is in Keeper.Morning")
		}
	})
	t.Run("get_file_content", func(t *testing.T) {
		out := mustInvoke(t, e, "get_file_content", map[string]any{"file": "src/Zoo.Core/Cat.cs"})
		if !strings.Contains(dump(out), "public sealed class Cat : Animal") {
			show(t, out)
			t.Error("unexpected content")
		}
	})
}

// TestCSharpLSTypeOperations runs find_subclasses, find_overrides,
// find_usages and method_overloads against real csharp-ls.
func TestCSharpLSTypeOperations(t *testing.T) {
	e, _ := csEngine(t)
	show := func(t *testing.T, out map[string]any) { t.Helper(); t.Logf("%s", dump(out)) }
	names := func(out map[string]any, list, key string) string {
		var ns []string
		for _, v := range out[list].([]any) {
			ns = append(ns, fmt.Sprint(v.(map[string]any)[key]))
		}
		return strings.Join(ns, ",")
	}

	t.Run("find_subclasses", func(t *testing.T) {
		out := mustInvoke(t, e, "find_subclasses", map[string]any{"symbol": "Animal"})
		if got := names(out, "subclasses", "name"); got != "Cat,Dog" || get(t, out, "type.name") != "Animal" {
			show(t, out)
			t.Errorf("direct subclasses %s", got)
		}
		out = mustInvoke(t, e, "find_subclasses", map[string]any{"symbol": "Animal", "transitive": true})
		if got := names(out, "subclasses", "name") + " " + names(out, "subclasses", "base"); got != "Cat,Dog,Puppy Animal,Animal,Dog" ||
			get(t, out, "subclasses.2.depth") != 2 || locOf(t, out, "subclasses.2") != "src/Zoo.Core/Dog.cs:20:14" {
			show(t, out)
			t.Errorf("transitive subclasses %s", got)
		}
	})
	t.Run("find_overrides", func(t *testing.T) {
		out := mustInvoke(t, e, "find_overrides", map[string]any{"symbol": "Animal/Speak"})
		if got := names(out, "overrides", "containing_type"); got != "Cat,Dog,Puppy" || locOf(t, out, "overrides.1") != "src/Zoo.Core/Dog.cs:9:28" {
			show(t, out)
			t.Errorf("overrides of Animal.Speak in %s", got)
		}
		out = mustInvoke(t, e, "find_overrides", map[string]any{"symbol": "Animal/Describe"})
		if got := names(out, "overrides", "containing_type"); got != "Dog" {
			show(t, out)
			t.Errorf("overrides of Animal.Describe in %s", got)
		}
		// An interface member: the abstract member implementing it and
		// everything overriding that.
		out = mustInvoke(t, e, "find_overrides", map[string]any{"symbol": "IAnimal/Speak"})
		if got := names(out, "overrides", "containing_type"); got != "Animal,Cat,Dog,Puppy" {
			show(t, out)
			t.Errorf("implementations of IAnimal.Speak in %s", got)
		}
		_, err := invoke(t, e, "find_overrides", map[string]any{"symbol": "Animal", "kind": "class"})
		wantCode(t, err, failure.InvalidInput, "symbol")
	})
	t.Run("find_usages", func(t *testing.T) {
		out := mustInvoke(t, e, "find_usages", map[string]any{"symbol": "Dog", "kind": "class"})
		show(t, out)
		if get(t, out, "by_usage.inheritance") != 1 || get(t, out, "by_usage.instantiation") != 1 || get(t, out, "by_usage.constructor_chain") != 1 || get(t, out, "total") != 3 {
			t.Error("Dog: Puppy derives from it and chains its constructor, Program instantiates it")
		}
		out = mustInvoke(t, e, "find_usages", map[string]any{"symbol": "Animal", "kind": "class"})
		show(t, out)
		if get(t, out, "by_usage.inheritance") != 2 || get(t, out, "by_usage.reference") != 2 || get(t, out, "by_usage.constructor_chain") != 2 {
			t.Error("Animal: Dog and Cat derive from it, Keeper and Program mention it")
		}
		_, err := invoke(t, e, "find_usages", map[string]any{"symbol": "Dog/Speak"})
		wantCode(t, err, failure.InvalidInput, "symbol")
	})
	t.Run("method_overloads", func(t *testing.T) {
		out := mustInvoke(t, e, "method_overloads", map[string]any{"symbol": "Feeder/Feed"})
		if get(t, out, "total") != 3 || get(t, out, "container") != "Feeder" || names(out, "overloads", "selector") != "Zoo/Core/Feeder/Feed#1,Zoo/Core/Feeder/Feed#2,Zoo/Core/Feeder/Feed#3" ||
			!strings.Contains(get(t, out, "overloads.1.signature").(string), "int portions") {
			show(t, out)
			t.Error("unexpected overloads")
		}
		_, err := invoke(t, e, "method_overloads", map[string]any{"symbol": "Speak"})
		wantCode(t, err, failure.Ambiguous, "symbol")
		_, err = invoke(t, e, "method_overloads", map[string]any{"symbol": "Feeder/Starve"})
		wantCode(t, err, failure.NotFound, "symbol")
	})
}

func TestMemberName(t *testing.T) {
	for _, tc := range []struct{ in, name, container string }{
		{"string Dog.Speak()", "Speak", "Dog"},
		{"void Feeder.Feed(IAnimal, int)", "Feed", "Feeder"},
		{"string Animal.Name", "Name", "Animal"},
		{"Dog.Dog(string name)", "Dog", "Dog"},
		{"Dictionary<string, int> Zoo.Core.Index.Build<T>(List<T> xs)", "Build<T>", "Zoo.Core.Index"},
		{"(int, int) Grid.Size()", "Size", "Grid"},
		{"Dog", "Dog", ""},
		{"(*Square).Area", "(*Square).Area", ""},
		{"calc.TotalArea", "calc.TotalArea", ""},
		{"Area()", "Area", ""},
	} {
		name, container := memberName(tc.in, "")
		if name != tc.name || container != tc.container {
			t.Errorf("memberName(%q) = %q, %q; want %q, %q", tc.in, name, container, tc.name, tc.container)
		}
	}
}

// Names a server may send that are no signature: unbalanced, empty or
// odd. memberName must neither panic nor invent a container.
func TestMemberNameHostile(t *testing.T) {
	for _, in := range []string{"", ")", "(", "((", "a)", " )", "x y", ". ()", "a.(b)", "<>.x()", strings.Repeat("(", 1000) + ")"} {
		name, container := memberName(in, "")
		if name == "" && in != "" && in != ")" && in != " )" && in != "a)" {
			t.Errorf("memberName(%q) = %q, %q: the name vanished", in, name, container)
		}
	}
}

// trimTrivia takes ranges from the server: ranges beyond the file, ending
// before their selection or starting after it are left alone, and a
// declaration's range shrinks to the declaration.
func TestTrimTrivia(t *testing.T) {
	text := "class A\n{\n    // about F\n    void F()\n    {\n    }\n\n}\n"
	m := lsp.NewMapper([]byte(text))
	pos := func(line, char uint32) lsp.Position { return lsp.Position{Line: line, Character: char} }
	syms := []lsp.DocumentSymbol{
		{Name: "F()", Range: lsp.Range{Start: pos(1, 1), End: pos(6, 0)}, SelectionRange: lsp.Range{Start: pos(3, 9), End: pos(3, 10)}},
		{Name: "beyond", Range: lsp.Range{Start: pos(0, 0), End: pos(99, 0)}, SelectionRange: lsp.Range{Start: pos(0, 6), End: pos(0, 7)}},
		{Name: "inverted", Range: lsp.Range{Start: pos(3, 0), End: pos(0, 0)}, SelectionRange: lsp.Range{Start: pos(3, 9), End: pos(3, 10)}},
		{Name: "after", Range: lsp.Range{Start: pos(5, 0), End: pos(6, 0)}, SelectionRange: lsp.Range{Start: pos(3, 9), End: pos(3, 10)}},
	}
	orig := slices.Clone(syms)
	trimTrivia(m, syms)
	if want := (lsp.Range{Start: pos(3, 4), End: pos(5, 5)}); syms[0].Range != want {
		t.Errorf("F's range = %+v, want %+v (from void to its closing brace)", syms[0].Range, want)
	}
	for i := 1; i < len(syms); i++ {
		if syms[i].Range != orig[i].Range {
			t.Errorf("%s: range %+v changed to %+v", syms[i].Name, orig[i].Range, syms[i].Range)
		}
	}
}
