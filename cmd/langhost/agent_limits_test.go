package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Issue 17, bounded work, through an agent: a model asks go_edit_file for
// more edits than the cap. The call is refused as invalid input naming
// edits, the model is told so, and nothing is written. The real binary
// runs it: the limit is the plugin's.
func TestAgentEditFileLimits(t *testing.T) {
	requireGopls(t)
	ws := agentWorkspace(t)
	calc, err := os.ReadFile(filepath.Join(ws, "calc.go"))
	if err != nil {
		t.Fatal(err)
	}
	edits := make([]map[string]string, 1001)
	for i := range edits {
		edits[i] = map[string]string{"old_text": "a - b", "new_text": "a + b"}
	}
	args, err := json.Marshal(map[string]any{"file": "calc.go", "edits": edits})
	if err != nil {
		t.Fatal(err)
	}
	srv := scriptedServer(t, `
turns:
  - reply:
      tool_calls:
        - name: go_edit_file
          arguments: `+string(args)+`
  - expect: {last_tool_result_is_error: true, last_tool_result_contains: "edits"}
    reply: {text: "Too many edits."}
`)
	cmd := exec.Command(langhostBinary(t), "agent", "run", "--allow-workspace-code", "--workspace", ws, "--provider", "openai-compatible",
		"--base-url", srv.OpenAIURL(), "--model", "scripted", "--yes", "--language", "go", "--format", "json", "fix Add")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("agent run: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "calc.go")); string(got) != string(calc) {
		t.Errorf("calc.go = %q, want it untouched", got)
	}
}
