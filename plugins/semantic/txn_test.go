package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/langhost/langhost/internal/lsptest"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// txnInvoke runs an operation with confirmation and decodes its output
// also as a TxnResult (edit_file's output; the other operations'
// "transaction" key is in the map).
func txnInvoke(t *testing.T, e *Engine, op string, input any) (*TxnResult, map[string]any, error) {
	t.Helper()
	m, err := invokeConfirmed(t, e, op, input)
	if err != nil {
		return nil, nil, err
	}
	raw, _ := json.Marshal(m)
	var tr TxnResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	return &tr, m, nil
}

// rejected returns the transaction a diagnostic_regression carries.
func rejected(t *testing.T, err error) *TxnResult {
	t.Helper()
	fe := wantCode(t, err, failure.DiagnosticRegression, "")
	raw, _ := json.Marshal(fe.Details["transaction"])
	var tr TxnResult
	if err := json.Unmarshal(raw, &tr); err != nil || tr.Rejected == "" {
		t.Fatalf("details.transaction = %s (%v), want a rejected transaction", raw, err)
	}
	return &tr
}

func hasDiag(ds []diagnostic.Diagnostic, path, severity, message string) bool {
	for _, d := range ds {
		if d.Path == path && d.Severity == severity && strings.Contains(d.Message, message) {
			return true
		}
	}
	return false
}

func records(t *testing.T, root string) []*txnlog.Record {
	t.Helper()
	recs, err := txnlog.List(root)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// txnCase is one edit run through a transaction on a real server.
type txnCase struct {
	name  string
	op    string
	input map[string]any
	// code is the failure class wanted ("" = success).
	code failure.Code
	// check runs after the call with the file contents before it.
	check func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string)
}

func unchanged(files ...string) func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
	return func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
		for _, f := range files {
			if got := readFile(t, root, f); got != before[f] {
				t.Errorf("%s changed:\n%s", f, got)
			}
		}
	}
}

func runTxnCases(t *testing.T, e *Engine, root string, files []string, cases []txnCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]string{}
			for _, f := range files {
				if b, err := os.ReadFile(filepath.Join(root, f)); err == nil {
					before[f] = string(b)
				}
			}
			nrec := len(records(t, root))
			tr, _, err := txnInvoke(t, e, tc.op, tc.input)
			if tc.code == "" && err != nil {
				t.Fatalf("%s: %v", tc.op, err)
			}
			if tc.code != "" {
				wantCode(t, err, tc.code, "")
			}
			if tc.code != "" || tr.DryRun {
				if n := len(records(t, root)); n != nrec {
					t.Errorf("%d records after a call that wrote nothing, want %d", n, nrec)
				}
			}
			if tc.check != nil {
				tc.check(t, root, tr, err, before)
			}
		})
	}
}

// goplsTxnConfig is the gopls configuration of transaction tests. It is
// goplsConfig: transactions see the errors an edit causes in dependent
// packages through gopls.diagnose_files, whatever gopls's
// diagnosticsDelay.
var goplsTxnConfig = goplsConfig

