package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileWorkspace is a repository that pre-approves every write in its
// .langhost.yaml and brings a spec whose tool leaves a marker file when it
// runs.
func hostileWorkspace(t *testing.T) (ws, marker string) {
	t.Helper()
	ws = t.TempDir()
	marker = filepath.Join(t.TempDir(), "ran")
	write(t, filepath.Join(ws, ".langhost.yaml"), "tools:\n  allow: [\"*\"]\nlog:\n  level: error\n")
	if err := os.MkdirAll(filepath.Join(ws, ".langhost", "languages"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, ".langhost", "languages", "evil.yaml"), `language: {id: evil, name: Evil}
tools:
  touch:
    command: touch
    args: [`+marker+`]
    description: Leaves a marker when it runs
`)
	return ws, marker
}

func newTrustCLI(t *testing.T) *cli {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	c := newCLI(t)
	c.ws, _ = hostileWorkspace(t)
	return c
}

func TestUntrustedWorkspaceCannotPreapproveWrites(t *testing.T) {
	c := newTrustCLI(t)
	o := c.run("run", "demo.rewrite")
	if o.code != 4 || o.env.Errors[0].Code != "precondition_failed" || !strings.Contains(o.env.Errors[0].Message, "needs confirmation") {
		t.Fatalf("untrusted tools.allow applied: exit %d %+v", o.code, o.env.Errors)
	}
	want := filepath.Join(c.ws, ".langhost.yaml") + ":2:3: tools.allow ignored"
	if !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "run `langhost trust`") {
		t.Errorf("stderr lacks the warning %q:\n%s", want, o.stderr)
	}

	if o := c.run("trust"); o.code != 0 {
		t.Fatalf("trust: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	if o := c.run("run", "demo.rewrite"); o.code != 0 {
		t.Fatalf("trusted tools.allow not applied: exit %d %+v", o.code, o.env.Errors)
	}

	// Editing .langhost.yaml withdraws the trust.
	write(t, filepath.Join(c.ws, ".langhost.yaml"), "tools:\n  allow: [\"demo.*\"]\n")
	o = c.run("run", "demo.rewrite")
	if o.code != 4 || !strings.Contains(o.stderr, "changed since it was trusted") {
		t.Fatalf("changed config still trusted: exit %d\n%s", o.code, o.stderr)
	}
	if o := c.run("trust"); o.code != 0 {
		t.Fatalf("trust: exit %d", o.code)
	}
	if o := c.run("run", "demo.rewrite"); o.code != 0 {
		t.Fatalf("re-trusted: exit %d %+v", o.code, o.env.Errors)
	}
	if o := c.run("trust", "--revoke"); o.code != 0 || o.env.Data.(map[string]any)["action"] != "revoked" {
		t.Fatalf("revoke: exit %d %s", o.code, o.stdout)
	}
	if o := c.run("run", "demo.rewrite"); o.code != 4 {
		t.Fatalf("revoked workspace still trusted: exit %d", o.code)
	}
}

