package semantictool_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/plugins/semantic"
)

// TestSpecCarriesEveryEngineSetting keeps the spec's servers and the
// engine's Config from drifting apart: each candidate server travels to the
// plugin as JSON (spec.Semantic.MarshalJSON), so a key the spec cannot
// express could never be set.
func TestSpecCarriesEveryEngineSetting(t *testing.T) {
	// untrusted is the host's, from the user's trust, never a spec's.
	specKeys := map[string]bool{"servers": true, "untrusted": true}
	for f := range reflect.TypeFor[spec.Server]().Fields() {
		specKeys[jsonName(f)] = true
	}
	for f := range reflect.TypeFor[semantic.Config]().Fields() {
		if name := jsonName(f); name != "" && !specKeys[name] {
			t.Errorf("semantic.Config has %q but the spec's semantic block does not", name)
		}
	}
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}