func TestGoplsTransactions(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	files := []string{"calc/calc.go", "broken/broken.go", "shape/shape.go", "extra/extra.go"}
	runTxnCases(t, e, root, files, []txnCase{
		{name: "breaking edit rejected", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": "calc/calc.go", "edits": []map[string]string{{"old_text": "\treturn total\n", "new_text": "\treturn \"total\"\n"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if !hasDiag(tr.Delta.New, "calc/calc.go", diagnostic.Error, `cannot use "total"`) || len(tr.Delta.Fixed) != 0 {
					t.Errorf("delta = %+v", tr.Delta)
				}
				if !hasDiag(tr.Delta.Unchanged, "broken/broken.go", diagnostic.Error, "") && len(tr.Delta.Unchanged) != 0 {
					t.Errorf("unchanged = %+v", tr.Delta.Unchanged)
				}
				unchanged("calc/calc.go")(t, root, nil, nil, before)
				// The server sees the disk text again.
				out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "calc/calc.go"})
				if n := len(out["diagnostics"].([]any)); n != 0 {
					t.Errorf("calc.go has diagnostics after the rejection: %s", dump(out))
				}
			}},
		{name: "dependent file breaks", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": "shape/shape.go", "edits": []map[string]string{{"old_text": "Area() float64", "new_text": "Surface() float64"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if !hasDiag(tr.Delta.New, "calc/calc.go", diagnostic.Error, "Area") {
					t.Errorf("the delta lacks the error in calc.go, which calls Area: %+v", tr.Delta.New)
				}
				unchanged("shape/shape.go")(t, root, nil, nil, before)
			}},
		{name: "dry run writes nothing", op: "edit_file",
			input: map[string]any{"file": "calc/calc.go", "dry_run": true, "edits": []map[string]string{{"old_text": "\treturn total\n", "new_text": "\treturn \"total\"\n"}}},
			check: func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
				if tr.Applied || !tr.DryRun || tr.ID != "" || tr.Rejected == "" || !strings.Contains(tr.Diff, "+\treturn \"total\"") {
					t.Errorf("dry run = %+v", tr)
				}
				unchanged("calc/calc.go")(t, root, nil, nil, before)
			}},
		{name: "policy never accepts a breaking edit", op: "edit_file",
			input: map[string]any{"file": "calc/calc.go", "policy": "never", "dry_run": true, "content": "package calc\n\nvar X int = \"x\"\n"},
			check: func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
				if tr.Rejected != "" || len(tr.Delta.New) == 0 {
					t.Errorf("policy never: %+v", tr)
				}
			}},
		{name: "fixing edit accepted", op: "edit_file",
			input: map[string]any{"file": "broken/broken.go", "edits": []map[string]string{{"old_text": `var n int = "three"`, "new_text": "var n int = 3"}}},
			check: func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
				if !tr.Applied || tr.ID == "" || !hasDiag(tr.Delta.Fixed, "broken/broken.go", diagnostic.Error, `cannot use "three"`) || len(tr.Delta.New) != 0 {
					t.Errorf("fix = %+v", tr)
				}
				if got := readFile(t, root, "broken/broken.go"); !strings.Contains(got, "var n int = 3\n") {
					t.Errorf("broken.go = %s", got)
				}
				rec, lerr := txnlog.Load(root, tr.ID)
				if lerr != nil || rec.Operation != "edit_file" || rec.Tool != "go.edit_file" || len(rec.Files) != 1 ||
					rec.Files[0].Path != "broken/broken.go" || rec.Files[0].Before != txnlog.Hash([]byte(before["broken/broken.go"])) {
					t.Errorf("record = %+v, %v", rec, lerr)
				}
			}},
		{name: "new file created", op: "edit_file",
			input: map[string]any{"file": "extra/extra.go", "content": "package extra\n\n// N is new.\nconst N = 1\n"},
			check: func(t *testing.T, root string, tr *TxnResult, err error, before map[string]string) {
				if !tr.Applied || readFile(t, root, "extra/extra.go") == "" {
					t.Errorf("create = %+v", tr)
				}
			}},
		{name: "broken new file not created", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": "extra2/extra.go", "content": "package extra2\n\nconst N int = \"x\"\n"},
			check: func(t *testing.T, root string, _ *TxnResult, err error, _ map[string]string) {
				if _, serr := os.Stat(filepath.Join(root, "extra2/extra.go")); !errors.Is(serr, os.ErrNotExist) {
					t.Errorf("a rejected new file exists: %v", serr)
				}
			}},
		{name: "anchor not found", op: "edit_file", code: failure.AnchorNotResolved,
			input: map[string]any{"file": "calc/calc.go", "edits": []map[string]string{{"old_text": "func Nothing()", "new_text": "x"}}},
			check: unchanged("calc/calc.go")},
		{name: "ambiguous anchor", op: "edit_file", code: failure.Ambiguous,
			input: map[string]any{"file": "calc/calc.go", "edits": []map[string]string{{"old_text": "TotalArea(", "new_text": "Sum("}}},
			check: unchanged("calc/calc.go")},
		{name: "second edit sees the first", op: "edit_file", code: failure.AnchorNotResolved,
			input: map[string]any{"file": "calc/calc.go", "edits": []map[string]string{
				{"old_text": "func A()", "new_text": "func A1()"}, {"old_text": "func A()", "new_text": "func A2()"}}},
			check: unchanged("calc/calc.go")},
		{name: "outside the workspace", op: "edit_file", code: failure.Precondition,
			input: map[string]any{"file": "../evil.go", "content": "package evil\n"}},
		{name: "into .git", op: "edit_file", code: failure.Precondition,
			input: map[string]any{"file": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}},
		{name: "into the records", op: "edit_file", code: failure.Precondition,
			input: map[string]any{"file": ".langhost/transactions/x.json", "content": "{}"}},
		{name: "unknown policy", op: "edit_file", code: failure.InvalidInput,
			input: map[string]any{"file": "calc/calc.go", "policy": "sometimes", "content": "x"}},
		{name: "content and edits", op: "edit_file", code: failure.InvalidInput,
			input: map[string]any{"file": "calc/calc.go", "content": "x", "edits": []map[string]string{{"old_text": "a", "new_text": "b"}}}},
		{name: "edits of a missing file", op: "edit_file", code: failure.NotFound,
			input: map[string]any{"file": "nope.go", "edits": []map[string]string{{"old_text": "a", "new_text": "b"}}}},
		{name: "rename through a transaction", op: "rename",
			input: map[string]any{"symbol": "TotalArea", "newName": "SumAreas", "apply": true},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if recs := records(t, root); recs[0].Operation != "rename" || len(recs[0].Files) != 1 || recs[0].Trace[0] != "rename TotalArea to SumAreas" {
					t.Errorf("rename record = %+v", recs[0])
				}
				if !strings.Contains(readFile(t, root, "calc/calc.go"), "func SumAreas(") {
					t.Errorf("rename did not write calc.go")
				}
			}},
	})

	t.Run("symlink leading out", func(t *testing.T) {
		outside := filepath.Join(t.TempDir(), "victim.go")
		os.WriteFile(outside, []byte("package victim\n"), 0o644)
		if err := os.Symlink(outside, filepath.Join(root, "link.go")); err != nil {
			t.Fatal(err)
		}
		_, _, err := txnInvoke(t, e, "edit_file", map[string]any{"file": "link.go", "content": "package x\n"})
		wantCode(t, err, failure.Precondition, "file")
		if b, _ := os.ReadFile(outside); string(b) != "package victim\n" {
			t.Errorf("the file outside was written: %q", b)
		}
	})

	t.Run("needs confirmation", func(t *testing.T) {
		_, err := invoke(t, e, "edit_file", map[string]any{"file": "calc/calc.go", "content": "package calc\n"})
		wantCode(t, err, failure.Precondition, "")
	})

	sharedTxnTests(t, e, root, txnFile{path: "calc/calc.go", anchors: [2]string{"// A calls", "// B calls"}, comment: "//"})
}

