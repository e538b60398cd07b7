package registry

import (
	"context"
	"errors"
	"fmt"
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
	required := &jsonschema.Schema{Type: "object", Required: []string{"symbol", "new_name"},
		Properties: map[string]*jsonschema.Schema{
			"symbol":   {Type: "string", Description: "Name path of the declaration. More text."},
			"new_name": {Type: "string"},
		}}
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
		// In words, not `required: missing properties: ["symbol" "new_name"]`.
		{"missing required", required, map[string]any{}, "symbol", "demo.vet needs the inputs symbol (Name path of the declaration) and new_name"},
		{"one missing", required, map[string]any{"symbol": "X"}, "new_name", "demo.vet needs the input new_name"},
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

func TestToolsSortedAfterEveryAdd(t *testing.T) {
	r := New()
	for _, id := range []string{"go.vet", "c.build"} {
		if err := r.Add(&Tool{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(r.IDs(), ","); got != "c.build,go.vet" {
		t.Errorf("IDs = %s", got)
	}
	if err := r.Add(&Tool{ID: "d.test"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Add(&Tool{ID: "d.test"}); err == nil {
		t.Error("second d.test: want an error")
	}
	var ids []string
	for _, tool := range r.Tools() {
		ids = append(ids, tool.ID)
	}
	if got := strings.Join(ids, ","); got != "c.build,d.test,go.vet" {
		t.Errorf("Tools after another Add = %s", got)
	}
	_, err := r.Tool("d.tset")
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Code != failure.NotFound || !strings.Contains(fe.Message, "did you mean d.test") {
		t.Errorf("miss: %v", err)
	}
}

// BenchmarkLookup looks tools up by id in registries of 100 and 10,000
// tools: a hit costs the same whatever the size (a map access). A miss
// ranks every id once for "did you mean".
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		r := New()
		ids := make([]string, n)
		for i := range n {
			ids[i] = fmt.Sprintf("lang%d.tool%d", i%50, i)
			if err := r.Add(&Tool{ID: ids[i]}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("hit/%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, err := r.Tool(ids[i%n]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("miss/%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := r.Tool("lang1.tool"); err == nil {
					b.Fatal("found a tool that does not exist")
				}
			}
		})
	}
}

// TestListLoadsNoSchemas: choosing tools (List) must not pay for decoding
// the schemas of hundreds of tools; Tool and Tools load them.
func TestListLoadsNoSchemas(t *testing.T) {
	r := New()
	loads := map[string]int{}
	for _, id := range []string{"a.one", "b.two"} {
		err := r.Add(&Tool{ID: id, Language: strings.Split(id, ".")[0],
			LoadSchemas: func() (in, out *jsonschema.Schema) {
				loads[id]++
				return &jsonschema.Schema{Type: "object"}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := r.List(); len(got) != 2 || got[0].ID != "a.one" || got[1].ID != "b.two" {
		t.Fatalf("List = %v", got)
	}
	if len(loads) != 0 {
		t.Fatalf("List loaded schemas: %v", loads)
	}
	tool, err := r.Tool("b.two")
	if err != nil {
		t.Fatal(err)
	}
	if tool.InputSchema == nil || loads["b.two"] != 1 || loads["a.one"] != 0 {
		t.Errorf("Tool loaded %v, schema %v", loads, tool.InputSchema)
	}
	r.Tools()
	if loads["a.one"] != 1 || loads["b.two"] != 1 {
		t.Errorf("Tools loaded %v, want each once", loads)
	}
}

// TestToolInputLoadsNoOutputSchema: a tool whose output schema is supplied
// apart has it decoded only for a caller that may read it (Tool), not for
// ToolInput or a call, which need the input schema alone.
func TestToolInputLoadsNoOutputSchema(t *testing.T) {
	r := New()
	var ins, outs int
	err := r.Add(&Tool{ID: "a.one", Language: "a", Handler: echoHandler{},
		LoadSchemas: func() (in, out *jsonschema.Schema) {
			ins++
			return &jsonschema.Schema{Type: "object"}, &jsonschema.Schema{Type: "string"}
		},
		LoadOutputSchema: func() *jsonschema.Schema { outs++; return &jsonschema.Schema{Type: "object"} }})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := r.ToolInput("a.one")
	if err != nil || tool.InputSchema == nil || ins != 1 || outs != 0 {
		t.Fatalf("ToolInput = %v, %v: %d input and %d output loads, want 1 and 0", tool, err, ins, outs)
	}
	if _, err := r.Call(context.Background(), "a.one", Call{Input: map[string]any{}}); err != nil || outs != 0 {
		t.Fatalf("Call: %v, %d output loads, want 0", err, outs)
	}
	if tool, err = r.Tool("a.one"); err != nil || tool.OutputSchema == nil || tool.OutputSchema.Type != "object" || ins != 1 || outs != 1 {
		t.Fatalf("Tool = %v, %v: %d input and %d output loads, want each once, with LoadOutputSchema's schema", tool, err, ins, outs)
	}
	if _, err := r.ToolInput("b.two"); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("ToolInput of an unknown id: %v, want not_found", err)
	}
}

type echoHandler struct{}

func (echoHandler) Call(_ context.Context, call Call) (*Result, error) {
	return &Result{OK: true}, nil
}
