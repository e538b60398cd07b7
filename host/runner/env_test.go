package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestRunEnvWithoutSecrets: a tool (a repository's tests are its code)
// does not see provider keys or tokens, unless passed by name; the spec's
// own env entries are set as written.
func TestRunEnvWithoutSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-runner-0123456789abcdef")
	t.Setenv("ANTHROPIC_API_KEY", "anthropic-runner-secret")
	t.Setenv("LANGHOST_MCP_TOKEN", "mcp-token-secret")
	t.Setenv("RUNNER_TEST_TOKEN", "other-token")
	t.Setenv("RUNNER_PLAIN", "plain")
	script := `echo "o=$OPENAI_API_KEY a=$ANTHROPIC_API_KEY m=$LANGHOST_MCP_TOKEN r=$RUNNER_TEST_TOKEN p=$RUNNER_PLAIN s=$SPEC_VAR"`
	tests := []struct {
		name string
		cmd  Command
		want string
	}{
		{"scrubbed", Command{Path: "sh", Args: []string{"-c", script}}, "o= a= m= r= p=plain s=\n"},
		{"scrubbed with spec env", Command{Path: "sh", Args: []string{"-c", script}, Env: []string{"SPEC_VAR=x"}}, "o= a= m= r= p=plain s=x\n"},
		{"passed by name", Command{Path: "sh", Args: []string{"-c", script}, PassEnv: []string{"OPENAI_API_KEY", "RUNNER_TEST_TOKEN"}},
			"o=sk-runner-0123456789abcdef a= m= r=other-token p=plain s=\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stdout != tt.want {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.want)
			}
		})
	}
}

// TestRunMissingDir: a working directory that does not exist is named as
// such, not reported as a missing executable.
func TestRunMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	_, err := Run(context.Background(), Command{Path: "sh", Args: []string{"-c", "true"}, Dir: dir})
	if failure.CodeOf(err) != failure.NotFound || !strings.Contains(err.Error(), "working directory") || !strings.Contains(err.Error(), dir) ||
		strings.Contains(err.Error(), "executable") {
		t.Errorf("err = %v, want not_found naming the working directory", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Command{Path: "sh", Args: []string{"-c", "true"}, Dir: file})
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("err = %v, want precondition_failed: not a directory", err)
	}
}
