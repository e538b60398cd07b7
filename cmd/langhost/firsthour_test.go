package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// files writes a workspace of empty files (and a directory for a name
// ending in /) and returns its root.
func files(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A root Makefile beside go.mod and Go sources (cli/cli) makes a Go
// project, not a C one; `languages --detected` says why, on stdout only.
func TestLanguagesDetected(t *testing.T) {
	c := newCLI(t)
	c.ws = files(t, "Makefile", "go.mod", "main.go", "pkg/cmd/a.go", "pkg/cmd/b.go")
	o := c.run("languages", "--detected")
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	var res struct {
		Languages []struct {
			ID      string
			Files   int
			Project bool
			Reasons []string
		}
		Ignored []struct {
			ID      string
			Reasons []string
		}
	}
	b, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Languages) != 1 || res.Languages[0].ID != "go" || res.Languages[0].Files != 3 || !res.Languages[0].Project {
		t.Errorf("languages %+v", res.Languages)
	}
	if len(res.Ignored) != 1 || res.Ignored[0].ID != "c" || !strings.Contains(strings.Join(res.Ignored[0].Reasons, ""), "Makefile is a project file, but") {
		t.Errorf("ignored %+v", res.Ignored)
	}

	c.json = false
	o = c.run("languages", "--detected")
	if o.code != 0 || o.stderr != "" || !strings.Contains(o.stdout, "3 files with extension .go") ||
		!strings.Contains(o.stdout, "ignored") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", o.code, o.stderr, o.stdout)
	}
}
