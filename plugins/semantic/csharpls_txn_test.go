package semantic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// brokenCS has a missing semicolon (CS1002) for a transaction to fix.
const brokenCS = `namespace Zoo.App;

internal static class Broken
{
    internal static int Twice(int value)
    {
        int result = value * 2
        return result;
    }
}
`

// reportCS uses StringBuilder without its using (CS0246), which
// csharp-ls's quick fixes add.
const reportCS = `namespace Zoo.App;

public static class Report
{
    public static string Line(string name)
    {
        var sb = new StringBuilder();
        sb.Append(name);
        return sb.ToString();
    }
}
`

// parrotCS has overloads, an expression-bodied member and an interface it
// does not implement yet (CS0535), for the structured edits.
const parrotCS = `using System;

namespace Zoo.Core;

public class Parrot : IAnimal
{
    public double Weight { get; set; }

    public string Sound() => "Squawk";

    public double Scale(double factor)
    {
        return Weight * factor;
    }

    public double Scale(int times)
    {
        return Weight * times;
    }
}
`

// messyCS is badly formatted and has an unused using, for format and
// organize_imports.
const messyCS = "using System.Text;\nusing System;\n\nnamespace Zoo.Core;\n\npublic static class Messy\n{\npublic static int Twice(int x){return x*2;}\n}\n"

// csTxnEngine starts csharp-ls on a copy of testdata/zoo of its own,
// with Broken.cs and Report.cs added, for tests that write.
func csTxnEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	requireCSharpLS(t)
	root := copyTree(t, filepath.Join("testdata", "zoo"))
	for name, text := range map[string]string{"src/Zoo.App/Broken.cs": brokenCS, "src/Zoo.App/Report.cs": reportCS, "src/Zoo.Core/Parrot.cs": parrotCS, "src/Zoo.Core/Messy.cs": messyCS} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openEngine(t, root, "csharp", csharpLSConfig), root
}

