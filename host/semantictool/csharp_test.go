package semantictool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/lsptest/csharpls"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// brokenCS is added to the zoo for diagnostics: CS0103 at 7:16.
const brokenCS = `namespace Zoo.App;

public static class Broken
{
    public static int Count()
    {
        return missing;
    }
}
`

// TestCSharpLSThroughPlugin runs the shipped csharp.yaml end to end on real
// csharp-ls: the host starts the built-in C# agent, which finds that
// roslyn-language-server is not installed, starts the second server of
// semantic.servers in the csharp-ls dialect, waits for it to load the zoo
// solution, and answers. Project operations come from the plugin's own
// parsing of the solution. It fails where dotnet is on PATH and csharp-ls
// is not, and skips, naming dotnet, where the SDK is missing.
func TestCSharpLSThroughPlugin(t *testing.T) {
	csharpls.Require(t)
	h := newHost(t, csharpls.Zoo())
	if err := os.WriteFile(filepath.Join(h.Workspace.Dir(), "src", "Zoo.App", "Broken.cs"), []byte(brokenCS), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(t *testing.T, id string, input map[string]any) map[string]any {
		t.Helper()
		out, err := callCS(h, id, input)
		if err != nil {
			t.Fatalf("%s %v: %v", id, input, err)
		}
		return out
	}

	// The first call starts the server; the rest find it warm.
	t.Run("load_status", func(t *testing.T) {
		out := call(t, "csharp.load_status", map[string]any{})
		if at(t, out, "server") != "csharp-ls" || !strings.HasPrefix(fmt.Sprint(at(t, out, "version")), "0.28.0") ||
			at(t, out, "solution") != "Zoo.sln" || at(t, out, "complete") != true {
			t.Errorf("load_status = %s", show(out))
		}
	})
	t.Run("find_implementations", func(t *testing.T) {
		out := call(t, "csharp.find_implementations", map[string]any{"symbol": "IAnimal", "kind": "interface"})
		if got := joinAt(t, out, "implementations", "name"); got != "Animal,Cat,Dog,Puppy" {
			t.Errorf("implementations of IAnimal = %s\n%s", got, show(out))
		}
		if got := locAt(t, out, "implementations.2"); got != "src/Zoo.Core/Dog.cs:3:14" {
			t.Errorf("Dog at %s, want src/Zoo.Core/Dog.cs:3:14", got)
		}
	})
	t.Run("diagnostics", func(t *testing.T) {
		out := call(t, "csharp.diagnostics", map[string]any{"file": "src/Zoo.App/Broken.cs"})
		if at(t, out, "counts.error") != 1 || at(t, out, "mode") != "pull" || at(t, out, "diagnostics.0.code") != "CS0103" ||
			fmt.Sprintf("%v:%v:%v", at(t, out, "diagnostics.0.path"), at(t, out, "diagnostics.0.line"), at(t, out, "diagnostics.0.column")) != "src/Zoo.App/Broken.cs:7:16" ||
			!strings.Contains(fmt.Sprint(at(t, out, "diagnostics.0.message")), "'missing' does not exist") {
			t.Errorf("diagnostics of Broken.cs = %s", show(out))
		}
		out = call(t, "csharp.diagnostics", map[string]any{"file": "src/Zoo.App/Keeper.cs"})
		if at(t, out, "counts.error") != 0 {
			t.Errorf("Keeper.cs is clean: %s", show(out))
		}
	})
	// csharp-ls 0.28.0 serves textDocument/prepareTypeHierarchy with
	// supertypes and subtypes.
	t.Run("type_hierarchy", func(t *testing.T) {
		out := call(t, "csharp.type_hierarchy", map[string]any{"symbol": "Dog", "kind": "class", "direction": "both"})
		if at(t, out, "root.name") != "Dog" || at(t, out, "root.supertypes.0.name") != "Animal" || at(t, out, "root.subtypes.0.name") != "Puppy" {
			t.Errorf("hierarchy of Dog = %s", show(out))
		}
	})
	t.Run("list_projects", func(t *testing.T) {
		out := call(t, "csharp.list_projects", map[string]any{})
		if got := joinAt(t, out, "projects", "name") + " " + joinAt(t, out, "projects", "path"); got != "Zoo.App,Zoo.Core src/Zoo.App/Zoo.App.csproj,src/Zoo.Core/Zoo.Core.csproj" {
			t.Errorf("projects = %s\n%s", got, show(out))
		}
	})
	t.Run("find_references", func(t *testing.T) {
		out := call(t, "csharp.find_references", map[string]any{"symbol": "Feeder", "kind": "class"})
		if at(t, out, "total") != 2 || locAt(t, out, "references.0") != "src/Zoo.App/Keeper.cs:7:22" || locAt(t, out, "references.1") != "src/Zoo.App/Keeper.cs:7:42" {
			t.Errorf("references to Feeder = %s", show(out))
		}
	})
	t.Run("find_symbol", func(t *testing.T) {
		out := call(t, "csharp.find_symbol", map[string]any{"query": "Puppy", "kind": "class"})
		if at(t, out, "total") != 1 || locAt(t, out, "symbols.0") != "src/Zoo.Core/Dog.cs:20:14" {
			t.Errorf("Puppy = %s", show(out))
		}
	})
	t.Run("symbol_info", func(t *testing.T) {
		out := call(t, "csharp.symbol_info", map[string]any{"symbol": "Cat/Speak"})
		if locAt(t, out, "definition") != "src/Zoo.Core/Cat.cs:9:28" || at(t, out, "kind") != "method" ||
			!strings.Contains(fmt.Sprint(at(t, out, "hover")), "string Cat.Speak()") {
			t.Errorf("symbol_info of Cat.Speak = %s", show(out))
		}
		// The same symbol by position.
		out = call(t, "csharp.symbol_info", map[string]any{"file": "src/Zoo.App/Keeper.cs", "line": 13, "column": 20})
		if locAt(t, out, "definition") != "src/Zoo.Core/Feeder.cs:7:17" {
			t.Errorf("symbol_info at Keeper.cs:13:20 (feeder.Feed) = %s", show(out))
		}
	})
	t.Run("unknown symbol", func(t *testing.T) {
		_, err := callCS(h, "csharp.symbol_info", map[string]any{"symbol": "Giraffe"})
		if failure.CodeOf(err) != failure.NotFound {
			t.Errorf("symbol_info of an unknown name: %v, want not_found", err)
		}
	})
}

// TestRoslynDialectThroughPlugin covers what no server on this machine can:
// the roslyn-language-server dialect. Microsoft's server is not served by
// the NuGet copy here, so the shipped csharp.yaml runs against the scripted
// Roslyn peer installed on PATH under the real name: the plugin launches it
// with the spec's arguments, sends solution/open, waits for
// workspace/projectInitializationComplete, retries Roslyn's non-fatal
// -30099 failures, pulls diagnostics, and reports type hierarchy as
// unsupported on a build without it. C# semantics themselves are
// TestCSharpLSThroughPlugin's, on real csharp-ls.
func TestRoslynDialectThroughPlugin(t *testing.T) {
	bin := t.TempDir()
	if err := os.Link(roslyntest.Build(t), filepath.Join(bin, "roslyn-language-server")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("FAKEROSLYN_FAIL_30099", "2") // the first two navigation requests fail with -30099
	h := newHost(t, roslyntest.Shapes())

	out, err := callCS(h, "csharp.find_implementations", map[string]any{"symbol": "IShape", "kind": "interface"})
	if err != nil {
		t.Fatalf("find_implementations after two -30099 failures: %v", err)
	}
	if got := joinAt(t, out, "implementations", "file"); got != "src/Shapes/Circle.cs,src/Shapes/Square.cs" {
		t.Errorf("implementations of IShape = %s", got)
	}
	out, err = callCS(h, "csharp.diagnostics", map[string]any{"file": "src/Shapes.App/Broken.cs"})
	if err != nil {
		t.Fatal(err)
	}
	if at(t, out, "mode") != "pull" || at(t, out, "diagnostics.0.code") != "CS1002" || at(t, out, "diagnostics.0.line") != 7 {
		t.Errorf("pulled diagnostics = %s", show(out))
	}
	// Type hierarchy exists only in 2026+ Roslyn builds; this one lacks it.
	_, err = callCS(h, "csharp.type_hierarchy", map[string]any{"symbol": "IShape"})
	if failure.CodeOf(err) != failure.Unsupported {
		t.Errorf("type_hierarchy on a server without it: err = %v, want unsupported_by_server", err)
	}
	out, err = callCS(h, "csharp.load_status", map[string]any{})
	if err != nil || at(t, out, "server") == "csharp-ls" {
		t.Errorf("load_status = %s, %v; want the roslyn-language-server dialect", show(out), err)
	}
}

func TestCSharpServerMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // neither roslyn-language-server nor csharp-ls
	h := newHost(t, roslyntest.Shapes())
	_, err := h.Registry.Call(context.Background(), "csharp.find_symbol", registry.Call{WorkspaceCode: true, Input: map[string]any{"query": "IShape"}})
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("err = %v, want precondition_failed naming the missing server", err)
	}
}

