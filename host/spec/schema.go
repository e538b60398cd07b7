package spec

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
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
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.ID = "https://github.com/langhost/langhost/language-spec.schema.json"
	s.Title = "langhost language spec"
	return s, nil
}
