package semantic

import (
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// triangleCS is a C# type with overloads and an interface it does not
// implement yet.
const triangleCS = `using System;

namespace Shapes;

public class Triangle : IShape
{
    public double Side { get; set; }

    public double Scale(double factor)
    {
        return Side * factor;
    }

    public double Scale(int times)
    {
        return Side * times;
    }
}
`

// Structured edits of C# against the scripted Roslyn peer.
func TestStructuredEditsCSharp(t *testing.T) {
	cfg, _ := fakeConfig(t, "roslyn")
	cfg.RootMarkers = []string{"*.sln"}
	root := copyTree(t, roslyntest.Shapes())
	const tri = "src/Shapes/Triangle.cs"
	if err := os.WriteFile(filepath.Join(root, tri), []byte(triangleCS), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, root, "csharp", cfg)

	t.Run("expression body becomes a block", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Circle/Area", "body": "var r = Radius;\nreturn Math.PI * r * r;"}); err != nil {
			t.Fatal(err)
		}
		want := "    public double Area()\n    {\n        var r = Radius;\n        return Math.PI * r * r;\n    }\n\n    public string Name"
		if got := readFile(t, root, "src/Shapes/Circle.cs"); !strings.Contains(got, want) {
			t.Errorf("Circle.cs:\n%s", got)
		}
	})

	t.Run("a missing semicolon is rejected", func(t *testing.T) {
		before := readFile(t, root, "src/Shapes/Square.cs")
		_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Shapes.Square.Area", "body": "return side * side"})
		tr := rejected(t, err)
		if len(tr.Delta.New) != 1 || tr.Delta.New[0].Code != "CS1002" {
			t.Errorf("delta = %+v", tr.Delta)
		}
		if readFile(t, root, "src/Shapes/Square.cs") != before {
			t.Error("Square.cs changed")
		}
	})

	t.Run("overloads", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Triangle/Scale", "body": "return 0;"})
		fe := wantCode(t, err, failure.Ambiguous, "symbol")
		var sels []string
		for _, c := range fe.Details["candidates"].([]Candidate) {
			sels = append(sels, c.Selector)
		}
		if strings.Join(sels, " ") != "Triangle/Scale#1 Triangle/Scale#2" {
			t.Errorf("selectors = %v", sels)
		}
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Triangle/Scale(int)", "body": "return Side * times * 2;"}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Triangle/Scale#1", "body": "return Side * factor * 2;"}); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, tri)
		if !strings.Contains(got, "Scale(int times)\n    {\n        return Side * times * 2;\n    }") || !strings.Contains(got, "Scale(double factor)\n    {\n        return Side * factor * 2;\n    }") {
			t.Errorf("Triangle.cs:\n%s", got)
		}
		m := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Triangle/Scale(double)"})
		if get(t, m, "name_path") != "Triangle/Scale#1" || get(t, m, "overloads.0.selector") != "Triangle/Scale#2" || get(t, m, "modifiers.0") != "public" {
			t.Errorf("symbol_info = %s", dump(m))
		}
	})

	t.Run("add_member after the last of its kind", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "Triangle", "member": "public double Height { get; set; }"}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "add_member", map[string]any{"symbol": "Triangle", "member": "public double Half()\n{\n    return Side / 2;\n}"}); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, tri)
		if !strings.Contains(got, "    public double Side { get; set; }\n    public double Height { get; set; }\n") ||
			!strings.Contains(got, "        return Side * times * 2;\n    }\n\n    public double Half()\n    {\n        return Side / 2;\n    }\n}") {
			t.Errorf("Triangle.cs:\n%s", got)
		}
	})

	t.Run("implement interface code action", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "apply_code_action", map[string]any{"symbol": "Triangle", "title": "Nope"}); err == nil {
			t.Fatal("an unknown title applied")
		} else if fe := wantCode(t, err, failure.AnchorNotResolved, "title"); !strings.Contains(dump(fe.Details), "Implement interface 'IShape'") {
			t.Errorf("candidates = %s", dump(fe.Details))
		}
		m, err := invokeConfirmed(t, e, "apply_code_action", map[string]any{"symbol": "Triangle", "title": "Implement interface 'IShape'"})
		if err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, tri)
		if !strings.Contains(got, "public double Area() => throw new System.NotImplementedException();") || !strings.Contains(got, "public string Name => throw") {
			t.Errorf("Triangle.cs:\n%s\nresult %s", got, dump(m))
		}
	})

	t.Run("update_imports and delete", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "update_imports", map[string]any{"file": tri, "add": []string{"System.Text"}, "remove": []string{"System"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "delete_symbol", map[string]any{"symbol": "Triangle/Half"}); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, tri)
		if !strings.HasPrefix(got, "using System.Text;\n\nnamespace Shapes;") || strings.Contains(got, "Half") {
			t.Errorf("Triangle.cs:\n%s", got)
		}
	})
}
