package exectool

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/spec"
)

// diagnosticSchema describes one normalised diagnostic.
var diagnosticSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"file":     {Type: "string"},
		"line":     {Type: "integer", Description: "1-based"},
		"column":   {Type: "integer", Description: "1-based; 0 when unknown"},
		"severity": {Type: "string", Enum: []any{"error", "warning", "info", "hint"}},
		"code":     {Type: "string"},
		"message":  {Type: "string"},
		"source":   {Type: "string"},
	},
	Required: []string{"severity", "message"},
}

// parserOutputSchema describes what one parser type produces.
func parserOutputSchema(typ string) *jsonschema.Schema {
	switch typ {
	case "lineMatch":
		return &jsonschema.Schema{Type: "object", Description: "matching lines", Properties: map[string]*jsonschema.Schema{
			"count":     {Type: "integer"},
			"lines":     {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			"truncated": {Type: "boolean"},
		}}
	case "exitCode":
		return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"success":  {Type: "boolean"},
			"exitCode": {Type: "integer"},
		}}
	case "diagnostics":
		return &jsonschema.Schema{Type: "array", Items: diagnosticSchema}
	case "regex":
		return &jsonschema.Schema{Description: "captured groups: an object, a list of objects (mode all) or null"}
	default:
		return &jsonschema.Schema{Description: "value selected from the tool's JSON output"}
	}
}

// OutputSchema is the JSON Schema of a spec tool's result.
func OutputSchema(t *spec.Tool) *jsonschema.Schema {
	outputs := map[string]*jsonschema.Schema{}
	for name, p := range t.OutputParsers {
		outputs[name] = parserOutputSchema(string(p.Type))
	}
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"ok":              {Type: "boolean", Description: "the exit code is one of the tool's success codes"},
			"exitCode":        {Type: "integer"},
			"durationMs":      {Type: "number"},
			"command":         {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "argv that ran"},
			"usedFallback":    {Type: "boolean"},
			"stdout":          {Type: "string"},
			"stderr":          {Type: "string"},
			"stdoutTruncated": {Type: "boolean"},
			"stderrTruncated": {Type: "boolean"},
			"outputs":         {Type: "object", Properties: outputs},
			"diagnostics":     {Type: "array", Items: diagnosticSchema},
		},
		Required: []string{"ok", "exitCode", "diagnostics"},
	}
}
