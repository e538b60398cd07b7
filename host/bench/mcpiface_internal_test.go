package bench

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFromMCP reads tool results as langhost mcp writes them back into
// what the registry call returned, and refuses what is not langhost's
// shape with an internal failure naming the tool.
func TestFromMCP(t *testing.T) {
	structured := func(js string) *mcp.CallToolResult {
		var v any
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatal(err)
		}
		isErr := strings.Contains(js, `"error"`)
		return &mcp.CallToolResult{StructuredContent: v, IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: "summary"}}}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	tests := []struct {
		name     string
		res      *mcp.CallToolResult
		wantOK   *bool
		wantCode failure.Code
		wantText string // in the error, or in the result's data
	}{
		{"success", structured(`{"ok":true,"exit_code":0,"duration_ms":12.5,"diagnostics":[],"counts":{}}`), ptr(true), "", ""},
		{"semantic data kept", structured(`{"ok":true,"exit_code":0,"diagnostics":[],"counts":{},"references":[{"path":"a.go"}]}`), ptr(true), "", "a.go"},
		{"tool failed is a result", structured(`{"ok":false,"exit_code":1,"diagnostics":[{"path":"a.go","line":3,"column":1,"severity":"error","message":"undefined: x"}],"counts":{"error":1},"error":{"code":"tool_failed","message":"go.build failed with exit code 1"}}`), ptr(false), "", ""},
		{"failure class kept with field", structured(`{"ok":false,"error":{"code":"invalid_input","field":"packages","message":"packages: must be a string"}}`), nil, failure.InvalidInput, "packages: must be a string"},
		{"rejected edit keeps its details", structured(`{"ok":false,"error":{"code":"diagnostic_regression","message":"rejected","details":{"transaction":{"delta":{"new":[]}}}}}`), nil, failure.DiagnosticRegression, "rejected"},
		{"text JSON when no structured content", text(`{"ok":true,"exit_code":0,"diagnostics":[],"counts":{}}`), ptr(true), "", ""},
		{"not JSON", text("hello"), nil, failure.Internal, "neither structuredContent"},
		{"JSON without ok", structured(`{"exit_code":0}`), nil, failure.Internal, "not a langhost result"},
		{"not an object", &mcp.CallToolResult{StructuredContent: []any{1, 2}}, nil, failure.Internal, "not a langhost result"},
		{"error result without error object", &mcp.CallToolResult{StructuredContent: map[string]any{"ok": false, "exit_code": 1}, IsError: true}, nil, failure.Internal, "without an error object"},
		{"success without a result", structured(`{"ok":true}`), nil, failure.Internal, "without a result"},
		{"error without a code", structured(`{"ok":false,"error":{"message":"boom"}}`), nil, failure.Internal, "boom"},
		{"wrong types", structured(`{"ok":true,"exit_code":"zero"}`), nil, failure.Internal, "go.build over MCP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := fromMCP("go.build", tt.res)
			if tt.wantCode != "" {
				if r != nil || failure.CodeOf(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantText) {
					t.Fatalf("fromMCP = %+v, %v (%s); want %s with %q", r, err, failure.CodeOf(err), tt.wantCode, tt.wantText)
				}
				return
			}
			if err != nil || r == nil || r.OK != *tt.wantOK {
				t.Fatalf("fromMCP = %+v, %v; want a result with ok %v", r, err, *tt.wantOK)
			}
			if tt.wantText != "" && !strings.Contains(string(r.Data), tt.wantText) {
				t.Errorf("data = %s, want %q", r.Data, tt.wantText)
			}
		})
	}
	r, _ := fromMCP("go.build", tests[2].res)
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Line != 3 || r.ExitCode != 1 {
		t.Errorf("a failed tool's result lost its diagnostics: %+v", r)
	}
	_, err := fromMCP("go.edit_file", tests[4].res)
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Details["transaction"] == nil {
		t.Errorf("a rejected edit's details are lost: %#v", err)
	}
	_, err = fromMCP("go.build", tests[3].res)
	if !errors.As(err, &fe) || fe.Field != "packages" || err.Error() != "packages: must be a string" {
		t.Errorf("field error = %#v (%v)", err, err)
	}
}

func ptr[T any](v T) *T { return &v }
