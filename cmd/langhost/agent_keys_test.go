package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	agentTestKey  = "sk-proj-Tq7Wm2Xv9Lp4Rk8Zb3Nc6Hd1Je5Uf0GyA"
	agentTestBody = "Tq7Wm2Xv9Lp4Rk8Zb3Nc6Hd1Je5Uf0GyA" // the key without sk-proj-
)

// remoteRole is a role of a trusted workspace that switches the provider
// to openai.
const remoteRole = "name: remote\ndescription: Uses OpenAI.\nprompt: Answer.\ntools: {sideEffects: [none], exec: false}\nmodel: {provider: openai}\n"

// TestAgentRunKeyRouting: the user's OPENAI_API_KEY goes to a --base-url
// only when the user also named the provider. A role switching a keyless
// run to openai is refused (exit 4) before any request, whatever the
// workspace's trust; openai-compatible gets no key.
func TestAgentRunKeyRouting(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		wantAuth string // "-" when no request may arrive
	}{
		{"role switches to openai", []string{"--role", "remote"}, 4, "-"},
		{"spec default with the user's base URL", nil, 0, ""},
		{"openai-compatible", []string{"--provider", "openai-compatible"}, 0, ""},
		{"the user names openai", []string{"--provider", "openai"}, 0, "Bearer " + agentTestKey},
		{"the user names openai over the role", []string{"--role", "remote", "--provider", "openai"}, 0, "Bearer " + agentTestKey},
		{"a key variable named with ollama", []string{"--provider", "ollama", "--api-key-env", "PROXY_KEY"}, 0, "Bearer proxy-0123456789abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.ws = agentWorkspace(t)
			if err := os.MkdirAll(filepath.Join(c.ws, ".langhost", "roles"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(c.ws, ".langhost", "roles", "remote.yaml"), remoteRole)
			c.env["LANGHOST_TRUST_WORKSPACE"] = "1"
			c.env["OPENAI_API_KEY"] = agentTestKey
			c.env["PROXY_KEY"] = "proxy-0123456789abcdef"
			srv := scriptedServer(t, "turns:\n  - reply: {text: done}\n")
			args := append([]string{"agent", "run", "--allow-workspace-code", "--language", "go", "--base-url", srv.OpenAIURL(), "--model", "scripted"}, tt.args...)
			o := c.run(append(args, "say done")...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", o.code, tt.code, o.stdout, o.stderr)
			}
			reqs := srv.Requests()
			if tt.wantAuth == "-" {
				if len(reqs) != 0 {
					t.Fatalf("%d requests reached the server", len(reqs))
				}
				if !strings.Contains(o.stdout, "--provider openai --base-url") {
					t.Errorf("the refusal does not say what would allow it:\n%s", o.stdout)
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := reqs[0].Header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
		})
	}
}

// TestAgentRunRedactsKey: a model that repeats the key, whole or without
// its prefix, does not get it printed: not in the text answer, the JSON
// result, --jq output or the error of a failed run, nor in the transcript.
func TestAgentRunRedactsKey(t *testing.T) {
	answer := "The key is " + agentTestKey + " and its body " + agentTestBody + "."
	failing := `turns:
  - reply: {raw: {status: 400, body: '{"error":{"message":"no such model; your key ` + agentTestBody + ` is fine","type":"invalid"}}'}}
`
	tests := []struct {
		name   string
		script string
		format string // "" for JSON
		extra  []string
		code   int
	}{
		{"json", "turns:\n  - reply: {text: '" + answer + "'}\n", "", nil, 0},
		{"text", "turns:\n  - reply: {text: '" + answer + "'}\n", "text", nil, 0},
		{"jq", "turns:\n  - reply: {text: '" + answer + "'}\n", "-", []string{"--jq", ".data.answer"}, 0},
		{"model error", failing, "", nil, 1},
		{"model error text", failing, "text", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.ws = agentWorkspace(t)
			c.env["OPENAI_API_KEY"] = agentTestKey
			switch tt.format {
			case "text":
				c.json = false
			case "-":
				c.json, c.format = false, "-"
			}
			srv := scriptedServer(t, tt.script)
			args := []string{"agent", "run", "--allow-workspace-code", "--language", "go", "--provider", "openai", "--base-url", srv.OpenAIURL(), "--model", "scripted"}
			o := c.run(append(append(args, tt.extra...), "repeat the key")...)
			if o.code == 0 != (tt.code == 0) {
				t.Fatalf("exit %d, want %d\n%s\n%s", o.code, tt.code, o.stdout, o.stderr)
			}
			out := o.stdout + o.stderr
			if strings.Contains(out, agentTestBody) {
				t.Fatalf("the key is printed:\n%s", out)
			}
			if !strings.Contains(out, "[redacted]") {
				t.Errorf("nothing redacted:\n%s", out)
			}
			runs, _ := filepath.Glob(filepath.Join(c.ws, ".langhost", "runs", "*.jsonl"))
			for _, p := range runs {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), agentTestBody) {
					t.Errorf("the key is in the transcript %s", p)
				}
			}
		})
	}
}
