package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	envTestKey   = "sk-toolenv-0123456789abcdefXYZ"
	envTestToken = "mcp-token-toolenv-secret"
)

// envSpec's leak tool prints the provider key and langhost's MCP token as
// a repository's test could; needs asks for one variable by name.
const envSpec = `language:
  id: envdemo
  extensions: [".envdemo"]
tools:
  leak:
    command: sh
    args: ["-c", "echo \"key=$OPENAI_API_KEY tok=$LANGHOST_MCP_TOKEN end\"; env | grep -c -e sk-toolenv -e toolenv-secret || true"]
    readOnly: true
  needs:
    command: sh
    args: ["-c", "echo \"key=$OPENAI_API_KEY tok=$LANGHOST_MCP_TOKEN end\""]
    readOnly: true
    passEnv: [OPENAI_API_KEY]
  failing:
    command: sh
    args: ["-c", "echo \"key=$OPENAI_API_KEY tok=$LANGHOST_MCP_TOKEN end\"; exit 1"]
    readOnly: true
`

// writeEnvSpec writes envSpec into a new directory for --languages.
func writeEnvSpec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "envdemo.yaml"), envSpec)
	return dir
}

// TestToolEnvCLI: `langhost run` of a spec tool: the tool's environment
// holds neither the provider key nor the MCP token, unless the spec's
// passEnv names the variable.
func TestToolEnvCLI(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", envTestKey)
	t.Setenv("LANGHOST_MCP_TOKEN", envTestToken)
	specs := writeEnvSpec(t)
	c := newCLI(t)
	c.ws = t.TempDir()
	o := c.run("--languages", specs, "run", "envdemo.leak")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, `key= tok= end\n0\n`) || strings.Contains(o.stdout, envTestKey) || strings.Contains(o.stdout, envTestToken) {
		t.Errorf("the tool saw a secret:\n%s", o.stdout)
	}
	o = c.run("--languages", specs, "run", "envdemo.needs")
	if o.code != 0 || !strings.Contains(o.stdout, "key="+envTestKey+" tok= end") {
		t.Errorf("passEnv did not pass OPENAI_API_KEY (only): exit %d\n%s", o.code, o.stdout)
	}
}

// TestToolEnvAgent: a tool an agent calls does not see the key; the
// scripted model refuses the run unless the tool's output (a failed
// tool's observation carries it) shows empty variables.
func TestToolEnvAgent(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", envTestKey)
	t.Setenv("LANGHOST_MCP_TOKEN", envTestToken)
	specs := writeEnvSpec(t)
	c := newCLI(t)
	c.ws = t.TempDir()
	c.env["OPENAI_API_KEY"] = envTestKey
	srv := scriptedServer(t, `turns:
  - reply: {tool_calls: [{name: envdemo_failing, arguments: {}}]}
  - expect: {last_tool_result_contains: 'key= tok= end'}
    reply: {text: done}
`)
	o := c.run("--languages", specs, "agent", "run", "--allow-workspace-code", "--language", "envdemo", "--provider", "openai-compatible",
		"--base-url", srv.OpenAIURL(), "--model", "scripted", "print the environment")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for i, r := range srv.Requests() {
		if strings.Contains(string(r.Body), envTestKey) || strings.Contains(string(r.Body), envTestToken) {
			t.Errorf("request %d carries a secret the tool saw:\n%s", i+1, r.Body)
		}
	}
}

// TestToolEnvMCP: the same tool called by an MCP client over `langhost
// mcp` (real binary, SDK client) sees no key and no token.
func TestToolEnvMCP(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.specs, "envdemo.yaml"), envSpec)
	write(t, filepath.Join(f.workspace, "a.envdemo"), "")
	cmd := f.command(t)
	cmd.Env = append(cmd.Env, "OPENAI_API_KEY="+envTestKey, "LANGHOST_MCP_TOKEN="+envTestToken)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()
	res, st := callTool(t, cs, "envdemo_leak", map[string]any{})
	structured, _ := json.Marshal(st)
	all := resultText(res) + string(structured)
	if res.IsError || !strings.Contains(all, "key= tok= end") || strings.Contains(all, envTestKey) || strings.Contains(all, envTestToken) {
		t.Errorf("the tool saw a secret or failed: %s\nstderr:\n%s", all, stderr)
	}
}

// TestRunMissingWorkdir: a workdir that does not exist fails with
// not_found (exit 3) naming the workdir, not "executable not found".
func TestRunMissingWorkdir(t *testing.T) {
	specs := writeEnvSpec(t)
	c := newCLI(t)
	c.ws = t.TempDir()
	o := c.run("--languages", specs, "run", "envdemo.leak", "workdir=nowhere")
	if o.code != 3 || !strings.Contains(o.stdout, "workdir") || !strings.Contains(o.stdout, "does not exist") || strings.Contains(o.stdout, "executable") {
		t.Errorf("exit %d, want 3 naming the workdir\n%s", o.code, o.stdout)
	}
}
