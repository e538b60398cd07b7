package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestValidateInput(t *testing.T) {
	closed := &jsonschema.Schema{Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"packages": {Type: "string"},
			"count":    {Type: "integer"},
		},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	empty := &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	tests := []struct {
		name   string
		schema *jsonschema.Schema
		input  map[string]any
		field  string
		msg    string
	}{
		{"valid", closed, map[string]any{"packages": "./...", "count": 2.0}, "", ""},
		{"nil input", closed, nil, "", ""},
		{"typo", closed, map[string]any{"pakage": "x"}, "pakage", `unknown input "pakage" for demo.vet (did you mean packages?); inputs: count, packages`},
		{"nothing close", closed, map[string]any{"zzzzzzzz": 1}, "zzzzzzzz", `unknown input "zzzzzzzz" for demo.vet; inputs: count, packages`},
		{"no inputs", empty, map[string]any{"x": 1}, "x", "it takes no inputs"},
		{"wrong type", closed, map[string]any{"count": "two"}, "count", "input does not match the schema of demo.vet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &Tool{ID: "demo.vet", InputSchema: tt.schema}
			err := tool.ValidateInput(tt.input)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != tt.field || !strings.Contains(fe.Message, tt.msg) {
				t.Errorf("error = %#v, want invalid_input on %q containing %q", err, tt.field, tt.msg)
			}
		})
	}
}