func TestUntrustedWorkspaceSpecsDoNotRun(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	c := newCLI(t)
	var marker string
	c.ws, marker = hostileWorkspace(t)
	spec := filepath.Join(c.ws, ".langhost", "languages", "evil.yaml")

	o := c.run("run", "evil.touch")
	if o.code != 3 {
		t.Fatalf("untrusted spec tool: exit %d, want 3 (not found)\n%s", o.code, o.stdout)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted workspace's command ran")
	}
	want := spec + ": workspace not trusted; run `langhost trust`"
	o = c.run("languages")
	// The warning is on stderr, or in the JSON envelope's warnings.
	if strings.Contains(o.stdout, `"evil"`) || !strings.Contains(o.stdout+o.stderr, want) {
		t.Errorf("languages lists the untrusted spec or no warning:\n%s\n%s", o.stdout, o.stderr)
	}

	if o := c.run("trust"); o.code != 0 {
		t.Fatalf("trust: exit %d %s", o.code, o.stderr)
	}
	if o := c.run("run", "evil.touch"); o.code != 0 {
		t.Fatalf("trusted spec tool: exit %d %+v %s", o.code, o.env.Errors, o.stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("trusted spec tool did not run: %v", err)
	}

	// A changed spec is new code: trust again before it runs.
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(spec)
	write(t, spec, strings.Replace(string(data), "Leaves a marker", "Also leaves a marker", 1))
	if o := c.run("run", "evil.touch"); o.code != 3 || !strings.Contains(o.stderr, "changed since it was trusted") {
		t.Fatalf("changed spec: exit %d, want 3\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the changed spec ran without new trust")
	}
}

func TestTrustFromEnvironmentAndFlag(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"untrusted", nil, nil, 4},
		{"env", map[string]string{"LANGHOST_TRUST_WORKSPACE": "1"}, nil, 0},
		{"env false", map[string]string{"LANGHOST_TRUST_WORKSPACE": "0"}, nil, 4},
		{"flag", nil, []string{"--trust-workspace"}, 0},
		{"bad env", map[string]string{"LANGHOST_TRUST_WORKSPACE": "sure"}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTrustCLI(t)
			for k, v := range tt.env {
				c.env[k] = v
			}
			if o := c.run(append([]string{"run", "demo.rewrite"}, tt.args...)...); o.code != tt.code {
				t.Errorf("exit %d, want %d: %+v", o.code, tt.code, o.env.Errors)
			}
		})
	}
}

func TestWorkspaceCannotTrustItself(t *testing.T) {
	c := newTrustCLI(t)
	write(t, filepath.Join(c.ws, ".langhost.yaml"), "trust_workspace: true\ntools:\n  allow: [\"*\"]\n")
	if o := c.run("run", "demo.rewrite"); o.code != 4 {
		t.Fatalf("workspace trusted itself: exit %d", o.code)
	}
}

func TestConfigShowListsIgnoredSettings(t *testing.T) {
	c := newTrustCLI(t)
	o := c.run("config", "show")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	data := o.env.Data.(map[string]any)
	ignored := data["ignored"].([]any)
	if len(ignored) != 1 {
		t.Fatalf("ignored = %v, want tools.allow", ignored)
	}
	i := ignored[0].(map[string]any)
	if i["key"] != "tools.allow" || i["file"] != filepath.Join(c.ws, ".langhost.yaml") || !strings.Contains(i["reason"].(string), "not trusted") {
		t.Errorf("ignored = %v", i)
	}
	got := map[string]string{}
	for _, v := range data["values"].([]any) {
		m := v.(map[string]any)
		got[m["key"].(string)] = m["source"].(string)
	}
	if got["tools.allow"] != "default" || got["log.level"] != filepath.Join(c.ws, ".langhost.yaml") {
		t.Errorf("sources = %v: tools.allow must stay default, log.level must come from the workspace", got)
	}
	if trust := data["trust"].(map[string]any); trust["trusted"] != false {
		t.Errorf("trust = %v", trust)
	}

	c.json = false
	o = c.run("config", "show")
	if !strings.Contains(o.stdout, "ignored: "+filepath.Join(c.ws, ".langhost.yaml")+":2") {
		t.Errorf("text output does not show the ignored key:\n%s", o.stdout)
	}
}

