package pluginapi_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestDescriptionValidate(t *testing.T) {
	ops := func(list ...pluginapi.Operation) *pluginapi.Description {
		return &pluginapi.Description{Name: "p", Version: "1", Operations: list}
	}
	schema := func(s string) json.RawMessage { return json.RawMessage(s) }
	many := make([]pluginapi.Operation, pluginapi.MaxOperations+1)
	for i := range many {
		many[i].Name = "op" + strings.Repeat("x", i%50) + string(rune('a'+i%26))
	}
	big := `{"description":"` + strings.Repeat("x", pluginapi.MaxSchemaSize) + `"}`
	tests := []struct {
		name  string
		d     *pluginapi.Description
		field string // "" means valid
	}{
		{"valid", ops(
			pluginapi.Operation{Name: "echo", Description: "Echo.", SideEffects: "none", InputSchema: schema(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
			pluginapi.Operation{Name: "count_lines2", SideEffects: "workspace", FailureCodes: []string{"not_found", "internal"}},
			pluginapi.Operation{Name: "n", InputSchema: schema("null"), OutputSchema: schema(" {} ")},
		), ""},
		{"no operations", ops(), ""},
		{"nil", nil, ""},
		{"name with a dot", ops(pluginapi.Operation{Name: "a.b"}), "operations.name"},
		{"name with a slash", ops(pluginapi.Operation{Name: "a/b"}), "operations.name"},
		{"name starts with a digit", ops(pluginapi.Operation{Name: "1a"}), "operations.name"},
		{"name too long", ops(pluginapi.Operation{Name: strings.Repeat("a", pluginapi.MaxNameLength+1)}), "operations.name"},
		{"non-ASCII name", ops(pluginapi.Operation{Name: "échо"}), "operations.name"},
		{"duplicate", ops(pluginapi.Operation{Name: "a"}, pluginapi.Operation{Name: "a"}), "operations.a.name"},
		{"too many", ops(many...), "operations"},
		{"bad UTF-8", ops(pluginapi.Operation{Name: "a", Description: "\xff"}), "operations.a.description"},
		{"long agent name", &pluginapi.Description{Name: strings.Repeat("n", pluginapi.MaxTextLength+1)}, "name"},
		{"side effects", ops(pluginapi.Operation{Name: "a", SideEffects: "external"}), "operations.a.sideEffects"},
		{"failure code", ops(pluginapi.Operation{Name: "a", FailureCodes: []string{"oops"}}), "operations.a.failureCodes"},
		{"schema array", ops(pluginapi.Operation{Name: "a", OutputSchema: schema(`[]`)}), "operations.a.outputSchema"},
		{"schema broken JSON", ops(pluginapi.Operation{Name: "a", InputSchema: schema(`{"type":`)}), "operations.a.inputSchema"},
		{"schema wrong types", ops(pluginapi.Operation{Name: "a", InputSchema: schema(`{"properties":3}`)}), "operations.a.inputSchema"},
		{"schema unresolvable", ops(pluginapi.Operation{Name: "a", InputSchema: schema(`{"$ref":"#/$defs/missing"}`)}), "operations.a.inputSchema"},
		{"schema too big", ops(pluginapi.Operation{Name: "a", InputSchema: schema(big)}), "operations.a.inputSchema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate()
			if tt.name == "nil" {
				if failure.CodeOf(err) != failure.InvalidInput {
					t.Errorf("nil description: %v", err)
				}
				return
			}
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != tt.field {
				t.Fatalf("Validate = %v, want invalid_input on %s", err, tt.field)
			}
			if len(err.Error()) > 600 {
				t.Errorf("error message of %d bytes: a hostile value must not be echoed whole", len(err.Error()))
			}
		})
	}
}

// TestValidateShapeSkipsOnlySchemaDecoding: ValidateShape accepts what
// Validate does, and refuses all but schemas that are not JSON Schema.
func TestValidateShapeSkipsOnlySchemaDecoding(t *testing.T) {
	notSchema := &pluginapi.Description{Operations: []pluginapi.Operation{{Name: "a", InputSchema: json.RawMessage(`{"type":7}`)}}}
	if notSchema.Validate() == nil || notSchema.ValidateShape() != nil {
		t.Errorf("a JSON object that is no JSON Schema: Validate must refuse it, ValidateShape take it")
	}
	badName := &pluginapi.Description{Operations: []pluginapi.Operation{{Name: "A"}}}
	if badName.ValidateShape() == nil {
		t.Errorf("ValidateShape took a bad name")
	}
}

// FuzzDescriptionValidate: no description decoded from JSON makes
// Validate panic, and one it accepts has names fit for tool ids.
func FuzzDescriptionValidate(f *testing.F) {
	f.Add([]byte(`{"name":"p","operations":[{"name":"echo","inputSchema":{"type":"object"}}]}`))
	f.Add([]byte(`{"operations":[{"name":"a","inputSchema":{"$ref":"#/$defs/x","$defs":{"x":{"$ref":"#/$defs/x"}}}}]}`))
	f.Add([]byte(`{"operations":[{"name":"a","inputSchema":{"allOf":[{"$ref":"#"}]}}]}`))
	f.Add([]byte(`{"operations":[{"name":"a","sideEffects":"workspace","failureCodes":["timeout"]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d pluginapi.Description
		if json.Unmarshal(data, &d) != nil {
			return
		}
		if err := d.Validate(); err != nil {
			if failure.CodeOf(err) != failure.InvalidInput {
				t.Fatalf("Validate error of class %s: %v", failure.CodeOf(err), err)
			}
			return
		}
		if err := d.ValidateShape(); err != nil {
			t.Fatalf("Validate took what ValidateShape refuses: %v", err)
		}
		for _, op := range d.Operations {
			if strings.ContainsAny(op.Name, "./\\ -") || op.Name == "" {
				t.Fatalf("accepted operation name %q", op.Name)
			}
		}
	})
}
