package registry

import (
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

func TestResultFailure(t *testing.T) {
	buildErr := []diagnostic.Diagnostic{{Path: "a_test.go", Line: 3, Severity: diagnostic.Error, Message: "undefined: missing"}}
	tests := []struct {
		name     string
		res      Result
		readOnly bool
		want     string
	}{
		{"ok", Result{OK: true}, false, ""},
		{"exit code", Result{ExitCode: 2}, false, "x.t failed with exit code 2"},
		{"failed tests", Result{ExitCode: 1, Tests: &parsers.TestReport{Failed: 2}}, false, "x.t: 2 tests failed"},
		{"files a check would change, exit 0", Result{Files: []string{"a.go"}}, true, "x.t: 1 files would change: a.go"},
		{"no failed test: the build error", Result{ExitCode: 1, Tests: &parsers.TestReport{}, Diagnostics: buildErr, Counts: diagnostic.Count(buildErr)},
			false, "x.t failed with exit code 1 and no failed test: a_test.go:3: undefined: missing"},
		{"no failed test: the last line", Result{ExitCode: 1, Tests: &parsers.TestReport{Passed: 3}, Stderr: "ok\nCoverage 41% is below the threshold 80%\n\n"},
			false, "x.t failed with exit code 1 and no failed test: Coverage 41% is below the threshold 80%"},
		{"warnings say why", Result{ExitCode: 1, Diagnostics: []diagnostic.Diagnostic{{Path: "a.go", Line: 5, Severity: diagnostic.Warning, Message: "unused"}},
			Stderr: "vet: a.go:5: unused\n"}, true, "x.t failed with exit code 1"},
		{"read-only errors", Result{OK: true, Counts: diagnostic.Counts{Error: 1}}, true, "x.t reported 1 errors"},
		{"a write's errors are the gate's", Result{OK: true, Counts: diagnostic.Counts{Error: 1}}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Failure("x.t", tt.readOnly); got != tt.want {
				t.Errorf("Failure = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestToolConfirmation(t *testing.T) {
	schema := func(keys ...string) *jsonschema.Schema {
		s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
		for _, k := range keys {
			s.Properties[k] = &jsonschema.Schema{Type: "boolean"}
		}
		return s
	}
	tests := []struct {
		name string
		tool *Tool
		want string
	}{
		{"cli write", &Tool{Kind: KindCLI, SideEffects: "workspace", RequiresConfirmation: true}, "always"},
		{"cli read", &Tool{Kind: KindCLI, SideEffects: "none", ReadOnly: true}, "never"},
		{"semantic read", &Tool{Kind: KindSemantic, SideEffects: "none", ReadOnly: true, InputSchema: schema("file")}, "never"},
		{"preview unless apply", &Tool{Kind: KindSemantic, SideEffects: "workspace", InputSchema: schema("apply")}, "to write (apply)"},
		{"writes unless dry_run", &Tool{Kind: KindSemantic, SideEffects: "workspace", InputSchema: schema("dry_run")}, "to write (unless dry_run)"},
		{"transaction without a switch", &Tool{Kind: KindSemantic, SideEffects: "workspace", InputSchema: schema("file")}, "always"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tool.Confirmation(); got != tt.want {
				t.Errorf("Confirmation = %q, want %q", got, tt.want)
			}
		})
	}
}
