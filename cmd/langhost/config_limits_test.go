package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUntrustedLimitsCLI: a cloned repository's .langhost.yaml cannot
// remove or loosen the user's limits with timeout: 0s (0 is "no limit"),
// negative or unparsable values: each is ignored with a warning naming
// file:line:col and the key, and the user's values stay in force; a
// smaller positive value applies.
func TestUntrustedLimitsCLI(t *testing.T) {
	c := newCLI(t)
	c.ws = t.TempDir()
	cfg := filepath.Join(c.ws, ".langhost.yaml")
	write(t, cfg, "timeout: 0s\nmax_output: -1\ndaemon:\n  idle_timeout: forever\nspec:\n  max_size: 4096\n")
	o := c.run("config", "show")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{
		cfg + ":1:1: timeout ignored (it would remove the limit",
		cfg + ":2:1: max_output ignored (it would remove the limit",
		cfg + ":4:3: daemon.idle_timeout ignored (it is not a valid limit",
	} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	got := map[string]any{}
	for _, v := range o.env.Data.(map[string]any)["values"].([]any) {
		m := v.(map[string]any)
		got[m["key"].(string)] = m["value"]
	}
	if got["timeout"] != "10m0s" || got["max_output"] != float64(1<<20) || got["daemon.idle_timeout"] != "10m0s" || got["spec.max_size"] != float64(4096) {
		t.Errorf("effective limits = timeout %v, max_output %v, idle %v, spec.max_size %v", got["timeout"], got["max_output"], got["daemon.idle_timeout"], got["spec.max_size"])
	}
}