// txnFile is a file of a fixture that shared tests edit: two distinct
// lines to edit concurrently, and the language's line comment.
type txnFile struct {
	path    string
	anchors [2]string
	comment string
}

// sharedTxnTests are the transaction tests every server passes: a file
// changed on disk between propose and persist is refused, concurrent
// transactions on one file serialise, undo restores and refuses.
func sharedTxnTests(t *testing.T, e *Engine, root string, f txnFile) {
	t.Run("changed on disk before persist", func(t *testing.T) {
		other := f.comment + " changed by someone else\n"
		e.sess.beforePersist = func() { os.WriteFile(filepath.Join(root, f.path), []byte(other), 0o644) }
		defer func() { e.sess.beforePersist = nil }()
		before := readFile(t, root, f.path)
		nrec := len(records(t, root))
		_, _, err := txnInvoke(t, e, "edit_file", map[string]any{"file": f.path, "edits": []map[string]string{{"old_text": f.anchors[0], "new_text": f.anchors[0] + " " + f.comment + " edited"}}})
		wantCode(t, err, failure.Precondition, "")
		if got := readFile(t, root, f.path); got != other {
			t.Errorf("%s = %q, want the other writer's content", f.path, got)
		}
		if n := len(records(t, root)); n != nrec {
			t.Errorf("a refused transaction left a record")
		}
		os.WriteFile(filepath.Join(root, f.path), []byte(before), 0o644)
	})

	t.Run("concurrent transactions serialise", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, anchor := range f.anchors {
			wg.Go(func() {
				_, _, errs[i] = txnInvoke(t, e, "edit_file", map[string]any{"file": f.path, "edits": []map[string]string{
					{"old_text": anchor, "new_text": anchor + " " + f.comment + " edited"}}})
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got := readFile(t, root, f.path)
		for _, anchor := range f.anchors {
			if !strings.Contains(got, anchor+" "+f.comment+" edited") {
				t.Errorf("the edit of %q was lost:\n%s", anchor, got)
			}
		}
		recs := records(t, root)
		if recs[0].Files[0].Before != recs[1].Files[0].After {
			t.Errorf("the second transaction did not start from the first's result: %+v %+v", recs[0].Files, recs[1].Files)
		}
	})

	t.Run("undo", func(t *testing.T) {
		before := readFile(t, root, f.path)
		edit := map[string]any{"file": f.path, "edits": []map[string]string{{"old_text": f.anchors[0], "new_text": f.anchors[0] + " " + f.comment + " undone"}}}
		tr, _, err := txnInvoke(t, e, "edit_file", edit)
		if err != nil {
			t.Fatal(err)
		}
		undo, err := txnlog.Undo(context.Background(), root, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, root, f.path); got != before {
			t.Errorf("undo did not restore %s:\n%s", f.path, got)
		}
		if rec, _ := txnlog.Load(root, tr.ID); rec.UndoneBy != undo.ID {
			t.Errorf("record not marked undone: %+v", rec)
		}
		if tr, _, err = txnInvoke(t, e, "edit_file", edit); err != nil {
			t.Fatal(err)
		}
		later := readFile(t, root, f.path) + f.comment + " later\n"
		os.WriteFile(filepath.Join(root, f.path), []byte(later), 0o644)
		_, err = txnlog.Undo(context.Background(), root, tr.ID)
		wantCode(t, err, failure.Precondition, "")
		if got := readFile(t, root, f.path); got != later {
			t.Errorf("a refused undo wrote %s", f.path)
		}
	})
}

func TestPyrightTransactions(t *testing.T) {
	requireTool(t, "pyright-langserver")
	root := copyTree(t, filepath.Join("testdata", "pypkg"))
	e := openEngine(t, root, "python", pyrightConfig)
	files := []string{"zoo/keeper.py", "zoo/animals.py"}
	runTxnCases(t, e, root, files, []txnCase{
		{name: "breaking edit rejected", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": "zoo/keeper.py", "edits": []map[string]string{{"old_text": "    return greet(Dog())", "new_text": "    return greet(Dog()) + 1"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if !hasDiag(tr.Delta.New, "zoo/keeper.py", diagnostic.Error, `Operator "+"`) {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged("zoo/keeper.py")(t, root, nil, nil, before)
			}},
		{name: "dependent file breaks", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": "zoo/animals.py", "edits": []map[string]string{{"old_text": "class Dog(Animal):", "new_text": "class Hound(Animal):"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if !hasDiag(tr.Delta.New, "zoo/keeper.py", diagnostic.Error, "Dog") {
					t.Logf("pyright did not report the dependent keeper.py: %+v", tr.Delta.New)
				}
				unchanged("zoo/animals.py")(t, root, nil, nil, before)
			}},
		{name: "dry run writes nothing", op: "edit_file",
			input: map[string]any{"file": "zoo/keeper.py", "dry_run": true, "edits": []map[string]string{{"old_text": "    return greet(Dog())", "new_text": "    return greet(Dog()) + 1"}}},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, before map[string]string) {
				if tr.Applied || tr.Rejected == "" || len(tr.Delta.New) == 0 {
					t.Errorf("dry run = %+v", tr)
				}
				unchanged("zoo/keeper.py")(t, root, nil, nil, before)
			}},
		{name: "fixing edit accepted", op: "edit_file",
			input: map[string]any{"file": "zoo/keeper.py", "edits": []map[string]string{{"old_text": `count: int = "many"`, "new_text": "count: int = 3"}}},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, _ map[string]string) {
				if !tr.Applied || tr.ID == "" || len(tr.Delta.Fixed) == 0 || !hasDiag(tr.Delta.Fixed, "zoo/keeper.py", diagnostic.Error, "") || len(tr.Delta.New) != 0 {
					t.Errorf("fix = %+v", tr)
				}
				if !strings.Contains(readFile(t, root, "zoo/keeper.py"), "count: int = 3\n") {
					t.Errorf("keeper.py not written")
				}
			}},
	})
	sharedTxnTests(t, e, root, txnFile{path: "zoo/keeper.py", anchors: [2]string{"def greet(animal: Animal) -> str:", "def morning() -> str:"}, comment: "#"})
}

