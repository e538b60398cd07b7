package semantic

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

var sharedShop shared

// shopEngine is the shared csharp-ls on a copy of testdata/shop: a
// solution of a library (a partial class, a generic method, a doc
// commented member, 280 symbols whose names start with Cart, a file the
// application links in) and an application using it.
func shopEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	requireCSharpLS(t)
	return sharedShop.get(t, "csharp-ls", filepath.Join("testdata", "shop"), nil, "csharp", csharpLSConfig)
}

// TestCSharpLSAnswersTrue: the answers agree with what csharp-ls knows,
// where its own answer is cut (workspace/symbol's cap of 100), a generic
// method is asked for by its bare name, a position is in a doc comment,
// or one declaration is reported several times.
func TestCSharpLSAnswersTrue(t *testing.T) {
	e, _ := shopEngine(t)

	t.Run("capped find_symbol says so", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Cart", "limit": 500})
		if out["complete"] != false || out["truncated"] != true || !strings.Contains(fmt.Sprint(out["incomplete"]), "cap") {
			t.Errorf("find_symbol Cart: total %v, complete %v, truncated %v, incomplete %v", out["total"], out["complete"], out["truncated"], out["incomplete"])
		}
	})
	t.Run("a name the capped answer may miss resolves", func(t *testing.T) {
		for _, op := range []string{"symbol_info", "find_references"} {
			out := mustInvoke(t, e, op, map[string]any{"symbol": "Cart"})
			t.Logf("%s Cart: %.300s", op, dump(out))
		}
		out := mustInvoke(t, e, "rename_symbol", map[string]any{"symbol": "Cart", "new_name": "Basket", "dry_run": true})
		if d := fmt.Sprint(out["diff"]); !strings.Contains(d, "Program.cs") || !strings.Contains(d, "Cart.Totals.cs") {
			t.Errorf("rename_symbol Cart: %.600s", dump(out))
		}
	})
	t.Run("generic method by bare name", func(t *testing.T) {
		for _, op := range []string{"symbol_info", "find_references"} {
			if _, err := invoke(t, e, op, map[string]any{"symbol": "FromResult"}); err != nil {
				t.Errorf("%s FromResult: %v", op, err)
			}
		}
		refs := mustInvoke(t, e, "find_references", map[string]any{"symbol": "FromResult", "detail": "compact"})
		if !strings.Contains(dump(refs), "Program.cs") {
			t.Errorf("find_references FromResult misses Program.cs: %s", dump(refs))
		}
	})
	t.Run("containing_member in a doc comment", func(t *testing.T) {
		// Line 8 is "/// <summary>Adds items.</summary>" above Add.
		out := mustInvoke(t, e, "containing_member", map[string]any{"file": "src/Shop.Core/Cart.cs", "line": 8, "column": 10})
		if name := fmt.Sprint(get(t, out, "member.name")); !strings.HasPrefix(name, "Add") || get(t, out, "member.line") != 10 {
			t.Errorf("containing_member in Add's doc comment: %s", dump(out))
		}
		// Inside the body it is still Add; between members the class.
		out = mustInvoke(t, e, "containing_member", map[string]any{"file": "src/Shop.Core/Cart.cs", "line": 12, "column": 9})
		if name := fmt.Sprint(get(t, out, "member.name")); !strings.HasPrefix(name, "Add") {
			t.Errorf("containing_member in Add's body: %s", dump(out))
		}
	})
	t.Run("a partial class is one implementation", func(t *testing.T) {
		out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "ICart"})
		if get(t, out, "total") != 1 || get(t, out, "implementations.0.name") != "Cart" {
			t.Errorf("find_implementations ICart: %s", dump(out))
		}
	})
	t.Run("same-named nested types are two", func(t *testing.T) {
		// Found on Newtonsoft.Json: three RegexTestClass classes, nested in
		// three test classes, were listed as one.
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Memo", "kind": "class"})
		if get(t, out, "total") != 2 {
			t.Errorf("find_symbol Memo: %s", dump(out))
		}
		if _, err := invoke(t, e, "symbol_info", map[string]any{"symbol": "Memo"}); failure.CodeOf(err) != failure.Ambiguous {
			t.Errorf("symbol_info Memo: want ambiguous_target, got %v", err)
		}
		// A partial type is one symbol; its other part is listed with it,
		// as the server's answer lists both.
		out = mustInvoke(t, e, "find_symbol", map[string]any{"query": "Ledger", "kind": "class"})
		if get(t, out, "total") != 1 || get(t, out, "symbols.0.line") != 16 || get(t, out, "symbols.0.parts.0.line") != 18 {
			t.Errorf("find_symbol Ledger: %s", dump(out))
		}
	})
	t.Run("a linked file's method once", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "Stamp"})
		if get(t, out, "total") != 1 {
			t.Errorf("find_symbol Stamp: %s", dump(out))
		}
	})
}

// TestCSharpLSProjectOfSolution: a workspace that is one project of a
// solution outside it says so in every answer, and refuses writes, whose
// effect on the other projects the server cannot check.
func TestCSharpLSProjectOfSolution(t *testing.T) {
	requireCSharpLS(t)
	root := copyTree(t, filepath.Join("testdata", "shop"))
	e := openEngine(t, filepath.Join(root, "src", "Shop.Core"), "csharp", csharpLSConfig)
	out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "Stamp"})
	if out["complete"] != false || !strings.Contains(fmt.Sprint(out["incomplete"]), "Shop.sln") {
		t.Errorf("find_references in one project: not incomplete for want of the solution: %s", dump(out))
	}
	info := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "Stamp"})
	if !strings.Contains(fmt.Sprint(info["warnings"]), "Shop.sln") {
		t.Errorf("symbol_info in one project: no warning naming the solution: %s", dump(info))
	}
	_, err := invoke(t, e, "rename", map[string]any{"symbol": "Stamp", "new_name": "Now", "apply": true})
	if fe := wantCode(t, err, failure.Precondition, ""); fe != nil && !strings.Contains(fe.Message, "Shop.sln") {
		t.Errorf("rename in one project: %v", err)
	}
}
