package exectool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// envSpec has a tool that prints the provider key (as a repository's test
// could) and one whose spec asks for it by name.
const envSpec = `language: {id: envdemo}
tools:
  leak:
    command: sh
    args: ["-c", "echo \"key=$OPENAI_API_KEY token=$ENVDEMO_TOKEN plain=$ENVDEMO_PLAIN\"; env"]
  needs:
    command: sh
    args: ["-c", "echo \"key=$OPENAI_API_KEY token=$ENVDEMO_TOKEN\""]
    passEnv: [ENVDEMO_TOKEN]
`

func envRegistry(t *testing.T) (*registry.Registry, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "file.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	set := spec.Load([]spec.Source{{Name: "test", FS: fstest.MapFS{"envdemo.yaml": {Data: []byte(envSpec)}}}})
	if len(set.Problems) > 0 {
		t.Fatalf("spec problems: %v", set.Problems[0])
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, set, Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return reg, ws.Dir()
}

// TestToolEnvWithoutKeys: a spec tool does not see the provider key or a
// token in its environment; a spec that names a variable in passEnv gets
// that one only.
func TestToolEnvWithoutKeys(t *testing.T) {
	const key = "sk-exectool-0123456789abcdef"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("ENVDEMO_TOKEN", "token-value")
	t.Setenv("ENVDEMO_PLAIN", "plain-value")
	reg, _ := envRegistry(t)
	res, err := reg.Call(context.Background(), "envdemo.leak", registry.Call{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Stdout, "key= token= plain=plain-value\n") || strings.Contains(res.Stdout, key) || strings.Contains(res.Stdout, "token-value") {
		t.Errorf("the tool saw secrets:\n%s", res.Stdout)
	}
	res, err = reg.Call(context.Background(), "envdemo.needs", registry.Call{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "key= token=token-value\n" {
		t.Errorf("stdout = %q, want only the variable passEnv names", res.Stdout)
	}
}

// TestMissingWorkdir: a workdir that does not exist is reported as such,
// naming the input key, before anything runs.
func TestMissingWorkdir(t *testing.T) {
	reg, _ := envRegistry(t)
	tests := []struct {
		workdir string
		code    failure.Code
		want    string
	}{
		{"nowhere", failure.NotFound, `directory "nowhere" does not exist`},
		{"file.txt", failure.InvalidInput, `"file.txt" is not a directory`},
	}
	for _, tt := range tests {
		_, err := reg.Call(context.Background(), "envdemo.leak", registry.Call{WorkspaceCode: true, Input: map[string]any{"workdir": tt.workdir}})
		var fe *failure.Error
		if failure.CodeOf(err) != tt.code || !errors.As(err, &fe) || fe.Field != "workdir" || !strings.Contains(err.Error(), tt.want) ||
			strings.Contains(err.Error(), "executable") {
			t.Errorf("workdir %q: err = %v, want %s on workdir: %s", tt.workdir, err, tt.code, tt.want)
		}
	}
}
