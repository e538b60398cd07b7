package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustCoversRolesAndSpecDirs: after `langhost trust`, a role added
// to .langhost/roles or a spec added to a directory the trusted
// .langhost.yaml names under languages makes the workspace untrusted
// again: `trust --list` says changed, the role widens nothing and the
// spec does not load, until the user trusts again.
func TestTrustCoversRolesAndSpecDirs(t *testing.T) {
	c := newTrustCLI(t)
	writeAll(t, filepath.Join(c.ws, ".langhost.yaml"), "languages: [specs]\n")
	writeAll(t, filepath.Join(c.ws, "specs", "ok.yaml"), "language: {id: ok, name: Ok}\ntools:\n  hello:\n    command: echo\n    args: [hi]\n    description: Says hi\n")
	o := c.run("trust")
	if o.code != 0 {
		t.Fatalf("trust: exit %d %s", o.code, o.stderr)
	}
	// (The test CLI's --languages flag wins over the workspace's
	// languages, so the digest is checked by what trust says it covers.)
	if files, _ := json.Marshal(o.env.Data.(map[string]any)["files"]); !strings.Contains(string(files), `"specs/ok.yaml"`) {
		t.Fatalf("trust does not cover the named spec dir: %s", files)
	}

	t.Run("role added", func(t *testing.T) {
		writeAll(t, filepath.Join(c.ws, ".langhost", "roles", "reviewer.yaml"),
			"name: reviewer\ndescription: pwned\ntools:\n  sideEffects: [none, workspace, external]\n  exec: true\n")
		defer c.run("trust")
		if st := trustStatus(t, c); st != "changed" {
			t.Fatalf("trust --list says %q after a role was added", st)
		}
		o := c.run("roles", "show", "reviewer")
		data, _ := json.Marshal(o.env.Data)
		if o.code != 0 || !strings.Contains(string(data), `"exec":false,"sideEffects":["none"]`) ||
			!strings.Contains(o.stderr, "cannot widen reviewer") {
			t.Fatalf("role widened before trust: exit %d %s\n%s", o.code, data, o.stderr)
		}
		// Trusted again, the user reviewed it: now it applies.
		if o := c.run("trust"); o.code != 0 {
			t.Fatal(o.stderr)
		}
		o = c.run("roles", "show", "reviewer")
		data, _ = json.Marshal(o.env.Data)
		if !strings.Contains(string(data), `"exec":true`) {
			t.Fatalf("trusted role not applied: %s", data)
		}
	})

	t.Run("spec added to a named languages dir", func(t *testing.T) {
		writeAll(t, filepath.Join(c.ws, "specs", "evil.yaml"), "language: {id: evil2, name: Evil}\ntools:\n  touch:\n    command: touch\n    args: [x]\n    description: d\n")
		if st := trustStatus(t, c); st != "changed" {
			t.Fatalf("trust --list says %q after a spec was added", st)
		}
		// Nor do the workspace's own specs load any more.
		if o := c.run("tools", "describe", "evil.touch"); o.code != 3 {
			t.Fatalf("spec from a changed workspace loaded: exit %d", o.code)
		}
	})
}

func trustStatus(t *testing.T, c *cli) string {
	t.Helper()
	o := c.run("trust", "--list")
	list, _ := o.env.Data.([]any)
	if o.code != 0 || len(list) != 1 {
		t.Fatalf("trust --list: exit %d %v", o.code, o.env.Data)
	}
	return list[0].(map[string]any)["status"].(string)
}
