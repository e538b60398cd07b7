package mcpserver_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/plugins/builtin"

	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/plugins/pluginapi/inputname"
)

// semanticHost is a host of the shipped languages with their semantic
// tools (the built-in plugins), over an empty workspace.
func semanticHost(t *testing.T) *host.Host {
	t.Helper()
	cfg := &config.Config{Workspace: t.TempDir(), Timeout: time.Minute, MaxOutput: 1 << 20}
	h, err := host.Open(context.Background(), cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestInputNamesAreSnakeCase: every input of every tool of every shipped
// language, as MCP clients see it, is spelt in snake_case.
func TestInputNamesAreSnakeCase(t *testing.T) {
	h := semanticHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Profile: mcpserver.ProfileAll, Allow: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	n := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for name := range props {
			if !inputname.IsSnake(name) {
				t.Errorf("%s: input %q is not snake_case", tool.Name, name)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d tools listed", n)
	}
}

// TestDeprecatedInputSpelling: an input's old spelling is accepted as its
// current name, listed as deprecated, and refused beside it.
func TestDeprecatedInputSpelling(t *testing.T) {
	h := semanticHost(t)
	tool, err := h.Registry.Tool("go.rename")
	if err != nil {
		t.Fatal(err)
	}
	if got := tool.DeprecatedInputs()["newName"]; got != "new_name" {
		t.Errorf("deprecated inputs = %v", tool.DeprecatedInputs())
	}
	input := map[string]any{"symbol": "A", "newName": "B"}
	if err := tool.ValidateInput(input); err != nil {
		t.Fatal(err)
	}
	if input["new_name"] != "B" || input["newName"] != nil {
		t.Errorf("input after validation = %v", input)
	}
	if err := tool.ValidateInput(map[string]any{"symbol": "A", "newName": "B", "new_name": "C"}); err == nil {
		t.Error("both spellings accepted")
	}
}
