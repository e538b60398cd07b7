package parsers

import (
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name      string
		spec      Spec
		wantField string
		wantMsg   string
	}{
		{"missing type", Spec{}, "type", "type is required"},
		{"unknown type suggests", Spec{Type: "linematch", Pattern: "x"}, "type", "did you mean lineMatch?"},
		{"unknown type lists valid", Spec{Type: "xml"}, "type", "lineMatch, regex, json, exitCode, diagnostics"},
		{"lineMatch without pattern", Spec{Type: KindLineMatch}, "pattern", "needs a pattern"},
		{"regex without pattern", Spec{Type: KindRegex}, "pattern", "needs a pattern"},
		{"regex does not compile", Spec{Type: KindRegex, Pattern: `(\d+`}, "pattern", "missing closing )"},
		{"regex without groups", Spec{Type: KindRegex, Pattern: `\d+ passed`}, "pattern", "no capturing groups"},
		{"regex unnamed group", Spec{Type: KindRegex, Pattern: `(\d+) passed`}, "pattern", "group 1 has no name"},
		{"groups count mismatch", Spec{Type: KindRegex, Pattern: `(\d+) passed, (\d+) failed`, Groups: []string{"passed"}}, "groups", "groups lists 1 names but the pattern has 2"},
		{"groups disagree with name", Spec{Type: KindRegex, Pattern: `(?P<passed>\d+) (\d+)`, Groups: []string{"ok", "failed"}}, "groups[0]", `named "passed" in the pattern`},
		{"duplicate group names", Spec{Type: KindRegex, Pattern: `(\d+) (\d+)`, Groups: []string{"n", "n"}}, "groups", `both named "n"`},
		{"unknown mode", Spec{Type: KindRegex, Pattern: `(?P<n>\d+)`, Mode: "sums"}, "mode", "did you mean sum?"},
		{"json without path", Spec{Type: KindJSON}, "path", "needs a JSONPath"},
		{"json bad path", Spec{Type: KindJSON, Path: "$.["}, "path", "invalid JSONPath"},
		{"json bad field name", Spec{Type: KindJSON, Path: "$[*]", Fields: map[string]string{"mesage": "$.m"}}, "fields.mesage", "did you mean message?"},
		{"json bad field path", Spec{Type: KindJSON, Path: "$[*]", Fields: map[string]string{"message": "$.m", "line": "$.["}}, "fields.line", "invalid JSONPath"},
		{"json fields without message", Spec{Type: KindJSON, Path: "$[*]", Fields: map[string]string{"file": "$.f"}}, "fields", "must map message"},
		{"bad lineBase", Spec{Type: KindJSON, Path: "$[*]", LineBase: intp(2), Fields: map[string]string{"message": "$.m"}}, "lineBase", "must be 0 or 1"},
		{"bad columnBase", Spec{Type: KindDiagnostics, Preset: "go", ColumnBase: intp(-1)}, "columnBase", "must be 0 or 1"},
		{"lineBase without diagnostics", Spec{Type: KindJSON, Path: "$.a", LineBase: intp(0)}, "lineBase", "only applies to parsers that produce diagnostics"},
		{"key unused by type", Spec{Type: KindRegex, Pattern: `(?P<n>\d+)`, Path: "$.a"}, "path", "path is not used by regex parsers (it applies to json)"},
		{"successCodes on lineMatch", Spec{Type: KindLineMatch, Pattern: "x", SuccessCodes: []int{0}}, "successCodes", "not used by lineMatch"},
		{"unknown stream", Spec{Type: KindLineMatch, Pattern: "x", Stream: "stdrr"}, "stream", "did you mean stderr?"},
		{"negative maxMatches", Spec{Type: KindLineMatch, Pattern: "x", MaxMatches: -1}, "maxMatches", "must not be negative"},
		{"diagnostics without source of lines", Spec{Type: KindDiagnostics}, "pattern", "exactly one of pattern, errorformat or preset"},
		{"diagnostics with two sources", Spec{Type: KindDiagnostics, Pattern: "(?P<message>.*)", Preset: "go"}, "preset", "exactly one of"},
		{"unknown preset", Spec{Type: KindDiagnostics, Preset: "gccc"}, "preset", "did you mean gcc?"},
		{"unknown diagnostic group", Spec{Type: KindDiagnostics, Pattern: `(?P<file>\S+):(?P<lnum>\d+): (?P<message>.*)`}, "pattern", `group "lnum" is not a diagnostic field`},
		{"diagnostics without message group", Spec{Type: KindDiagnostics, Pattern: `(?P<file>\S+):(?P<line>\d+)`}, "pattern", "needs a message group"},
		{"bad severity", Spec{Type: KindDiagnostics, Preset: "go", Severity: "fatalish"}, "severity", "unknown severity"},
		{"bad errorformat line", Spec{Type: KindDiagnostics, Errorformat: []string{"%f:%l: %m", "%f:%l:%c %[a"}}, "errorformat[1]", "invalid errorformat"},
		{"empty errorformat", Spec{Type: KindDiagnostics, Errorformat: []string{}}, "errorformat", "at least one"},
		{"ignoreCase with preset", Spec{Type: KindDiagnostics, Preset: "go", IgnoreCase: true}, "ignoreCase", "pattern only"},
		{"groups with preset", Spec{Type: KindDiagnostics, Preset: "go", Groups: []string{"file"}}, "groups", "pattern only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("out", tt.spec)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Compile error = %v (%T), want *FieldError", err, err)
			}
			if fe.Field != tt.wantField {
				t.Errorf("Field = %q, want %q (error: %v)", fe.Field, tt.wantField, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tt.wantMsg)
			}
			if code := failure.CodeOf(err); code != failure.InvalidInput {
				t.Errorf("failure class = %s, want %s", code, failure.InvalidInput)
			}
		})
	}
}

func TestEveryPresetCompiles(t *testing.T) {
	for _, name := range presetNames() {
		if _, err := Compile("d", Spec{Type: KindDiagnostics, Preset: name}); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

func TestGroupsNameUnnamedOnly(t *testing.T) {
	res := run(t, Spec{Type: KindRegex, Pattern: `(?P<kind>\w+): (\d+)`, Groups: []string{"count"}}, "errors: 3\n", 0)
	if got := asJSON(t, res.Value); got != `{"count":3,"kind":"errors"}` {
		t.Errorf("value = %s", got)
	}
}
