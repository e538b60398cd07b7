package parsers

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

const specYAML = `
errors:   {type: lineMatch, pattern: ": error ", ignoreCase: true}
testResults:
  type: regex
  pattern: "Passed:\\s*(\\d+).*Failed:\\s*(\\d+).*Skipped:\\s*(\\d+)"
  ignoreCase: true
  groups: [passed, failed, skipped]
coverage: {type: json, path: "$.summary.lineCoverage"}
success:  {type: exitCode, successCodes: [0]}
diagnostics:
  type: diagnostics
  pattern: '^(?P<file>[^:\s]+\.go):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$'
  severity: error
pyright:
  type: json
  path: "$.generalDiagnostics[*]"
  lineBase: 0
  columnBase: 0
  fields: {file: $.file, line: $.range.start.line, message: $.message}
  source: pyright
cargo:
  type: regex
  mode: sum
  stream: stdout
  maxMatches: 10
  pattern: 'test result: \w+\. (?P<passed>\d+) passed'
tsc: {type: diagnostics, preset: tsc}
custom: {type: diagnostics, errorformat: ["%f:%l: %m"]}
tests: {type: json, jsonLines: true, path: "$.Test"}
`

func TestSpecDecodesStrictYAML(t *testing.T) {
	dec := yaml.NewDecoder(bytes.NewReader([]byte(specYAML)))
	dec.KnownFields(true)
	var specs map[string]Spec
	if err := dec.Decode(&specs); err != nil {
		t.Fatalf("decode: %v", err)
	}
	for name, s := range specs {
		if _, err := Compile(name, s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if lb := specs["pyright"].LineBase; lb == nil || *lb != 0 {
		t.Errorf("pyright lineBase = %v, want 0", lb)
	}

	dec = yaml.NewDecoder(bytes.NewReader([]byte("x: {type: regex, patern: '(a)'}")))
	dec.KnownFields(true)
	if err := dec.Decode(&specs); err == nil {
		t.Error("strict decoding accepted the unknown key patern")
	}
}

func TestSpecJSONSchema(t *testing.T) {
	schema, err := jsonschema.For[Spec](nil)
	if err != nil {
		t.Fatalf("jsonschema.For: %v", err)
	}
	if !slices.Equal(schema.Required, []string{"type"}) {
		t.Errorf("required = %v, want only type", schema.Required)
	}
	for _, key := range []string{"pattern", "ignoreCase", "groups", "mode", "path", "jsonLines", "fields", "lineBase", "columnBase",
		"successCodes", "stream", "errorformat", "preset", "severity", "source", "maxMatches"} {
		p, ok := schema.Properties[key]
		if !ok {
			t.Errorf("schema has no property %q", key)
			continue
		}
		if p.Description == "" {
			t.Errorf("property %q has no description", key)
		}
	}
}