// TestCSharpLSTransactions runs transactions and every structured edit on
// real C# code, gated by csharp-ls's diagnostics.
func TestCSharpLSTransactions(t *testing.T) {
	e, root := csTxnEngine(t)
	const keeper, broken, feeder, report = "src/Zoo.App/Keeper.cs", "src/Zoo.App/Broken.cs", "src/Zoo.Core/Feeder.cs", "src/Zoo.App/Report.cs"
	files := []string{keeper, broken, feeder, report, "src/Zoo.Core/Cat.cs", "src/Zoo.App/Program.cs"}
	runTxnCases(t, e, root, files, []txnCase{
		{name: "CS1002 rejected", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": keeper, "edits": []map[string]string{{"old_text": "return feeder.Meals;", "new_text": "return feeder.Meals"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if len(tr.Delta.New) != 1 || tr.Delta.New[0].Code != "CS1002" || tr.Delta.New[0].Path != keeper || tr.Delta.New[0].Line != 20 {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged(keeper)(t, root, nil, nil, before)
			}},
		{name: "CS0103 rejected", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": keeper, "edits": []map[string]string{{"old_text": "return feeder.Meals;", "new_text": "return feeder.Meals + extra;"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if len(tr.Delta.New) != 1 || tr.Delta.New[0].Code != "CS0103" || !strings.Contains(tr.Delta.New[0].Message, "'extra'") {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged(keeper)(t, root, nil, nil, before)
			}},
		{name: "a fix accepted and listed as fixed", op: "edit_file",
			input: map[string]any{"file": broken, "edits": []map[string]string{{"old_text": "value * 2\n", "new_text": "value * 2;\n"}}},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, _ map[string]string) {
				if !tr.Applied || tr.ID == "" || !hasDiag(tr.Delta.Fixed, broken, diagnostic.Error, "; expected") || len(tr.Delta.New) != 0 {
					t.Errorf("fix = %+v", tr)
				}
			}},
		{name: "replace_symbol_body", op: "replace_symbol_body",
			input: map[string]any{"symbol": "Cat/Speak", "body": `return "Purr";`},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, "src/Zoo.Core/Cat.cs"); !strings.Contains(got, "    public override string Speak()\n    {\n        return \"Purr\";\n    }") {
					t.Errorf("Cat.cs:\n%s", got)
				}
			}},
		{name: "replace_symbol_body missing a semicolon rejected", op: "replace_symbol_body", code: failure.DiagnosticRegression,
			input: map[string]any{"symbol": "Zoo.Core.Cat.Speak", "body": `return "Hiss"`},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				if tr := rejected(t, err); len(tr.Delta.New) != 1 || tr.Delta.New[0].Code != "CS1002" {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged("src/Zoo.Core/Cat.cs")(t, root, nil, nil, before)
			}},
		{name: "add_member", op: "add_member",
			input: map[string]any{"symbol": "Feeder", "member": "public void Rest()\n{\n    Meals = 0;\n}"},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, feeder); !strings.HasSuffix(got, "        Meals++;\n    }\n\n    public void Rest()\n    {\n        Meals = 0;\n    }\n}\n") {
					t.Errorf("Feeder.cs:\n%s", got)
				}
			}},
		{name: "insert_before_symbol", op: "insert_before_symbol",
			input: map[string]any{"symbol": "Keeper/Meals", "text": "public int Animals { get; private set; }"},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, keeper); !strings.Contains(got, "    public int Animals { get; private set; }\n\n    public int Meals()") {
					t.Errorf("Keeper.cs:\n%s", got)
				}
			}},
		{name: "insert_after_symbol", op: "insert_after_symbol",
			input: map[string]any{"symbol": "Keeper/Meals", "text": "public bool Fed()\n{\n    return Meals() > 0;\n}"},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, keeper); !strings.Contains(got, "        return feeder.Meals;\n    }\n\n    public bool Fed()\n    {\n        return Meals() > 0;\n    }\n}") {
					t.Errorf("Keeper.cs:\n%s", got)
				}
			}},
		{name: "update_imports", op: "update_imports",
			input: map[string]any{"file": keeper, "add": []string{"System.Text"}},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, keeper); !strings.HasPrefix(got, "using System.Text;\nusing Zoo.Core;\n") && !strings.HasPrefix(got, "using Zoo.Core;\nusing System.Text;\n") {
					t.Errorf("Keeper.cs:\n%s", got)
				}
			}},
		{name: "rename_symbol across projects", op: "rename_symbol",
			input: map[string]any{"symbol": "Feeder/Meals", "new_name": "MealCount"},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if !strings.Contains(readFile(t, root, feeder), "public int MealCount { get; private set; }") || !strings.Contains(readFile(t, root, keeper), "return feeder.MealCount;") {
					t.Errorf("Feeder.cs:\n%s\nKeeper.cs:\n%s", readFile(t, root, feeder), readFile(t, root, keeper))
				}
			}},
		{name: "delete_symbol still used rejected" /* Fed() calls it */, op: "delete_symbol", code: failure.DiagnosticRegression,
			input: map[string]any{"symbol": "Keeper/Meals"},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				if tr := rejected(t, err); len(tr.Delta.New) == 0 || tr.Delta.New[0].Code != "CS0103" {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged(keeper)(t, root, nil, nil, before)
			}},
		{name: "delete_symbol", op: "delete_symbol",
			input: map[string]any{"symbol": "Feeder/Feed(string)"},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if got := readFile(t, root, feeder); strings.Contains(got, "Feed(string name)") || !strings.Contains(got, "Feed(IAnimal animal, int portions)") {
					t.Errorf("Feeder.cs:\n%s", got)
				}
			}},
	})

	t.Run("guided packet carries csharp-ls's quick fix", func(t *testing.T) {
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": report, "packet": "guided"})
		p := packetOf(t, out)
		if len(p.Items) == 0 || p.Items[0].ID != "CS0246" || p.Items[0].Location != report+":7:22" {
			t.Fatalf("packet = %s", dump(p))
		}
		var fix *diagnostic.Suggestion
		for i, s := range p.Items[0].Suggestions {
			if strings.Contains(s.Title, "using System.Text") {
				fix = &p.Items[0].Suggestions[i]
			}
		}
		if fix == nil || fix.Tool != "csharp.apply_code_action" || fix.Input["file"] != report {
			t.Fatalf("suggestions = %s", dump(p.Items[0].Suggestions))
		}
		// The suggested call, made as suggested, fixes the file.
		in := map[string]any{}
		for k, v := range fix.Input {
			in[k] = v
		}
		res, err := invokeConfirmed(t, e, "apply_code_action", in)
		if err != nil {
			t.Fatalf("apply_code_action %v: %v", in, err)
		}
		if got := readFile(t, root, report); !strings.HasPrefix(got, "using System.Text;\n") {
			t.Errorf("Report.cs:\n%s\nresult %s", got, dump(res))
		}
		if out := mustInvoke(t, e, "diagnostics", map[string]any{"file": report}); get(t, out, "counts.error") != 0 {
			t.Errorf("Report.cs still has errors: %s", dump(out))
		}
	})

	sharedTxnTests(t, e, root, txnFile{path: keeper, anchors: [2]string{"private readonly Feeder feeder = new Feeder();", "public string Morning(IReadOnlyList<Animal> animals)"}, comment: "//"})
}