// callCS calls a tool and decodes its data.
func callCS(h *host.Host, id string, input map[string]any) (map[string]any, error) {
	res, err := h.Registry.Call(context.Background(), id, registry.Call{WorkspaceCode: true, Input: input})
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(res.Data, &out); err != nil {
		return nil, fmt.Errorf("%s: data is not a JSON object: %w", id, err)
	}
	return out, nil
}

func show(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// at follows a dotted path ("references.0.line") through decoded JSON;
// whole numbers come back as int.
func at(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case []any:
			var i int
			if _, err := fmt.Sscan(part, &i); err != nil || i < 0 || i >= len(c) {
				t.Fatalf("path %s: no element %s in %s", path, part, show(v))
			}
			cur = c[i]
		default:
			t.Fatalf("path %s: cannot index %T at %s in %s", path, cur, part, show(v))
		}
	}
	if f, ok := cur.(float64); ok && f == float64(int(f)) {
		return int(f)
	}
	return cur
}

// locAt renders the location at path as "file:line:column".
func locAt(t *testing.T, v any, path string) string {
	t.Helper()
	return fmt.Sprintf("%v:%v:%v", at(t, v, path+".file"), at(t, v, path+".line"), at(t, v, path+".column"))
}

// joinAt joins the key of each element of the list at path with commas.
func joinAt(t *testing.T, v any, path, key string) string {
	t.Helper()
	list, _ := at(t, v, path).([]any)
	var parts []string
	for _, e := range list {
		m, _ := e.(map[string]any)
		parts = append(parts, fmt.Sprint(m[key]))
	}
	return strings.Join(parts, ",")
}
