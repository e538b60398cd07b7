package plugins_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host/plugins"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestDescribeBuiltinOncePerHost: the languages a built-in plugin serves
// (one config each) cost one in-process description per host, with an
// empty cache too, and one cache file: the agent is not told the config.
// A later host with that cache asks the agent nothing, and reads the file
// once for every language; a rebuilt executable is described again.
func TestDescribeBuiltinOncePerHost(t *testing.T) {
	var described int
	agent := func(hclog.Logger) pluginapi.Agent { described++; return fakeAgent{} }
	cache := filepath.Join(t.TempDir(), "describe")
	// The agent runs in-process; the executable only keys the cache.
	exe := filepath.Join(t.TempDir(), "langhost")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	launch := plugins.Launch{Name: "fake", Path: exe, Args: []string{"plugin", "serve", "fake"}, Builtin: "fake"}
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
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache holds %d files (%v), want one for the built-in plugin", len(entries), err)
	}
	ds := describeAll()
	if described != 1 {
		t.Errorf("a host with a warm cache asked the built-in agent again (%d times in all)", described)
	}
	// Decoded once from the cache, shared by the languages.
	if ds[0] != ds[1] || ds[1] != ds[2] {
		t.Errorf("the same cached description was decoded once per language")
	}

	// A rebuilt langhost has another modification time: its agent may
	// describe other operations.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(exe, later, later); err != nil {
		t.Fatal(err)
	}
	describeAll()
	if described != 2 {
		t.Errorf("the built-in agent was asked %d times in all, want 2: a rebuilt executable must be described anew", described)
	}
}

// TestDescribeBuiltinChecked: a built-in agent's description is checked
// as a cached one is (names, sizes, schemas that are JSON objects) before
// it is served or cached.
func TestDescribeBuiltinChecked(t *testing.T) {
	bad := func(hclog.Logger) pluginapi.Agent { return badAgent{} }
	cache := filepath.Join(t.TempDir(), "describe")
	m := plugins.NewManager(nil, plugins.WithBuiltins(plugins.Builtins{"bad": bad}), plugins.WithDescribeCache(cache))
	defer m.Close()
	launch, err := plugins.Builtin("bad")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := m.Describe(context.Background(), launch, nil); failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), "../one") {
		t.Errorf("Describe = %+v, %v; want invalid_input naming the operation, as from a plugin process", d, err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("a refused description was cached: %v", entries)
	}
}

type badAgent struct{ pluginapi.Agent }

func (badAgent) Describe(context.Context) (*pluginapi.Description, error) {
	return &pluginapi.Description{Name: "bad", Operations: []pluginapi.Operation{{Name: "../one"}}}, nil
}

// TestBuiltinDescribedInProcessAsByItsProcess: what the host describes
// in-process for a built-in plugin, and reads back from the cache, is
// what the plugin process answers (and that answer passes the full
// validation of an external plugin's).
func TestBuiltinDescribedInProcessAsByItsProcess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "describe")
	for name := range builtin.Agents() {
		t.Run(name, func(t *testing.T) {
			external := plugins.NewManager(nil, plugins.WithDescribeCache(""))
			defer external.Close()
			fromProcess, err := external.Describe(context.Background(),
				plugins.Launch{Name: name, Path: exe, Args: []string{"plugin", "serve", name}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			launch, err := plugins.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range []string{"in-process", "from the cache"} {
				m := plugins.NewManager(nil, plugins.WithBuiltins(builtin.Agents()), plugins.WithDescribeCache(cache))
				d, err := m.Describe(context.Background(), launch, json.RawMessage(`{"language":"go"}`))
				m.Close()
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				if got, want := mustJSON(t, d), mustJSON(t, fromProcess); got != want {
					t.Errorf("%s: the description differs from the plugin process's (%d and %d bytes)", step, len(got), len(want))
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
