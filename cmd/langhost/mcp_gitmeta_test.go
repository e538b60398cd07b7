package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/txnlog"
)

// Issue 17 over MCP, with a real client and the real binary: writes into
// git metadata by any path (a symlink to .git/config, a nested clone's
// .git, a new .git) are refused by workspace_write_file and go_edit_file
// alike; a record the repository ships is never undone by workspace_undo;
// and a second workspace_undo says what redo would redo instead of doing
// it.
func TestMCPGitMetadataAndForgedRecords(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	f := renameWorkspace(t)
	ws := f.workspace
	for _, name := range []string{".git/config", "sub/.git/config"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(ws, name), "[core]\n")
	}
	for link, target := range map[string]string{"x.go": ".git/config", "y": ".git/config"} {
		if err := os.Symlink(filepath.FromSlash(target), filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	// The repository's forged record: future-dated, a huge sequence
	// number, restoring .git/config and main.go.
	id := "20990101T000000000000-abcdef01"
	dir := filepath.Join(ws, ".langhost", "transactions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, id+".json"), `{"id":"`+id+`","seq":9999999,"time":"2099-01-01T00:00:00Z","tool":"go.edit_file","operation":"edit_file","trace":[],"files":[`+
		`{"path":".git/config","before":"`+txnlog.Hash([]byte("[core]\n\tfsmonitor = touch pwned\n"))+`","after":"`+txnlog.Hash([]byte("[core]\n"))+`"},`+
		`{"path":"main.go","before":"`+txnlog.Hash([]byte("package main // pwned\n"))+`","after":"`+txnlog.Hash([]byte(useGo))+`"}]}`)
	write(t, filepath.Join(dir, id+".before.json"), `{".git/config":"W2NvcmVdCglmc21vbml0b3IgPSB0b3VjaCBwd25lZAo=","main.go":"cGFja2FnZSBtYWluIC8vIHB3bmVkCg=="}`)

	cs, _ := startStdio(t, f, nil)
	pwned := "[core]\n\tfsmonitor = touch pwned\n"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"workspace_write_file", map[string]any{"path": "y", "content": pwned}},
		{"workspace_write_file", map[string]any{"path": "sub/.git/config", "content": pwned}},
		{"workspace_write_file", map[string]any{"path": "a/.git/HEAD", "content": "ref: refs/heads/main\n"}},
		{"go_edit_file", map[string]any{"file": "x.go", "content": pwned}},
		{"go_edit_file", map[string]any{"file": "sub/.git/hooks/pre-commit.go", "content": "package hooks\n"}},
	} {
		res, _ := callTool(t, cs, c.tool, c.args)
		if text := resultText(res); !res.IsError || !strings.Contains(text, "git metadata") {
			t.Errorf("%s %v: isError=%v\n%s", c.tool, c.args, res.IsError, text)
		}
	}
	for _, name := range []string{".git/config", "sub/.git/config"} {
		if got := readWS(t, f, name); got != "[core]\n" {
			t.Errorf("%s = %q", name, got)
		}
	}
	for _, name := range []string{"a", "sub/.git/hooks"} {
		if _, err := os.Lstat(filepath.Join(ws, name)); !os.IsNotExist(err) {
			t.Errorf("a refused write created %s: %v", name, err)
		}
	}

	res, _ := callTool(t, cs, "workspace_undo", map[string]any{})
	if text := resultText(res); !res.IsError || !strings.Contains(text, "never undone") {
		t.Errorf("workspace_undo with only a forged record: isError=%v\n%s", res.IsError, text)
	}
	res, _ = callTool(t, cs, "workspace_undo", map[string]any{"id": id})
	if !res.IsError {
		t.Errorf("workspace_undo of the forged record succeeded:\n%s", resultText(res))
	}
	if got := readWS(t, f, "main.go"); got != useGo {
		t.Errorf("main.go = %q", got)
	}

	// A real edit is undone once; the second undo names the redo.
	res, st := callTool(t, cs, "go_edit_file", map[string]any{"file": "main.go", "content": strings.Replace(useGo, "println", "print", 1)})
	if res.IsError || st["transaction_id"] == nil {
		t.Fatalf("go_edit_file main.go: %s", resultText(res))
	}
	if res, _ := callTool(t, cs, "workspace_undo", map[string]any{}); res.IsError {
		t.Fatalf("workspace_undo: %s", resultText(res))
	}
	if got := readWS(t, f, "main.go"); got != useGo {
		t.Errorf("main.go after undo = %q", got)
	}
	res, _ = callTool(t, cs, "workspace_undo", map[string]any{})
	if text := resultText(res); !res.IsError || !strings.Contains(text, "would redo "+st["transaction_id"].(string)) {
		t.Errorf("second workspace_undo: isError=%v\n%s", res.IsError, text)
	}
	if got := readWS(t, f, "main.go"); got != useGo {
		t.Errorf("the second undo redid: main.go = %q", got)
	}
}
