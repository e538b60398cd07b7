package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pelletier/go-toml/v2"
)

// repoFixture serves langhost's own repository: a Go module whose other
// languages live only in test data and bench fixtures.
func repoFixture(t testing.TB) mcpFixture {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("not in langhost's repository: %v", err)
	}
	return mcpFixture{workspace: root, config: configDir(t)}
}

// commandIn is `langhost <args>` in f's workspace with a config of its own.
func (f mcpFixture) commandIn(t testing.TB, args ...string) *exec.Cmd {
	cmd := exec.Command(langhostBinary(t), args...)
	cmd.Dir = f.workspace
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LANGHOST_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+f.config, "LANGHOST_DAEMON=0")
	return cmd
}

// TestMCPPolyglotSurface: on langhost's own repository the default
// surface is Go's (its main language), not every language of its test
// data; another language is one langhost_enable_language call away, and
// the client is told the list changed; a hidden tool says what serves it.
func TestMCPPolyglotSurface(t *testing.T) {
	f := repoFixture(t)
	changed := make(chan struct{}, 4)
	cmd := f.commandIn(t, "mcp", "--workspace", f.workspace, "--prewarm=false")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "langhost-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()

	n, size, _ := toolsListSize(t, cs)
	t.Logf("langhost's repository by default: %d tools, %d bytes of tools/list", n, size)
	if n > 60 || size > 80<<10 {
		t.Errorf("default surface of langhost's repository: %d tools, %d bytes; want at most 60 and 80 KB", n, size)
	}
	tools := listTools(t, cs)
	for _, want := range []string{"go_build", "go_find_references", "langhost_enable_language"} {
		if tools[want] == nil {
			t.Errorf("%s not served", want)
		}
	}
	for name := range tools {
		if lang, _, _ := strings.Cut(name, "_"); lang != "go" && lang != "workspace" && lang != "langhost" {
			t.Errorf("%s served: its language is only in test data", name)
		}
	}

	// A tool of a language not served, and one that writes in place.
	for name, want := range map[string]string{
		"rust_build": `langhost_enable_language {"language": "rust"}`,
		"go_fmt":     "--allow go.fmt",
	} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("call %s: %v; want it to name %s", name, err, want)
		}
	}

	res, st := callTool(t, cs, "langhost_enable_language", map[string]any{"language": "rust"})
	if res.IsError || st["language"] != "rust" {
		t.Fatalf("enable rust: %s %v", resultText(res), st)
	}
	waitListChanged(t, changed, stderr)
	tools = listTools(t, cs)
	if tools["rust_build"] == nil || tools["go_build"] == nil {
		t.Errorf("after enabling rust: rust_build %v, go_build %v", tools["rust_build"] != nil, tools["go_build"] != nil)
	}
	if added, _ := st["tools"].([]any); len(added) == 0 || !strings.HasPrefix(added[0].(string), "rust_") {
		t.Errorf("enable rust says it added %v", st["tools"])
	}
	if res, _ := callTool(t, cs, "langhost_enable_language", map[string]any{"language": "rusty"}); !res.IsError || !strings.Contains(resultText(res), "did you mean rust") {
		t.Errorf("an unknown language: %s", resultText(res))
	}
}

// TestMCPPrintConfig: each client's snippet parses in its client's format
// and the tools it approves are the ones the server lists.
func TestMCPPrintConfig(t *testing.T) {
	f := goWorkspace(t)
	cs, _ := startStdio(t, f, nil, "--prewarm=false")
	served := listTools(t, cs)
	printConfig := func(client string) []byte {
		t.Helper()
		cmd := f.command(t, "--print-config", client)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("--print-config %s: %v\n%s", client, err, stderr.String())
		}
		return out
	}

	var claude struct {
		Permissions struct {
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	dec := json.NewDecoder(bytes.NewReader(printConfig("claude")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&claude); err != nil {
		t.Fatalf("claude snippet: %v", err)
	}
	if len(claude.Permissions.Allow) != len(served) {
		t.Errorf("claude allows %d tools, the server lists %d", len(claude.Permissions.Allow), len(served))
	}
	for _, a := range claude.Permissions.Allow {
		name, ok := strings.CutPrefix(a, "mcp__langhost__")
		if !ok || served[name] == nil {
			t.Errorf("claude allows %q, which the server does not list", a)
		}
	}

	var codex struct {
		MCPServers map[string]struct {
			Command                  string   `toml:"command"`
			Args                     []string `toml:"args"`
			DefaultToolsApprovalMode string   `toml:"default_tools_approval_mode"`
			Tools                    map[string]struct {
				ApprovalMode string `toml:"approval_mode"`
			} `toml:"tools"`
		} `toml:"mcp_servers"`
	}
	raw := printConfig("codex")
	if err := toml.NewDecoder(bytes.NewReader(raw)).DisallowUnknownFields().Decode(&codex); err != nil {
		t.Fatalf("codex snippet: %v\n%s", err, raw)
	}
	lh := codex.MCPServers["langhost"]
	if lh.Command != "langhost" || strings.Join(lh.Args, " ") != "mcp" || lh.DefaultToolsApprovalMode != "prompt" || len(lh.Tools) != len(served) {
		t.Errorf("codex snippet: %+v", lh)
	}
	for name, tool := range lh.Tools {
		if served[name] == nil || tool.ApprovalMode != "approve" {
			t.Errorf("codex approves %q (%q), which the server does not list", name, tool.ApprovalMode)
		}
	}

	for client, key := range map[string]string{"vscode": "servers", "cursor": "mcpServers"} {
		var cfg map[string]map[string]struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
		}
		if err := json.Unmarshal(printConfig(client), &cfg); err != nil {
			t.Fatalf("%s snippet: %v", client, err)
		}
		if s := cfg[key]["langhost"]; s.Command != "langhost" || len(s.Args) == 0 || s.Args[0] != "mcp" {
			t.Errorf("%s snippet: %+v", client, cfg)
		}
	}

	cmd := f.command(t, "--print-config", "emacs")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "claude, codex, vscode, cursor") {
		t.Errorf("--print-config emacs: %v\n%s", err, out)
	}
}
