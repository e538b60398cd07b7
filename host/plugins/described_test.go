package plugins_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/plugins/pluginapi"
)

// TestDescribeBuiltinOncePerHost: the languages a built-in plugin serves
// (one config each) cost one in-process description and validation per
// host, with an empty cache too; each language still gets its own cache
// file, and a later host with that cache asks the agent nothing.
func TestDescribeBuiltinOncePerHost(t *testing.T) {
	var described int
	agent := func(hclog.Logger) pluginapi.Agent { described++; return fakeAgent{} }
	cache := filepath.Join(t.TempDir(), "describe")
	launch, err := plugins.Builtin("fake")
	if err != nil {
		t.Fatal(err)
	}
	configs := []string{`{"language":"go"}`, `{"language":"python"}`, `{"language":"rust"}`}
	describeAll := func() []*pluginapi.Description {
		m := plugins.NewManager(nil, plugins.WithBuiltins(plugins.Builtins{"fake": agent}), plugins.WithDescribeCache(cache))
		defer m.Close()
		var ds []*pluginapi.Description
		for _, cfg := range configs {
			d, err := m.Describe(context.Background(), launch, json.RawMessage(cfg))
			if err != nil || opNames(d) != "one" {
				t.Fatalf("Describe(%s) = %+v, %v", cfg, d, err)
			}
			ds = append(ds, d)
		}
		return ds
	}
	describeAll()
	if described != 1 {
		t.Errorf("the built-in agent was asked %d times for %d languages, want once", described, len(configs))
	}
	entries, err := os.ReadDir(cache)
	if err != nil || len(entries) != len(configs) {
		t.Fatalf("cache holds %d files (%v), want one per language (%d)", len(entries), err, len(configs))
	}
	ds := describeAll()
	if described != 1 {
		t.Errorf("a host with a warm cache asked the built-in agent again (%d times in all)", described)
	}
	// Decoded once from the cache, shared by the languages.
	if ds[0] != ds[1] || ds[1] != ds[2] {
		t.Errorf("the same cached description was decoded once per language")
	}
}
