package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoInput returns the input it was called with as the result's data.
type echoInput struct{}

func (echoInput) Call(_ context.Context, c registry.Call) (*registry.Result, error) {
	raw, err := json.Marshal(c.Input)
	if err != nil {
		return nil, err
	}
	return &registry.Result{OK: true, Data: raw}, nil
}

func TestSemanticToolsDefaultToCompactOverMCP(t *testing.T) {
	h := newHost(t)
	detail := func(enum ...any) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"symbol": {Type: "string"},
			"detail": {Type: "string", Description: "output detail: compact, standard (default) or full", Enum: enum},
		}}
	}
	tools := []*registry.Tool{
		{ID: "demo.find_references", Kind: registry.KindSemantic, InputSchema: detail("compact", "standard", "full")},
		{ID: "demo.no_detail", Kind: registry.KindSemantic, InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"symbol": {Type: "string"}}}},
		{ID: "demo.other_detail", Kind: registry.KindSemantic, InputSchema: detail("low", "high")},
		{ID: "demo.cli_detail", Kind: registry.KindCLI, InputSchema: detail()},
	}
	for _, tool := range tools {
		tool.Language, tool.Handler = "demo", echoInput{}
		if err := h.Registry.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)

	tests := []struct {
		tool string
		args map[string]any
		want any // the detail the tool receives; nil for none
	}{
		{"demo.find_references", map[string]any{"symbol": "X"}, "compact"},
		{"demo.find_references", nil, "compact"},
		{"demo.find_references", map[string]any{"symbol": "X", "detail": "standard"}, "standard"},
		{"demo.find_references", map[string]any{"detail": "full"}, "full"},
		{"demo.no_detail", map[string]any{"symbol": "X"}, nil},
		{"demo.other_detail", map[string]any{"symbol": "X"}, nil},
		{"demo.cli_detail", map[string]any{"symbol": "X"}, nil},
	}
	for _, tt := range tests {
		res, st := call(t, cs, toolname.Name(tt.tool), tt.args)
		if res.IsError {
			t.Errorf("%s %v failed: %s", tt.tool, tt.args, text(res))
			continue
		}
		// An operation's keys are merged into the result (no data.data).
		data := st
		if d, ok := st["data"].(map[string]any); ok {
			data = d
		}
		if got := data["detail"]; got != tt.want {
			t.Errorf("%s %v: the tool got detail %v, want %v", tt.tool, tt.args, got, tt.want)
		}
	}

	listed := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed[tool.Name] = tool
	}
	defaultOf := func(name string) string {
		raw, _ := json.Marshal(listed[name].InputSchema)
		var s struct {
			Properties map[string]struct {
				Default json.RawMessage `json:"default"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return string(s.Properties["detail"].Default)
	}
	if got := defaultOf("demo_find_references"); got != `"compact"` {
		t.Errorf("served schema of find_references: detail default %s, want \"compact\"", got)
	}
	if got := defaultOf("demo_cli_detail"); got != "" {
		t.Errorf("served schema of a CLI tool: detail default %s, want none", got)
	}
	// The registry's own schema, which the CLI uses, is unchanged.
	tool, err := h.Registry.Tool("demo.find_references")
	if err != nil {
		t.Fatal(err)
	}
	if d := tool.InputSchema.Properties["detail"]; d.Default != nil || d.Description != "output detail: compact, standard (default) or full" {
		t.Errorf("the registry's schema was changed: %+v", d)
	}
}
