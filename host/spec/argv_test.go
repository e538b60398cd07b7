package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestArgvValidation(t *testing.T) {
	tests := []struct {
		name  string
		tool  string // YAML of tools.x, indented by four spaces
		field string // "" for a valid spec
		msg   string
	}{
		{"allowDash on a separate flag", `
    command: go
    inputs: {run: {type: string, flag: "-run", allowDash: true}}`, "", ""},
		{"allowDash after endOfOptions", `
    command: go
    endOfOptions: true
    inputs: {args: {type: array, arg: -1, allowDash: true}}`, "", ""},
		{"allowDash after -- in args", `
    command: cargo
    args: [run, --]
    inputs: {args: {type: array, arg: -1, allowDash: true}}`, "", ""},
		{"option-like default joined to its flag", `
    command: gcc
    inputs: {checks: {type: string, flag: "--checks=", default: "-*,bugprone-*"}}`, "", ""},
		{"items path", `
    command: gcc
    inputs: {dirs: {type: array, items: path, flag: "-I"}}`, "", ""},

		{"allowDash on a positional input", `
    command: go
    inputs: {pkg: {type: string, arg: -1, allowDash: true}}`, "tools.x.inputs.pkg.allowDash", "needs endOfOptions"},
		{"allowDash before the -- in args", `
    command: cargo
    args: [run, --]
    inputs: {pkg: {type: string, arg: 1, allowDash: true}}`, "tools.x.inputs.pkg.allowDash", "needs endOfOptions"},
		{"allowDash before the -- of the fallback", `
    command: cargo
    args: [run, --]
    fallback: {command: other, args: [run]}
    inputs: {args: {type: array, arg: -1, allowDash: true}}`, "tools.x.inputs.args.allowDash", "needs endOfOptions"},
		{"allowDash on a joined flag", `
    command: go
    inputs: {tags: {type: string, flag: "-tags=", allowDash: true}}`, "tools.x.inputs.tags.allowDash", "no effect"},
		{"allowDash on a boolean", `
    command: go
    inputs: {v: {type: boolean, flag: "-v", allowDash: true}}`, "tools.x.inputs.v.allowDash", "only its flag"},
		{"allowDash on a path", `
    command: gofmt
    pathArg: -1
    inputs: {path: {allowDash: true}}`, "tools.x.inputs.path.allowDash", "never start with -"},
		{"endOfOptions with an insert inside args", `
    command: go
    args: [vet, ./...]
    pathArg: 1
    endOfOptions: true`, "tools.x.pathArg", "must append (-1)"},
		{"endOfOptions without positional inputs", `
    command: go
    endOfOptions: true
    inputs: {tags: {type: string, flag: "-tags="}}`, "tools.x.endOfOptions", "no positional input"},
		{"endOfOptions and -- in args", `
    command: cargo
    args: [run, --]
    endOfOptions: true
    inputs: {args: {type: array, arg: -1}}`, "tools.x.endOfOptions", "already contain"},
		{"flag input after -- in args", `
    command: cargo
    args: [run, --]
    inputs: {release: {type: boolean, flag: "--release"}}`, "tools.x.inputs.release.flag", "operand"},
		{"configArg after -- in args", `
    command: dotnet
    args: [run, --]
    configArg: [--configuration]`, "tools.x.configArg", "operand"},
		{"option-like default", `
    command: go
    inputs: {pkg: {type: string, arg: -1, default: "-toolexec=./x.sh"}}`, "tools.x.inputs.pkg.default", `"-toolexec=./x.sh" starts with "-"`},
		{"negative default after a separate flag", `
    command: go
    inputs: {count: {type: integer, flag: "-count", default: -1}}`, "tools.x.inputs.count.default", `"-1" starts with "-"`},
		{"option-like enum value", `
    command: gcc
    inputs: {file: {type: string, arg: -1, enum: [a.c, "@opts"]}}`, "tools.x.inputs.file.enum", `"@opts" starts with "@"`},
		{"items on a string", `
    command: gcc
    inputs: {dir: {type: string, items: path, flag: "-I"}}`, "tools.x.inputs.dir.items", "array only"},
		{"unknown items type", `
    command: gcc
    inputs: {dirs: {type: array, items: file, flag: "-I"}}`, "tools.x.inputs.dirs.items", `unknown items type "file"`},
		{"flag and arg", `
    command: go
    inputs: {pkg: {type: string, flag: "-p", arg: -1}}`, "tools.x.inputs.pkg", "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte("language: {id: demo}\ntools:\n  x:"+tt.tool+"\n"))
			if tt.field == "" {
				if err != nil {
					t.Fatalf("valid spec refused: %v", err)
				}
				return
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a problem at %s", err, tt.field)
			}
			for _, p := range fe.Problems {
				if p.Field == tt.field && strings.Contains(p.Message, tt.msg) && p.Line > 0 {
					return
				}
			}
			t.Errorf("problems %v lack %s: ...%s...", fe.Problems, tt.field, tt.msg)
		})
	}
}

func TestOptionLikeAllowed(t *testing.T) {
	const y = `language: {id: demo}
tools:
  x:
    command: go
    args: [vet]
    endOfOptions: true
    configArg: [-tags]
    inputs:
      run: {type: string, flag: "-run", allowDash: true}
      count: {type: integer, flag: "-count"}
      tags: {type: string, flag: "-tags="}
      pkgs: {type: array, arg: -1}
      args: {type: array, arg: -1, allowDash: true}
`
	f, err := Parse("x.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	tool := f.Tools["x"]
	want := map[string]bool{"run": true, "count": false, "tags": true, "pkgs": false, "args": true, "configuration": false, "path": false}
	for name, ok := range want {
		if got := tool.OptionLikeAllowed(name); got != ok {
			t.Errorf("OptionLikeAllowed(%s) = %v, want %v", name, got, ok)
		}
	}
}

func TestJSONSchemaArgvFields(t *testing.T) {
	s, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	tool := s.Properties["tools"].AdditionalProperties
	if p := tool.Properties["endOfOptions"]; p == nil || p.Type != "boolean" {
		t.Errorf("endOfOptions = %+v", p)
	}
	in := tool.Properties["inputs"].AdditionalProperties
	if p := in.Properties["allowDash"]; p == nil || p.Type != "boolean" {
		t.Errorf("allowDash = %+v", p)
	}
	if p := in.Properties["items"]; p == nil || len(p.Enum) != 2 || p.Enum[1] != "path" {
		t.Errorf("items = %+v", p)
	}
	if p := in.Properties["type"]; p == nil || len(p.Enum) != len(inputTypes) {
		t.Errorf("type = %+v", p)
	}
}