func TestTrustCommand(t *testing.T) {
	c := newTrustCLI(t)
	real, err := filepath.EvalSymlinks(c.ws)
	if err != nil {
		t.Fatal(err)
	}
	// Trusting through a symlink records the real path.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(c.ws, link); err != nil {
		t.Fatal(err)
	}
	o := c.run("trust", link)
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	res := o.env.Data.(map[string]any)
	if res["root"] != real || !strings.HasPrefix(res["digest"].(string), "sha256:") {
		t.Errorf("trust result = %v", res)
	}
	if files := res["files"].([]any); len(files) != 2 || files[0] != ".langhost.yaml" || files[1] != ".langhost/languages/evil.yaml" {
		t.Errorf("covered files = %v", files)
	}
	if grants := res["grants"].([]any); len(grants) != 1 || grants[0] != "tools.allow" {
		t.Errorf("grants = %v", grants)
	}
	var store struct{ Workspaces []struct{ Path string } }
	data, err := os.ReadFile(filepath.Join(c.dir, "trusted.json"))
	if err != nil || json.Unmarshal(data, &store) != nil || len(store.Workspaces) != 1 || store.Workspaces[0].Path != real {
		t.Fatalf("trust store: %v %s", err, data)
	}
	if st, err := os.Stat(filepath.Join(c.dir, "trusted.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trust store mode: %v %v", st.Mode(), err)
	}

	o = c.run("trust", "--list")
	list := o.env.Data.([]any)
	if o.code != 0 || len(list) != 1 || list[0].(map[string]any)["status"] != "trusted" {
		t.Errorf("list: exit %d %v", o.code, list)
	}
	write(t, filepath.Join(c.ws, ".langhost.yaml"), "format: json\n")
	o = c.run("trust", "--list")
	if list := o.env.Data.([]any); list[0].(map[string]any)["status"] != "changed" {
		t.Errorf("list after a change: %v", list)
	}

	tests := []struct {
		name string
		args []string
		code int
	}{
		{"missing dir", []string{"trust", filepath.Join(c.ws, "nope")}, 3},
		{"list with dir", []string{"trust", "--list", c.ws}, 2},
		{"list and revoke", []string{"trust", "--list", "--revoke"}, 2},
		{"revoke untrusted", []string{"trust", "--revoke", t.TempDir()}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if o := c.run(tt.args...); o.code != tt.code {
				t.Errorf("exit %d, want %d: %+v", o.code, tt.code, o.env.Errors)
			}
		})
	}

	// A broken config cannot be reviewed, so it is not trusted.
	write(t, filepath.Join(c.ws, ".langhost.yaml"), "tools:\n  alow: [x]\n")
	if o := c.run("trust", c.ws); o.code != 2 || !strings.Contains(o.env.Errors[0].Message, `unknown setting "tools.alow"`) {
		t.Errorf("broken config: exit %d %+v", o.code, o.env.Errors)
	}
}

// TestMCPWorkspaceTrust: `mcp --workspace DIR` follows the same rule as
// the CLI, end to end through the real binary and the SDK client.
func TestMCPWorkspaceTrust(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "tools:\n  allow: [\"*\"]\n")
	if err := os.MkdirAll(filepath.Join(f.workspace, ".langhost", "languages"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.workspace, ".langhost", "languages", "evil.yaml"),
		"language: {id: evil, name: Evil}\ntools:\n  noop:\n    command: \"true\"\n")

	cs, stderr := startStdio(t, f, nil, "--profile", "all")
	tools := listTools(t, cs)
	if tools["mcptest_touch"] != nil || tools["evil_noop"] != nil {
		t.Fatalf("untrusted workspace: mcptest.touch listed %v, evil.noop listed %v", tools["mcptest_touch"] != nil, tools["evil_noop"] != nil)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "mcptest_touch", Arguments: map[string]any{"path": "a.txt"}}); err == nil {
		t.Error("a write pre-approved by the untrusted workspace could be called")
	}
	if !strings.Contains(stderr.String(), "tools.allow ignored") {
		t.Errorf("stderr lacks the warnings:\n%s", stderr)
	}
	_ = cs.Close()

	trust := f.command(t)
	trust.Args = []string{trust.Args[0], "trust", f.workspace, "--format", "json"}
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("langhost trust: %v\n%s", err, out)
	}
	cs, _ = startStdio(t, f, nil, "--profile", "all")
	tools = listTools(t, cs)
	if tools["mcptest_touch"] == nil || tools["evil_noop"] == nil {
		t.Fatalf("trusted workspace: mcptest.touch listed %v, evil.noop listed %v", tools["mcptest_touch"] != nil, tools["evil_noop"] != nil)
	}
}

// TestMCPWorkspaceTokenIgnored: a token the repository's authors wrote
// into its .langhost.yaml does not let mcp serve off loopback.
func TestMCPWorkspaceTokenIgnored(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.workspace, ".langhost.yaml"), "mcp:\n  token: everyone-knows-this\n")
	cmd := f.command(t, "--http", "0.0.0.0:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("exit = %v, want code 4; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "mcp.token ignored") || strings.Contains(stderr.String(), "everyone-knows-this") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
