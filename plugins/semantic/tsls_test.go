package semantic

import (
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestTypeScriptLanguageServer(t *testing.T) {
	e, _ := tsEngine(t)
	t.Run("find_symbol", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "area", "kind": "method"})
		if get(t, out, "total") != 3 || locOf(t, out, "symbols.0") != "src/shape.ts:2:3" ||
			locOf(t, out, "symbols.1") != "src/circle.ts:6:3" || locOf(t, out, "symbols.2") != "src/square.ts:6:3" {
			t.Errorf("symbols = %s", dump(out))
		}
	})
	t.Run("symbol_info with a container the server does not send", func(t *testing.T) {
		out := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "area", "container": "Square"})
		if locOf(t, out, "definition") != "src/square.ts:6:3" || get(t, out, "container") != "Square" ||
			!strings.Contains(get(t, out, "hover").(string), "(method) Square.area(): number") {
			t.Errorf("info = %s", dump(out))
		}
		_, err := invoke(t, e, "symbol_info", map[string]any{"symbol": "area"})
		wantCode(t, err, failure.Ambiguous, "symbol")
	})
	t.Run("find_implementations", func(t *testing.T) {
		out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "Shape", "kind": "interface"})
		if get(t, out, "total") != 2 || locOf(t, out, "implementations.0") != "src/circle.ts:3:14" ||
			locOf(t, out, "implementations.1") != "src/square.ts:3:14" || get(t, out, "implementations.1.name") != "Square" {
			t.Errorf("implementations = %s", dump(out))
		}
	})
	// A private member's name starts with '#', which is not the "#n"
	// overload selector: the harness found ky's #retryFromError refused
	// as an invalid name path.
	t.Run("private member by name", func(t *testing.T) {
		for _, name := range []string{"#step", "Counter/#step", "#step#1"} {
			out := mustInvoke(t, e, "find_references", map[string]any{"symbol": name})
			if get(t, out, "total") != 1 || locOf(t, out, "references.0") != "src/counter.ts:10:17" {
				t.Errorf("%s: references = %s", name, dump(out))
			}
			info := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": name})
			if locOf(t, info, "definition") != "src/counter.ts:4:3" {
				t.Errorf("%s: info = %s", name, dump(info))
			}
		}
	})
	t.Run("find_references", func(t *testing.T) {
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "totalArea", "includeDeclaration": true})
		if get(t, out, "total") != 2 || locOf(t, out, "references.0") != "src/calc.ts:5:17" ||
			locOf(t, out, "references.1") != "src/calc.ts:14:10" || get(t, out, "references.1.containing_member") != "c" ||
			get(t, out, "references.1.snippet") != "return totalArea([new Circle(1), new Square(2)]);" {
			t.Errorf("references = %s", dump(out))
		}
	})
	t.Run("find_callers", func(t *testing.T) {
		out := mustInvoke(t, e, "find_callers", map[string]any{"symbol": "c", "depth": 2})
		if locOf(t, out, "target") != "src/calc.ts:13:17" || get(t, out, "callers.0.name") != "b" ||
			locOf(t, out, "callers.0.call_sites.0") != "src/calc.ts:11:38" || get(t, out, "callers.0.callers.0.name") != "a" {
			t.Errorf("callers = %s", dump(out))
		}
	})
	t.Run("diagnostics", func(t *testing.T) {
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "src/calc.ts"})
		if get(t, out, "counts.error") != 1 || diagLoc(t, out, "diagnostics.0") != "src/calc.ts:17:14" || get(t, out, "diagnostics.0.code") != "2322" {
			t.Errorf("diagnostics = %s", dump(out))
		}
	})
	t.Run("code action adds a missing import", func(t *testing.T) {
		out := mustInvoke(t, e, "code_actions", map[string]any{"file": "src/usage.ts", "line": 2, "column": 14, "preview": `Add import from "./circle.js"`})
		if d := get(t, out, "diff").(string); !strings.Contains(d, "+import { Circle } from \"./circle.js\";\n") {
			t.Errorf("diff = %s", d)
		}
	})
	t.Run("format keeps the file's indentation", func(t *testing.T) {
		out := mustInvoke(t, e, "format", map[string]any{"file": "src/messy.ts"})
		want := "export function messy(x: number) {\n  if (x > 1) {\n    return x + 1;\n  }\n  return x;\n}\n"
		if get(t, out, "changed") != true || get(t, out, "newText") != want {
			t.Errorf("format = %s", dump(out))
		}
	})
	t.Run("rename preview", func(t *testing.T) {
		out := mustInvoke(t, e, "rename", map[string]any{"symbol": "Circle", "kind": "class", "newName": "Round"})
		d := get(t, out, "diff").(string)
		for _, want := range []string{"+export class Round implements Shape {\n", "+import { Round } from \"./circle.js\";\n", "+  return totalArea([new Round(1), new Square(2)]);\n"} {
			if !strings.Contains(d, want) {
				t.Errorf("diff lacks %q:\n%s", want, d)
			}
		}
	})
	t.Run("unsupported operations say so", func(t *testing.T) {
		_, err := invoke(t, e, "type_hierarchy", map[string]any{"symbol": "Shape"})
		if fe := wantCode(t, err, failure.Unsupported, ""); !strings.Contains(fe.Message, "textDocument/prepareTypeHierarchy") {
			t.Errorf("type_hierarchy: %q", fe.Message)
		}
	})
}
