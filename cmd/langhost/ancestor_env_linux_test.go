package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ancestorsSpec's tool does what a repository's test could: it reads the
// initial environment of every process above it (/proc/<pid>/environ)
// and says where it found the provider key or the MCP token.
const ancestorsSpec = `language:
  id: ancestors
  extensions: [".ancestors"]
tools:
  walk:
    command: sh
    args:
      - -c
      - |
        p=$PPID; n=0
        while [ "$p" -gt 1 ]; do
          n=$((n+1))
          if tr '\0' '\n' < /proc/$p/environ | grep -q -e sk-toolenv -e toolenv-secret; then echo "key in $p $(cat /proc/$p/comm)"; fi
          p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
        done
        echo "ancestors=$n"
    readOnly: true
`

var keyFound = regexp.MustCompile(`key in \d+ \S+`)

// checkAncestors fails when the walk found a key, or walked nothing.
func checkAncestors(t *testing.T, surface, out string) {
	t.Helper()
	if found := keyFound.FindAllString(out, -1); len(found) > 0 {
		t.Errorf("%s: a tool read a key from an ancestor's environment: %v\n%s", surface, found, out)
	}
	if !strings.Contains(out, "ancestors=") || strings.Contains(out, "ancestors=0") {
		t.Errorf("%s: the walk did not run:\n%s", surface, out)
	}
}

// TestAncestorsHoldNoKey: langhost started with the provider key and the
// MCP token in its environment runs a tool that reads the environment of
// each of its ancestors, through the CLI, the daemon and MCP: none holds
// either (secretenv.Hide overwrote them in langhost's initial block).
func TestAncestorsHoldNoKey(t *testing.T) {
	specs := t.TempDir()
	write(t, filepath.Join(specs, "ancestors.yaml"), ancestorsSpec)
	secrets := []string{"OPENAI_API_KEY=" + envTestKey, "LANGHOST_MCP_TOKEN=" + envTestToken}

	t.Run("cli", func(t *testing.T) {
		ws := t.TempDir()
		cmd := exec.Command(langhostBinary(t), "--workspace", ws, "--languages", specs, "run", "ancestors.walk")
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+configDir(t), "XDG_STATE_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
		cmd.Env = append(cmd.Env, secrets...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		checkAncestors(t, "cli", string(out))
	})
	t.Run("daemon", func(t *testing.T) {
		f := newDaemonFixture(t, secrets...)
		env, code, stderr := f.run("--languages", specs, "run", "ancestors.walk")
		data, _ := json.Marshal(env.Data)
		if code != 0 {
			t.Fatalf("exit %d: %+v\n%s", code, env.Errors, stderr)
		}
		if strings.Contains(stderr, "running the call in this process") {
			t.Errorf("the call did not go through the daemon:\n%s", stderr)
		}
		checkAncestors(t, "daemon", string(data))
	})
	t.Run("mcp", func(t *testing.T) {
		f := newMCPFixture(t)
		write(t, filepath.Join(f.specs, "ancestors.yaml"), ancestorsSpec)
		write(t, filepath.Join(f.workspace, "a.ancestors"), "")
		cmd := f.command(t)
		cmd.Env = append(cmd.Env, secrets...)
		cs, _ := connectStdio(t, cmd, nil)
		res, st := callTool(t, cs, "ancestors_walk", map[string]any{})
		structured, _ := json.Marshal(st)
		if res.IsError {
			t.Fatalf("ancestors_walk failed: %s", resultText(res))
		}
		checkAncestors(t, "mcp", resultText(res)+string(structured))
	})
}