// TestCSharpLSEdits runs the other writing operations on real C# code:
// overload selectors, an expression body, csharp-ls's implement-interface
// code action, rename, format and csharp-ls's using actions.
func TestCSharpLSEdits(t *testing.T) {
	e, root := csTxnEngine(t)
	const parrot, messy = "src/Zoo.Core/Parrot.cs", "src/Zoo.Core/Messy.cs"

	t.Run("expression body becomes a block", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Parrot/Sound", "body": "var s = \"Squawk\";\nreturn s + \"!\";"}); err != nil {
			t.Fatal(err)
		}
		want := "    public string Sound()\n    {\n        var s = \"Squawk\";\n        return s + \"!\";\n    }\n\n    public double Scale"
		if got := readFile(t, root, parrot); !strings.Contains(got, want) {
			t.Errorf("Parrot.cs:\n%s", got)
		}
	})
	t.Run("overloads", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Parrot/Scale", "body": "return 0;"})
		fe := wantCode(t, err, failure.Ambiguous, "symbol")
		var sels []string
		for _, c := range fe.Details["candidates"].([]Candidate) {
			sels = append(sels, c.Selector)
		}
		if strings.Join(sels, " ") != "Zoo/Core/Parrot/Scale#1 Zoo/Core/Parrot/Scale#2" {
			t.Errorf("selectors = %v", sels)
		}
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Parrot/Scale(int)", "body": "return Weight * times * 2;"}); err != nil {
			t.Fatal(err)
		}
		if _, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Parrot/Scale#1", "body": "return Weight * factor * 2;"}); err != nil {
			t.Fatal(err)
		}
		got := readFile(t, root, parrot)
		if !strings.Contains(got, "Scale(int times)\n    {\n        return Weight * times * 2;\n    }") || !strings.Contains(got, "Scale(double factor)\n    {\n        return Weight * factor * 2;\n    }") {
			t.Errorf("Parrot.cs:\n%s", got)
		}
		m := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Parrot/Scale(double)"})
		if get(t, m, "name_path") != "Zoo/Core/Parrot/Scale#1" || get(t, m, "overloads.0.selector") != "Zoo/Core/Parrot/Scale#2" {
			t.Errorf("symbol_info = %s", dump(m))
		}
	})
	t.Run("implement interface code action", func(t *testing.T) {
		_, err := invokeConfirmed(t, e, "apply_code_action", map[string]any{"symbol": "Parrot", "title": "Nope"})
		fe := wantCode(t, err, failure.AnchorNotResolved, "title")
		var title string
		for _, c := range fe.Details["candidates"].([]string) {
			if strings.Contains(c, "Implement interface") && !strings.Contains(c, "explicit") {
				title = c
				break
			}
		}
		if title == "" {
			t.Fatalf("no implement-interface action among %s", dump(fe.Details))
		}
		m, err := invokeConfirmed(t, e, "apply_code_action", map[string]any{"symbol": "Parrot", "title": title})
		if err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, parrot); !strings.Contains(got, "public string Name") || !strings.Contains(got, "public string Speak()") {
			t.Errorf("Parrot.cs:\n%s\nresult %s", got, dump(m))
		}
		if out := mustInvoke(t, e, "diagnostics", map[string]any{"file": parrot}); get(t, out, "counts.error") != 0 {
			t.Errorf("Parrot.cs still has errors: %s", dump(out))
		}
	})
	t.Run("rename preview then apply", func(t *testing.T) {
		out := mustInvoke(t, e, "rename", map[string]any{"symbol": "Parrot/Weight", "new_name": "Mass"})
		if d, _ := out["diff"].(string); !strings.Contains(d, "+    public double Mass { get; set; }") {
			t.Fatalf("preview = %s", dump(out))
		}
		if !strings.Contains(readFile(t, root, parrot), "Weight") {
			t.Fatal("the preview wrote")
		}
		if _, err := invokeConfirmed(t, e, "rename", map[string]any{"symbol": "Parrot/Weight", "new_name": "Mass", "apply": true}); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, parrot); strings.Contains(got, "Weight") || !strings.Contains(got, "return Mass * times * 2;") {
			t.Errorf("Parrot.cs:\n%s", got)
		}
	})
	t.Run("format", func(t *testing.T) {
		if _, err := invokeConfirmed(t, e, "format", map[string]any{"file": messy, "apply": true}); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, messy); !strings.Contains(got, "    public static int Twice(int x) { return x * 2; }") && !strings.Contains(got, "    public static int Twice(int x)\n    {\n        return x * 2;\n    }") {
			t.Errorf("Messy.cs:\n%s", got)
		}
	})
	t.Run("organize usings", func(t *testing.T) {
		// csharp-ls offers no source.organizeImports action: organize_imports
		// says so and names the actions that do the work.
		_, err := invokeConfirmed(t, e, "organize_imports", map[string]any{"file": messy})
		if failure.CodeOf(err) != failure.Unsupported || !strings.Contains(err.Error(), "Remove unnecessary usings") {
			t.Errorf("organize_imports on csharp-ls = %v, want unsupported_by_server naming the using actions", err)
		}
		for _, title := range []string{"Remove unnecessary usings", "Sort Usings"} {
			_, err := invokeConfirmed(t, e, "apply_code_action", map[string]any{"file": messy, "line": 1, "end_line": 2, "title": title})
			if err != nil && !(title == "Sort Usings" && failure.CodeOf(err) == failure.AnchorNotResolved) {
				t.Fatalf("%s: %v", title, err)
			}
		}
		if got := readFile(t, root, messy); strings.Contains(got, "using System.Text;") || !strings.Contains(got, "public static class Messy") {
			t.Errorf("Messy.cs:\n%s", got)
		}
	})
}
