package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/plugins/builtin"
)

const shapes = `package main

// Area is the area of a w by h rectangle.
func Area(w, h int) int { return w * h }

func main() { _ = Area(2, 3) }
`

// goHost opens a Go module workspace with the shipped specs and the
// built-in semantic plugin (gopls).
func goHost(t *testing.T, allow ...string) (*host.Host, string) {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Fatal("gopls is not installed: run scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does both)")
	}
	ws := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module example.com/shapes\n\ngo 1.21\n", "main.go": shapes} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{Workspace: ws, Timeout: 2 * time.Minute, MaxOutput: 1 << 20, AllowTools: allow}
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, filepath.Join(ws, "main.go")
}

func errorOf(st map[string]any) (code, field, message string) {
	e, _ := st["error"].(map[string]any)
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	message, _ = e["message"].(string)
	return
}

// TestPreviewAndApply: a rename over MCP returns a preview with an id;
// langhost_apply writes exactly that preview, refuses it once a file
// changed, and refuses ids it does not hold.
func TestPreviewAndApply(t *testing.T) {
	h, main := goHost(t, "go.rename")
	srv, err := mcpserver.New(h, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	names := toolNames(t, cs)
	if !contains(names, "go_rename") || !contains(names, "langhost_apply") {
		t.Fatalf("tools = %v", names)
	}

	preview := func(t *testing.T, symbol, newName string) string {
		t.Helper()
		res, st := call(t, cs, "go_rename", map[string]any{"symbol": symbol, "newName": newName})
		if res.IsError {
			t.Fatalf("rename preview: %s", text(res))
		}
		id, _ := st["preview_id"].(string)
		if len(id) != 32 || !strings.Contains(text(res), "preview_id: "+id) {
			t.Fatalf("no preview_id in %v\n%s", st, text(res))
		}
		if b, _ := os.ReadFile(main); string(b) != shapes && symbol == "Area" {
			t.Fatalf("a preview wrote the file:\n%s", b)
		}
		return id
	}

	t.Run("apply writes the preview", func(t *testing.T) {
		id := preview(t, "Area", "Size")
		res, st := call(t, cs, "langhost_apply", map[string]any{"preview_id": id})
		if res.IsError || st["applied"] != true {
			t.Fatalf("apply: %s\n%v", text(res), st)
		}
		b, _ := os.ReadFile(main)
		if !strings.Contains(string(b), "func Size(w, h int)") || !strings.Contains(string(b), "_ = Size(2, 3)") {
			t.Errorf("file after apply:\n%s", b)
		}
		// Applied once: the id is spent.
		res, st = call(t, cs, "langhost_apply", map[string]any{"preview_id": id})
		if code, _, _ := errorOf(st); !res.IsError || code != "not_found" {
			t.Errorf("second apply: %s", text(res))
		}
	})

	t.Run("a changed file refuses the preview", func(t *testing.T) {
		id := preview(t, "Size", "Extent")
		before, _ := os.ReadFile(main)
		changed := string(before) + "\n// edited by someone else\n"
		if err := os.WriteFile(main, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		res, st := call(t, cs, "langhost_apply", map[string]any{"preview_id": id})
		if code, field, _ := errorOf(st); !res.IsError || code != "precondition_failed" || field != "expect" {
			t.Errorf("apply after a change: code %q field %q\n%s", code, field, text(res))
		}
		if b, _ := os.ReadFile(main); string(b) != changed {
			t.Errorf("the refused apply touched the file:\n%s", b)
		}
	})

	t.Run("bad ids", func(t *testing.T) {
		for _, tc := range []struct {
			args       map[string]any
			code, text string
		}{
			{map[string]any{"preview_id": strings.Repeat("ab", 16)}, "not_found", "expired"},
			{map[string]any{"preview_id": "../../etc/passwd"}, "invalid_input", "not a preview id"},
			{map[string]any{"preview_id": 7}, "invalid_input", "preview_id is required"},
			{map[string]any{}, "invalid_input", "preview_id is required"},
			{map[string]any{"preview_id": strings.Repeat("ab", 16), "apply": false}, "invalid_input", `unknown input "apply"`},
		} {
			res, st := call(t, cs, "langhost_apply", tc.args)
			if code, _, msg := errorOf(st); !res.IsError || code != tc.code || !strings.Contains(msg, tc.text) {
				t.Errorf("%v: code %q message %q, want %s mentioning %q", tc.args, code, msg, tc.code, tc.text)
			}
		}
	})
}

// With --writes allow and without --allow or tools.allow for the tool,
// apply refuses naming the flags that lift it: only the user's allowlist
// confirms there.
func TestApplyHonoursTheAllowlist(t *testing.T) {
	h, main := goHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Writes: mcpserver.WritesAllow})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	res, st := call(t, cs, "go_rename", map[string]any{"symbol": "Area", "newName": "Size"})
	id, _ := st["preview_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("preview: %s", text(res))
	}
	res, st = call(t, cs, "langhost_apply", map[string]any{"preview_id": id})
	if code, _, msg := errorOf(st); !res.IsError || code != "precondition_failed" || !strings.Contains(msg, "--allow go.rename") || !strings.Contains(msg, "--writes client") {
		t.Errorf("apply without allow: %s", text(res))
	}
	if b, _ := os.ReadFile(main); string(b) != shapes {
		t.Errorf("file changed:\n%s", b)
	}
}

// The readonly profile serves neither edit tools nor langhost_apply.
func TestReadonlyProfileHasNoApply(t *testing.T) {
	h, _ := goHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Profile: mcpserver.ProfileReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(t, connect(t, srv))
	for _, n := range []string{"langhost_apply", "go_rename", "go_build"} {
		if contains(names, n) {
			t.Errorf("%s served by the readonly profile", n)
		}
	}
	if !contains(names, "go_find_references") {
		t.Errorf("go_find_references not served: %v", names)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// By default (--writes client) the client's approval of langhost_apply,
// annotated destructive, is the confirmation: the preview is written.
func TestApplyByClientApproval(t *testing.T) {
	h, main := goHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	res, st := call(t, cs, "go_rename", map[string]any{"symbol": "Area", "new_name": "Size"})
	id, _ := st["preview_id"].(string)
	if res.IsError || id == "" {
		t.Fatalf("preview: %s", text(res))
	}
	if res, st = call(t, cs, "langhost_apply", map[string]any{"preview_id": id}); res.IsError || st["applied"] != true {
		t.Fatalf("apply: %s", text(res))
	}
	if b, _ := os.ReadFile(main); !strings.Contains(string(b), "func Size(") {
		t.Errorf("file not renamed:\n%s", b)
	}
}
