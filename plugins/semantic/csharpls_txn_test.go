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

// csTxnEngine starts csharp-ls on a copy of testdata/zoo of its own,
// with Broken.cs and Report.cs added, for tests that write.
func csTxnEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	requireCSharpLS(t)
	root := copyTree(t, filepath.Join("testdata", "zoo"))
	for name, text := range map[string]string{"src/Zoo.App/Broken.cs": brokenCS, "src/Zoo.App/Report.cs": reportCS} {
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
