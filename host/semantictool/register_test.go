package semantictool_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// buildPlugin builds the plugin main package pkg into a fresh directory.
func buildPlugin(t *testing.T, pkg string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", exe, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, out)
	}
	return exe
}

// hostWithSpec loads the embedded specs and spec (as lines.yaml) with no
// built-in plugins, over an empty workspace.
func hostWithSpec(t *testing.T, spec string) *host.Host {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lines.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workspace, cfg.Languages = t.TempDir(), []string{dir}
	h, err := host.New(context.Background(), cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestToolsFromDescription: the tools of a language are what its plugin
// describes; an operation named like a CLI tool of the spec becomes
// <lang>.semantic_<op>; a host without built-in plugins registers no
// tools for the languages they serve, and starts nothing for them.
func TestToolsFromDescription(t *testing.T) {
	plugin := buildPlugin(t, "./testdata/twoops")
	h := hostWithSpec(t, `language: {id: lines, name: Lines}
tools:
  echo: {command: echo, description: the CLI echo}
semantic:
  command: lines-server
  plugin: `+plugin+"\n")
	if len(h.Specs.Problems) != 0 {
		t.Fatalf("problems: %v", h.Specs.Problems)
	}
	var got []string
	for _, tool := range h.Registry.Tools() {
		if tool.Language == "lines" || tool.Kind == registry.KindSemantic {
			got = append(got, tool.ID+"/"+tool.Kind)
		}
	}
	if want := "lines.count_lines/semantic lines.echo/cli lines.semantic_echo/semantic"; strings.Join(got, " ") != want {
		t.Errorf("tools = %v, want %s (and none of the built-in plugins' languages)", got, want)
	}
	res, err := h.Registry.Call(context.Background(), "lines.semantic_echo", registry.Call{WorkspaceCode: true, Input: map[string]any{"message": "hello"}})
	if err != nil || string(res.Data) != `{"message":"hello"}` {
		t.Errorf("lines.semantic_echo = %+v, %v", res, err)
	}
}

// TestUnregistrableDescription: operations whose tool ids clash cost the
// language all of its semantic tools (never half of them), reported on
// the spec file.
func TestUnregistrableDescription(t *testing.T) {
	plugin := buildPlugin(t, "github.com/langhost/langhost/plugins/pluginapi/internal/testagent/testplugin")
	desc := filepath.Join(t.TempDir(), "description.json")
	// format clashes with the CLI tool and becomes semantic_format, which
	// the plugin describes too.
	if err := os.WriteFile(desc, []byte(`{"name":"clash","operations":[{"name":"aaa"},{"name":"format"},{"name":"semantic_format"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESTAGENT_DESCRIBE", desc)
	h := hostWithSpec(t, `language: {id: lines, name: Lines}
tools:
  format: {command: "true"}
semantic:
  command: lines-server
  plugin: `+plugin+"\n")
	for _, id := range []string{"lines.aaa", "lines.semantic_format"} {
		if h.Registry.Has(id) {
			t.Errorf("%s registered", id)
		}
	}
	if !h.Registry.Has("lines.format") {
		t.Errorf("the CLI tool is gone")
	}
	if len(h.Specs.Problems) != 1 {
		t.Fatalf("problems = %v", h.Specs.Problems)
	}
	p := h.Specs.Problems[0].Problems[0]
	if !strings.HasSuffix(p.File, "lines.yaml") || p.Field != "semantic.plugin" || !strings.Contains(p.Message, "lines.semantic_format is taken") {
		t.Errorf("problem = %+v", p)
	}
}

// TestInvalidPluginOutput: output that is not JSON would break every
// envelope it is printed in; it is an internal failure naming the plugin.
func TestInvalidPluginOutput(t *testing.T) {
	plugin := buildPlugin(t, "github.com/langhost/langhost/plugins/pluginapi/internal/testagent/testplugin")
	h := hostWithSpec(t, `language: {id: lines, name: Lines}
semantic:
  command: lines-server
  plugin: `+plugin+"\n")
	_, err := h.Registry.Call(context.Background(), "lines.broken_output", registry.Call{WorkspaceCode: true, Input: map[string]any{}})
	if failure.CodeOf(err) != failure.Internal || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("err = %v, want internal: invalid JSON", err)
	}
}
