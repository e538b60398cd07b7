package builtin_test

import (
	"context"
	"testing"

	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestBuiltinDescriptionsAreValid: what the built-in agents describe is
// what the host accepts from any plugin.
func TestBuiltinDescriptionsAreValid(t *testing.T) {
	for name, agent := range builtin.Agents() {
		t.Run(name, func(t *testing.T) {
			d, err := agent(nil).Describe(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Fatalf("%s describes what the host refuses: %v", name, err)
			}
			if d.Name != name || len(d.Operations) == 0 {
				t.Errorf("description = %s with %d operations", d.Name, len(d.Operations))
			}
		})
	}
}

func TestServeUnknown(t *testing.T) {
	err := builtin.Serve("nope")
	if failure.CodeOf(err) != failure.NotFound || err.Error() != `no built-in plugin "nope" (have: roslyn, semantic)` {
		t.Errorf("Serve(nope) = %v", err)
	}
}
