package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The JSON Schema editors use accepts every shipped spec and refuses the
// semantic blocks Parse refuses.
func TestJSONSchemaValidatesSpecs(t *testing.T) {
	s, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	validate := func(name string, data []byte) error {
		var doc any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Through JSON, as an editor sees the document.
		raw, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var inst any
		if err := json.Unmarshal(raw, &inst); err != nil {
			t.Fatal(err)
		}
		return rs.Validate(inst)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "languages", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no shipped specs found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(f, data); err != nil {
			t.Errorf("%s does not match the schema: %v", filepath.Base(f), err)
		}
	}
	const table = "language: {id: cs}\ntools: {b: {command: x}}\nservers: {ls: {command: csharp-ls, dialect: csharp-ls}}\n"
	for _, tc := range []struct {
		name, yaml string
		ok         bool
	}{
		{"servers", table + "semantic: {servers: [ls]}\n", true},
		{"inline", table + "semantic: {command: gopls}\n", true},
		{"both", table + "semantic: {servers: [ls], command: gopls}\n", false},
		{"neither", table + "semantic: {plugin: x}\n", false},
		{"unknown dialect", "language: {id: cs}\ntools: {b: {command: x}}\nservers: {ls: {command: x, dialect: clangd}}\n", false},
		{"server without command", "language: {id: cs}\ntools: {b: {command: x}}\nservers: {ls: {args: [x]}}\n", false},
	} {
		err := validate(tc.name, []byte(tc.yaml))
		if (err == nil) != tc.ok {
			t.Errorf("%s: schema validation = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if _, perr := Parse("x.yaml", []byte(tc.yaml)); (perr == nil) != tc.ok {
			t.Errorf("%s: Parse = %v, want ok=%v", tc.name, perr, tc.ok)
		}
	}
}
