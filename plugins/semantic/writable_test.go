package semantic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// writableCall is a call on a workspace with git metadata: a .git, a
// nested clone's and a symlink to .git/config (issue 17), for the checks
// that run before any server is asked.
func writableCall(t *testing.T) (*call, string) {
	t.Helper()
	root := t.TempDir()
	for _, name := range []string{".git/config", "sub/.git/config", "main.go"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte("[core]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(".git", "config"), filepath.Join(root, "x.go")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	e := New(nil)
	e.ws, e.root = ws, ws.Dir()
	return &call{e: e, s: &session{e: e, name: "scripted"}}, ws.Dir()
}

func wantGitRefusal(t *testing.T, what string, err error) {
	t.Helper()
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "git metadata") {
		t.Errorf("%s = %v, want precondition_failed about git metadata", what, err)
	}
}

// edit_file's target: a symlink to .git/config, a nested .git and a new
// .git are refused by the workspace's one check.
func TestEditFileTargetRefusesGitMetadata(t *testing.T) {
	c, _ := writableCall(t)
	for _, p := range []string{"x.go", ".git/config", "sub/.git/config", "sub/.git/hooks/pre-commit", "a/.git/HEAD", ".GIT/config"} {
		_, _, err := c.editFileTarget(p)
		wantGitRefusal(t, "editFileTarget("+p+")", err)
		if fe, ok := err.(*failure.Error); ok && fe.Field != "file" {
			t.Errorf("editFileTarget(%s) names input %q, want file", p, fe.Field)
		}
	}
	if _, _, err := c.editFileTarget(".langhost/transactions/x.json"); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("editFileTarget(.langhost/...) = %v, want precondition_failed", err)
	}
	if p, exists, err := c.editFileTarget("main.go"); err != nil || !exists || filepath.Base(p) != "main.go" {
		t.Errorf("editFileTarget(main.go) = %q, %v, %v", p, exists, err)
	}
	if _, exists, err := c.editFileTarget("pkg/new.go"); err != nil || exists {
		t.Errorf("editFileTarget(pkg/new.go) = %v, %v", exists, err)
	}
}

// A server's workspace edit that edits, creates or renames into git
// metadata is refused as such before anything is read or written.
func TestEditTargetsRefusesGitMetadata(t *testing.T) {
	c, root := writableCall(t)
	uri := func(rel string) lsp.DocumentURI { return lsp.URIFromPath(filepath.Join(root, rel)) }
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, edit := range map[string]*lsp.WorkspaceEdit{
		"changes through a symlink": {Changes: map[lsp.DocumentURI][]lsp.TextEdit{uri("x.go"): {{NewText: "[core]\n\tfsmonitor = touch pwned\n"}}}},
		"changes to a nested clone": {Changes: map[lsp.DocumentURI][]lsp.TextEdit{uri("sub/.git/config"): {{NewText: "x"}}}},
		"create a hook":             {DocumentChanges: []json.RawMessage{raw(map[string]any{"kind": "create", "uri": uri(".git/hooks/pre-commit")})}},
		"rename into .git":          {DocumentChanges: []json.RawMessage{raw(map[string]any{"kind": "rename", "oldUri": uri("main.go"), "newUri": uri("a/.git/config")})}},
		"delete .git/config":        {DocumentChanges: []json.RawMessage{raw(map[string]any{"kind": "delete", "uri": uri(".git/config")})}},
	} {
		_, err := c.editTargets(edit)
		wantGitRefusal(t, name, err)
	}
	// Other file operations are still not applied.
	_, err := c.editTargets(&lsp.WorkspaceEdit{DocumentChanges: []json.RawMessage{raw(map[string]any{"kind": "create", "uri": uri("pkg/new.go")})}})
	if failure.CodeOf(err) != failure.Unsupported {
		t.Errorf("create pkg/new.go = %v, want unsupported", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks")); !os.IsNotExist(err) {
		t.Errorf("a refused edit created .git/hooks: %v", err)
	}
}
