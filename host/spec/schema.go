package spec

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// JSONSchema is the JSON Schema of a spec file, for editors.
func JSONSchema() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[File](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[Duration](): {Type: "string", Pattern: `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
				Description: "Go duration, e.g. 90s or 5m"},
		},
	})
	if err != nil {
		return nil, err
	}
	// Closed vocabularies the struct tags cannot express, so that editors
	// complete and check them.
	in := s.Properties["tools"].AdditionalProperties.Properties["inputs"].AdditionalProperties
	in.Properties["type"].Enum = enumOf(inputTypes)
	in.Properties["items"].Enum = enumOf(itemTypes)
	s.Properties["servers"].AdditionalProperties.Properties["dialect"].Enum = enumOf(dialects)
	s.Properties["packet"].Enum = []any{diagnostic.PacketRaw, diagnostic.PacketCompact, diagnostic.PacketGuided}
	sem := s.Properties["semantic"]
	sem.Properties["dialect"].Enum = enumOf(dialects)
	// A semantic block names servers of the table or describes one
	// inline, never both.
	sem.Required = nil
	sem.OneOf = []*jsonschema.Schema{{Required: []string{"servers"}}, {Required: []string{"command"}}}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.ID = "https://github.com/langhost/langhost/language-spec.schema.json"
	s.Title = "langhost language spec"
	return s, nil
}

func enumOf(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}