// TestFakeRoslynTransactions runs transactions in the roslyn-language-server
// dialect, which no server on this machine speaks: against the scripted
// Roslyn peer, which pulls diagnostics (CS1002) on the text of open
// documents, overlays included. Transactions on real C# semantics are
// TestCSharpLSTransactions's, on csharp-ls.
func TestFakeRoslynTransactions(t *testing.T) {
	cfg, _ := fakeConfig(t, "roslyn")
	cfg.RootMarkers = []string{"*.sln", "*.slnx", "*.csproj"}
	root := copyTree(t, roslyntest.Shapes())
	e := openEngine(t, root, "csharp", cfg)
	const report, broken = "src/Shapes.App/Report.cs", "src/Shapes.App/Broken.cs"
	runTxnCases(t, e, root, []string{report, broken}, []txnCase{
		{name: "breaking edit rejected", op: "edit_file", code: failure.DiagnosticRegression,
			input: map[string]any{"file": report, "edits": []map[string]string{{"old_text": "calculator.TotalArea(shapes);", "new_text": "calculator.TotalArea(shapes)"}}},
			check: func(t *testing.T, root string, _ *TxnResult, err error, before map[string]string) {
				tr := rejected(t, err)
				if len(tr.Delta.New) != 1 || tr.Delta.New[0] != (diagnostic.Diagnostic{Path: report, Line: 11, Column: 52, EndLine: 11, EndColumn: 52,
					Severity: diagnostic.Error, Code: "CS1002", Message: "; expected", Source: "csharp"}) {
					t.Errorf("delta = %+v", tr.Delta)
				}
				unchanged(report)(t, root, nil, nil, before)
			}},
		{name: "dry run writes nothing", op: "edit_file",
			input: map[string]any{"file": broken, "dry_run": true, "edits": []map[string]string{{"old_text": "value * 2\n", "new_text": "value * 2;\n"}}},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, before map[string]string) {
				if tr.Applied || len(tr.Delta.Fixed) != 1 {
					t.Errorf("dry run = %+v", tr)
				}
				unchanged(broken)(t, root, nil, nil, before)
			}},
		{name: "fixing edit accepted", op: "edit_file",
			input: map[string]any{"file": broken, "edits": []map[string]string{{"old_text": "value * 2\n", "new_text": "value * 2;\n"}}},
			check: func(t *testing.T, root string, tr *TxnResult, _ error, _ map[string]string) {
				if !tr.Applied || tr.ID == "" || !hasDiag(tr.Delta.Fixed, broken, diagnostic.Error, "; expected") || len(tr.Delta.New) != 0 {
					t.Errorf("fix = %+v", tr)
				}
				out := mustInvoke(t, e, "diagnostics", map[string]any{"file": broken})
				if n := len(out["diagnostics"].([]any)); n != 0 {
					t.Errorf("Broken.cs still has diagnostics: %s", dump(out))
				}
			}},
		{name: "rename through a transaction", op: "rename",
			input: map[string]any{"symbol": "Report", "newName": "Summary", "apply": true},
			check: func(t *testing.T, root string, _ *TxnResult, _ error, _ map[string]string) {
				if !strings.Contains(readFile(t, root, report), "public class Summary") {
					t.Errorf("rename did not write Report.cs")
				}
			}},
	})
	sharedTxnTests(t, e, root, txnFile{path: report, anchors: [2]string{"double total = calculator.TotalArea(shapes);", "private readonly AreaCalculator calculator = new AreaCalculator();"}, comment: "//"})
}

