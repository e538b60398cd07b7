package exectool

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/spec"
)

// Names of the inputs every spec tool may take.
const (
	InputProject       = "project"
	InputPath          = "path"
	InputScript        = "script"
	InputConfiguration = "configuration"
	InputWorkdir       = "workdir"
)

// param is one input of a tool and where its value goes on the command line.
type param struct {
	name  string
	input spec.Input
	spec.Placement
	// optionLike says the value may start with "-" or "@" (see
	// spec.Tool.OptionLikeAllowed); other values are refused before
	// anything runs.
	optionLike bool
}

// params lists a tool's inputs in a stable order: the standard ones, then
// the tool's own in file order. Metadata in `inputs` overrides the defaults
// of standard inputs.
func params(t *spec.Tool) []param {
	var ps []param
	add := func(name string, in spec.Input) {
		pl, ok := t.Placement(name)
		if !ok {
			return
		}
		ps = append(ps, param{name: name, input: in, Placement: pl, optionLike: t.OptionLikeAllowed(name)})
	}
	std := func(name, desc string) {
		in := spec.Input{Type: "string", Description: desc}
		if name != InputConfiguration {
			in.Type = "path"
		}
		if meta := t.Inputs[name]; meta != nil {
			mergeInput(&in, meta)
		}
		add(name, in)
	}
	std(InputProject, "project file or directory, relative to the workspace root")
	std(InputPath, "file or directory to act on, relative to the workspace root")
	std(InputScript, "script file to run, relative to the workspace root")
	std(InputConfiguration, "build configuration, e.g. Debug or Release")
	for _, name := range t.InputOrder {
		if name == InputProject || name == InputPath || name == InputScript || name == InputConfiguration {
			continue
		}
		add(name, *t.Inputs[name])
	}
	return ps
}

func mergeInput(dst *spec.Input, src *spec.Input) {
	if src.Type != "" {
		dst.Type = src.Type
	}
	if src.Description != "" {
		dst.Description = src.Description
	}
	dst.Required = dst.Required || src.Required
	if src.Default != nil {
		dst.Default = src.Default
	}
	if src.Enum != nil {
		dst.Enum = src.Enum
	}
}

// InputSchema is the JSON Schema of a tool's input object.
func InputSchema(t *spec.Tool) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	for _, p := range params(t) {
		ps, err := propertySchema(p.input)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input %s: %w", t.ID, p.name, err)
		}
		s.Properties[p.name] = ps
		if p.input.Required {
			s.Required = append(s.Required, p.name)
		}
	}
	s.Properties[InputWorkdir] = &jsonschema.Schema{Type: "string",
		Description: "working directory relative to the workspace root (default: the root)"}
	if HasPacket(t) {
		s.Properties[InputPacket] = packetInputSchema()
	}
	return s, nil
}

func propertySchema(in spec.Input) (*jsonschema.Schema, error) {
	ps := &jsonschema.Schema{Description: in.Description, Enum: in.Enum}
	switch in.Type {
	case "", "string":
		ps.Type = "string"
	case "path":
		ps.Type = "string"
		if ps.Description == "" {
			ps.Description = "path relative to the workspace root"
		}
	case "integer", "number", "boolean":
		ps.Type = in.Type
	case "array":
		ps.Type = "array"
		ps.Items = &jsonschema.Schema{Type: "string"}
		if in.Items == "path" {
			ps.Items.Description = "path relative to the workspace root"
		}
	default:
		return nil, fmt.Errorf("unknown type %q", in.Type)
	}
	if in.Default != nil {
		raw, err := json.Marshal(in.Default)
		if err != nil {
			return nil, err
		}
		ps.Default = raw
	}
	return ps, nil
}
