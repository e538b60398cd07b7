package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// injectionWorkspace writes a Go module and the ./x.sh that
// `go vet -toolexec=./x.sh` would run; x.sh leaves the returned marker.
func injectionWorkspace(t *testing.T, dir string) (marker string) {
	t.Helper()
	marker = filepath.Join(dir, "MARKER")
	files := map[string]string{
		"go.mod":  "module example.com/inject\n\ngo 1.21\n",
		"main.go": "package main\n\nfunc main() {}\n",
		"x.sh":    "#!/bin/sh\ntouch \"" + marker + "\"\nexec \"$@\"\n",
	}
	for name, data := range files {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return marker
}

// TestRunRefusesOptionInjection: an input value starting with "-" must not
// become an option of the tool, however the CLI is given it.
func TestRunRefusesOptionInjection(t *testing.T) {
	ws := t.TempDir()
	marker := injectionWorkspace(t, ws)
	for _, args := range [][]string{
		{"run", "go.vet", "--workspace", ws, "--input", `{"packages": "-toolexec=./x.sh"}`},
		{"run", "go.vet", "--workspace", ws, "packages=-toolexec=./x.sh"},
		{"validate-input", "go.vet", "--workspace", ws, "packages=-toolexec=./x.sh"},
	} {
		o := newCLI(t).run(args...)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q ran ./x.sh", args)
		}
		if o.code != 2 || len(o.env.Errors) == 0 {
			t.Fatalf("%q: exit %d, want 2\nstdout: %s\nstderr: %s", args, o.code, o.stdout, o.stderr)
		}
		e := o.env.Errors[0]
		if e.Code != "invalid_input" || e.Field != "packages" || !strings.Contains(e.Message, `"-toolexec=./x.sh" starts with "-"`) {
			t.Errorf("%q: error %+v", args, e)
		}
	}
}

// TestMCPRefusesOptionInjection is the same attack from an MCP client,
// against the shipped go spec.
func TestMCPRefusesOptionInjection(t *testing.T) {
	f := newMCPFixture(t)
	if err := os.Remove(filepath.Join(f.specs, "go.yaml")); err != nil { // use the shipped go.vet
		t.Fatal(err)
	}
	marker := injectionWorkspace(t, f.workspace)
	cs, _ := startStdio(t, f, nil)
	for _, name := range []string{"go_vet", "go_build", "go_lint"} {
		res, st := callTool(t, cs, name, map[string]any{"packages": "-toolexec=./x.sh"})
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s ran ./x.sh", name)
		}
		e, _ := st["error"].(map[string]any)
		if !res.IsError || e["code"] != "invalid_input" || e["field"] != "packages" || !strings.Contains(resultText(res), `starts with "-"`) {
			t.Errorf("%s: isError=%v error=%v text=%q", name, res.IsError, e, resultText(res))
		}
	}
}
