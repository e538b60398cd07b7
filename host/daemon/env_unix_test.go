//go:build unix && !solaris && !aix

package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnEnvWithoutSecrets: the daemon gets no provider key or token,
// but keeps its LANGHOST_* settings.
func TestSpawnEnvWithoutSecrets(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	env := []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-daemon-0123456789abcdef", "GITHUB_TOKEN=ghp_x",
		"LANGHOST_MCP_TOKEN=mcp-secret", "LANGHOST_TRUST_WORKSPACE=1", "PLAIN=yes"}
	exited, err := spawn(Command{Path: "sh", Args: []string{"-c", "env"}, Dir: t.TempDir(), Env: env}, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, gone := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN"} {
		if strings.Contains(got, gone+"=") {
			t.Errorf("the daemon got %s:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"LANGHOST_MCP_TOKEN=mcp-secret", "LANGHOST_TRUST_WORKSPACE=1", "PLAIN=yes"} {
		if !strings.Contains(got, kept+"\n") {
			t.Errorf("the daemon lost %s:\n%s", kept, got)
		}
	}
}
