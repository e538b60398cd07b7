package exectool

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/spec"
)

// diagnosticSchema describes one normalised diagnostic.
var diagnosticSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"path":       {Type: "string", Description: "relative to the workspace root, / separators"},
		"line":       {Type: "integer", Description: "1-based; 0 when unknown"},
		"column":     {Type: "integer", Description: "1-based; 0 when unknown"},
		"end_line":   {Type: "integer"},
		"end_column": {Type: "integer"},
		"severity":   {Type: "string", Enum: []any{"error", "warning", "info", "hint"}},
		"code":       {Type: "string"},
		"message":    {Type: "string"},
		"source":     {Type: "string"},
	},
	Required: []string{"path", "line", "column", "severity", "message"},
}

// countsSchema is diagnostic.Counts.
var countsSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
	"error": {Type: "integer"}, "warning": {Type: "integer"}, "info": {Type: "integer"}, "hint": {Type: "integer"},
}, Required: []string{"error", "warning", "info", "hint"}}

// testsSchema is parsers.TestReport.
var testsSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
	"passed":  {Type: "integer"},
	"failed":  {Type: "integer"},
	"skipped": {Type: "integer"},
	"failures": {Type: "array", Items: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
		"name": {Type: "string"}, "file": {Type: "string"}, "line": {Type: "integer"}, "message": {Type: "string"},
	}, Required: []string{"name"}}},
}, Required: []string{"passed", "failed", "skipped", "failures"}}

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
			"success":   {Type: "boolean"},
			"exit_code": {Type: "integer"},
		}}
	case "diagnostics":
		return &jsonschema.Schema{Type: "array", Items: diagnosticSchema}
	case "gotest":
		return testsSchema
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
	s := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"ok":               {Type: "boolean", Description: "the exit code is one of the tool's success codes"},
			"exit_code":        {Type: "integer"},
			"duration_ms":      {Type: "number"},
			"command":          {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "argv that ran"},
			"used_fallback":    {Type: "boolean"},
			"stdout":           {Type: "string"},
			"stderr":           {Type: "string"},
			"stdout_truncated": {Type: "boolean"},
			"stderr_truncated": {Type: "boolean"},
			"outputs":          {Type: "object", Properties: outputs},
			"diagnostics":      {Type: "array", Items: diagnosticSchema},
			"counts":           countsSchema,
		},
		Required: []string{"ok", "exit_code", "diagnostics", "counts"},
	}
	if _, ok := t.OutputParsers[OutputTests]; ok {
		s.Properties["tests"] = testsSchema
	}
	if _, ok := t.OutputParsers[OutputFiles]; ok {
		s.Properties["files"] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"},
			Description: "files the check would change, workspace-relative"}
		s.Required = append(s.Required, "files")
	}
	if HasPacket(t) {
		addPacketOutput(s)
	}
	return s
}
