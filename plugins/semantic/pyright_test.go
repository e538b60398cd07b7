package semantic

import (
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestPyright(t *testing.T) {
	e, _ := pyEngine(t)
	t.Run("find_symbol", func(t *testing.T) {
		out := mustInvoke(t, e, "find_symbol", map[string]any{"query": "speak", "kind": "method"})
		if get(t, out, "total") != 3 || locOf(t, out, "symbols.1") != "zoo/animals.py:7:9" || get(t, out, "symbols.1.container") != "Dog" {
			t.Errorf("symbols = %s", dump(out))
		}
	})
	t.Run("symbol_info with container", func(t *testing.T) {
		out := mustInvoke(t, e, "symbol_info", map[string]any{"symbol": "speak", "container": "Puppy"})
		if locOf(t, out, "definition") != "zoo/animals.py:12:9" || get(t, out, "container") != "Puppy" {
			t.Errorf("info = %s", dump(out))
		}
	})
	t.Run("find_references", func(t *testing.T) {
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "greet"})
		if get(t, out, "total") != 1 || locOf(t, out, "references.0") != "zoo/keeper.py:9:12" || get(t, out, "references.0.containing_member") != "morning" {
			t.Errorf("references = %s", dump(out))
		}
	})
	t.Run("find_callers", func(t *testing.T) {
		out := mustInvoke(t, e, "find_callers", map[string]any{"file": "zoo/keeper.py", "line": 4, "column": 5})
		if locOf(t, out, "target") != "zoo/keeper.py:4:5" || get(t, out, "callers.0.name") != "morning" || locOf(t, out, "callers.0.call_sites.0") != "zoo/keeper.py:9:12" {
			t.Errorf("callers = %s", dump(out))
		}
	})
	t.Run("diagnostics", func(t *testing.T) {
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": "zoo/keeper.py"})
		if get(t, out, "counts.error") != 1 || diagLoc(t, out, "diagnostics.0") != "zoo/keeper.py:13:18" || get(t, out, "diagnostics.0.code") != "reportAssignmentType" {
			t.Errorf("diagnostics = %s", dump(out))
		}
	})
	t.Run("type_members and get_source", func(t *testing.T) {
		out := mustInvoke(t, e, "type_members", map[string]any{"symbol": "Dog"})
		if get(t, out, "members.0.name") != "speak" || get(t, out, "members.0.line") != 7 {
			t.Errorf("members = %s", dump(out))
		}
		src := mustInvoke(t, e, "get_source", map[string]any{"symbol": "Dog"})
		if !strings.HasPrefix(get(t, src, "source").(string), "class Dog(Animal):\n    def speak") || get(t, src, "line") != 6 {
			t.Errorf("source = %s", dump(src))
		}
	})
	t.Run("rename preview", func(t *testing.T) {
		out := mustInvoke(t, e, "rename", map[string]any{"symbol": "greet", "newName": "welcome"})
		d := get(t, out, "diff").(string)
		if !strings.Contains(d, "-def greet(animal: Animal) -> str:\n+def welcome(animal: Animal) -> str:\n") || !strings.Contains(d, "+    return welcome(Dog())\n") {
			t.Errorf("diff = %s", d)
		}
	})
	t.Run("unsupported operations say so", func(t *testing.T) {
		for _, op := range []string{"type_hierarchy", "find_implementations", "format"} {
			in := map[string]any{"symbol": "Dog"}
			if op == "format" {
				in = map[string]any{"file": "zoo/animals.py"}
			}
			_, err := invoke(t, e, op, in)
			fe := wantCode(t, err, failure.Unsupported, "")
			if !strings.Contains(fe.Message, "does not support textDocument/") {
				t.Errorf("%s: %q", op, fe.Message)
			}
		}
	})
}
