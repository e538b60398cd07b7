package semantic

import (
	"testing"
)

// The operations on types and members against gopls: Go has no classes,
// so subclasses are the types implementing an interface and overrides
// are the methods implementing an interface method.
func TestGoplsTypeOperations(t *testing.T) {
	e, _ := goEngine(t)

	t.Run("find_subclasses", func(t *testing.T) {
		out := mustInvoke(t, e, "find_subclasses", map[string]any{"symbol": "Shape", "kind": "interface"})
		if get(t, out, "total") != 2 || get(t, out, "subclasses.0.name") != "Circle" || locOf(t, out, "subclasses.1") != "square/square.go:5:6" || get(t, out, "subclasses.0.base") != "Shape" {
			t.Errorf("subclasses = %s", dump(out))
		}
	})
	t.Run("find_overrides", func(t *testing.T) {
		out := mustInvoke(t, e, "find_overrides", map[string]any{"file": "shape/shape.go", "line": 6, "column": 2})
		if get(t, out, "total") != 2 || locOf(t, out, "overrides.0") != "circle/circle.go:10:17" || locOf(t, out, "overrides.1") != "square/square.go:10:18" {
			t.Errorf("overrides = %s", dump(out))
		}
	})
	t.Run("find_usages", func(t *testing.T) {
		out := mustInvoke(t, e, "find_usages", map[string]any{"symbol": "Shape", "kind": "interface"})
		if get(t, out, "total").(int) < 1 || get(t, out, "by_usage.reference").(int) < 1 {
			t.Errorf("usages = %s", dump(out))
		}
	})
	t.Run("method_overloads", func(t *testing.T) {
		out := mustInvoke(t, e, "method_overloads", map[string]any{"symbol": "Circle/Area"})
		if get(t, out, "total") != 1 || locOf(t, out, "overloads.0") != "circle/circle.go:10:17" {
			t.Errorf("overloads = %s", dump(out))
		}
	})
	t.Run("load_status", func(t *testing.T) {
		out := mustInvoke(t, e, "load_status", map[string]any{})
		if get(t, out, "server") != "gopls" || get(t, out, "complete") != true || get(t, out, "root") != "." {
			t.Errorf("load status = %s", dump(out))
		}
	})
}
