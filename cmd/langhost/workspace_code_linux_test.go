//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWorkspaceCodeSurfaces: the same rule through the daemon, MCP and an
// agent, with the eslint.config.js vector. The daemon and the agent refuse
// without consent and run with it; over MCP the tool is not read-only,
// says what it runs, and a call (the client's approval) runs it.
func TestWorkspaceCodeSurfaces(t *testing.T) {
	v := hostileVectors()[0]
	if v.tool != "javascript.lint" {
		t.Fatalf("vector 0 is %s", v.tool)
	}
	t.Run("daemon", func(t *testing.T) {
		f := newDaemonFixture(t)
		marker := writeVector(t, v, f.ws)
		env, code, stderr := f.run("run", v.tool, "path=a.js")
		if code != 4 || len(env.Errors) == 0 || !strings.Contains(env.Errors[0].Message, "--allow-workspace-code") {
			t.Fatalf("untrusted through the daemon: exit %d %+v\n%s", code, env.Errors, stderr)
		}
		if ran(marker) {
			t.Fatal("the daemon ran the workspace's eslint.config.js without consent")
		}
		if _, code, stderr := f.run("run", v.tool, "path=a.js", "--allow-workspace-code"); code == 4 || !ran(marker) {
			t.Fatalf("consented through the daemon: exit %d, ran %v\n%s", code, ran(marker), stderr)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		ws := t.TempDir()
		marker := writeVector(t, v, ws)
		cmd := exec.Command(langhostBinary(t), "mcp", "--workspace", ws)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+configDir(t), "XDG_STATE_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
		cs, stderr := connectStdio(t, cmd, nil)
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var lint *mcp.Tool
		for _, tool := range tools.Tools {
			if tool.Name == "javascript_lint" {
				lint = tool
			}
		}
		if lint == nil {
			t.Fatalf("javascript_lint is not served\nstderr:\n%s", stderr)
		}
		if lint.Annotations == nil || lint.Annotations.ReadOnlyHint || !strings.Contains(lint.Description, "Runs code this untrusted workspace controls: eslint.config.js") {
			t.Errorf("javascript_lint in an untrusted workspace: annotations %+v, description %q", lint.Annotations, lint.Description)
		}
		if ran(marker) {
			t.Fatal("connecting and listing tools ran the workspace's code")
		}
		res, _ := callTool(t, cs, "javascript_lint", map[string]any{"path": "a.js"})
		if !ran(marker) {
			t.Errorf("a call the client approved did not run eslint: %s", resultText(res))
		}
	})
	t.Run("agent", func(t *testing.T) {
		c := newCLI(t)
		c.ws = t.TempDir()
		marker := writeVector(t, v, c.ws)
		script := `turns:
  - reply: {tool_calls: [{name: javascript_lint, arguments: {path: a.js}}]}
  - expect: {last_tool_result_contains: '%s'}
    reply: {text: done}
`
		srv := scriptedServer(t, fmt.Sprintf(script, "langhost trust"))
		o := c.run("agent", "run", "--language", "javascript", "--provider", "openai-compatible", "--base-url", srv.OpenAIURL(), "--model", "scripted", "lint a.js")
		if o.code != 0 || ran(marker) {
			t.Fatalf("untrusted agent: exit %d, ran %v\n%s\n%s", o.code, ran(marker), o.stdout, o.stderr)
		}
		srv = scriptedServer(t, fmt.Sprintf(script, `"ok":true`))
		o = c.run("agent", "run", "--allow-workspace-code", "--language", "javascript", "--provider", "openai-compatible", "--base-url", srv.OpenAIURL(), "--model", "scripted", "lint a.js")
		if o.code != 0 || !ran(marker) {
			t.Fatalf("consented agent: exit %d, ran %v\n%s\n%s", o.code, ran(marker), o.stdout, o.stderr)
		}
	})
}