// Every operation that writes goes through a transaction and says so in
// its description: side effect workspace, the transaction failure codes,
// and the policy and dry_run inputs.
func TestTransactionOperationsDescribed(t *testing.T) {
	want := map[string]bool{"edit_file": true, "rename": true, "code_actions": true, "organize_imports": true, "format": true}
	for _, op := range Operations() {
		if !want[op.Name] {
			continue
		}
		delete(want, op.Name)
		if op.SideEffects != "workspace" {
			t.Errorf("%s: side effects %q, want workspace", op.Name, op.SideEffects)
		}
		for _, code := range []failure.Code{failure.DiagnosticRegression, failure.Precondition, failure.WorkspaceApplyFailed, failure.AnchorNotResolved} {
			if !strings.Contains(strings.Join(op.FailureCodes, ","), string(code)) {
				t.Errorf("%s: failure codes %v lack %s", op.Name, op.FailureCodes, code)
			}
		}
		var schema struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(op.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if p, ok := schema.Properties["policy"]; !ok || strings.Join(p.Enum, ",") != "new_errors,new_warnings,never" {
			t.Errorf("%s: policy input = %+v", op.Name, p)
		}
		if _, ok := schema.Properties["dry_run"]; !ok {
			t.Errorf("%s: no dry_run input", op.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("operations missing from the catalogue: %v", want)
	}
}

// A server that publishes no diagnostics for an edited file (a loaded
// gopls, now and then, late under load) leaves the edit unchecked: the
// transaction fails closed, saying so, and writes nothing. The server is
// real gopls behind a proxy that drops its publications.
func TestTxnFailsClosedWithoutDiagnostics(t *testing.T) {
	requireTool(t, "gopls")
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		t.Fatal(err)
	}
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	cfg := goplsConfig
	cfg.Command = lsptest.Build(t, "github.com/langhost/langhost/internal/lsptest/muteproxy")
	cfg.Args = []string{"-drop", "textDocument/publishDiagnostics", "--", gopls}
	e := openEngine(t, root, "go", cfg)
	before := readFile(t, root, "calc/calc.go")
	edit := map[string]any{"file": "calc/calc.go", "edits": []map[string]string{{"old_text": "\treturn total\n", "new_text": "\treturn \"total\"\n"}}}
	_, err = invokeConfirmed(t, e, "edit_file", edit)
	fe := wantCode(t, err, failure.Timeout, "")
	if fe != nil && (!strings.Contains(fe.Message, "published no diagnostics") || !strings.Contains(fe.Message, "calc/calc.go") || !strings.Contains(fe.Message, "nothing was written")) {
		t.Errorf("message = %q, want that the edit of calc/calc.go could not be checked", fe.Message)
	}
	if got := readFile(t, root, "calc/calc.go"); got != before {
		t.Errorf("calc/calc.go was written although unchecked:\n%s", got)
	}
}
