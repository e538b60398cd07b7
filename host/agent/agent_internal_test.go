package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestChoose(t *testing.T) {
	lang := func(id string, prio int, caps []string, exts ...string) *Specialist {
		return &Specialist{ID: id + "-coding", Language: id, Priority: prio, Capabilities: caps,
			Spec: &spec.File{Language: spec.Language{ID: id, Extensions: exts}}}
	}
	agents := []*Specialist{
		lang("csharp", 20, []string{"coding", "dotnet"}, ".cs"),
		lang("go", 10, []string{"coding"}, ".go"),
		lang("python", 10, []string{"coding", "scripting"}, ".py", ".pyi"),
	}
	tests := []struct {
		sel  Selection
		want string // agent id, or the failure code
	}{
		{Selection{Language: "go", Task: "fix main.py"}, "go-coding"},
		{Selection{Language: "python-coding"}, "python-coding"},
		{Selection{Language: "gox"}, string(failure.NotFound)},
		{Selection{Task: "fix the test in calc/calc_test.go"}, "go-coding"},
		{Selection{Task: "port a.py, b.py and stubs.pyi to c.go"}, "python-coding"},
		{Selection{Task: "make it faster"}, "csharp-coding"}, // coding, highest priority
		{Selection{Task: "a script", Capability: "scripting"}, "python-coding"},
		{Selection{Task: "x", Capability: "haskell"}, string(failure.NotFound)},
		{Selection{Task: "version 1.2 of README.md"}, "csharp-coding"}, // no known extension
	}
	for _, tt := range tests {
		got, err := Choose(agents, tt.sel)
		id := ""
		if err != nil {
			id = string(failure.CodeOf(err))
		} else {
			id = got.ID
		}
		if id != tt.want {
			t.Errorf("Choose(%+v) = %s (%v), want %s", tt.sel, id, err, tt.want)
		}
	}
	if _, err := Choose(nil, Selection{}); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("no agents: %v", err)
	}
}

// TestObservationFitsBudget: whatever a tool returns, the model gets at
// most the budget, valid JSON while cutting can keep it so, and says what
// was cut.
func TestObservationFitsBudget(t *testing.T) {
	var many []diagnostic.Diagnostic
	for i := range 500 {
		many = append(many, diagnostic.Diagnostic{Path: "a.go", Line: i + 1, Column: 1, Severity: "error", Message: strings.Repeat("undefined: x ", 5)})
	}
	huge := strings.Repeat("log line\n", 100000)
	tests := []struct {
		name string
		res  *registry.Result
		err  error
		cut  string
	}{
		{"huge output", &registry.Result{OK: false, ExitCode: 1, Command: []string{"go"}, Stderr: huge}, nil, "output"},
		{"many diagnostics", &registry.Result{OK: false, ExitCode: 1, Command: []string{"go"}, Diagnostics: many}, nil, "diagnostics"},
		{"huge data", &registry.Result{OK: true, Data: json.RawMessage(fmt.Sprintf(`{"text": %q}`, huge))}, nil, "data"},
		{"huge error", nil, failure.New(failure.InvalidInput, "%s", huge), "error message"},
		{"regression", nil, &failure.Error{Code: failure.DiagnosticRegression, Message: "rejected",
			Details: map[string]any{"transaction": map[string]any{"delta": map[string]any{"new": many}}}}, "new diagnostics"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, code, isErr := observe("go.build", tt.res, tt.err, 500)
			if len(text) > 500*bytesPerToken {
				t.Fatalf("observation is %d bytes, budget %d", len(text), 500*bytesPerToken)
			}
			if wantErr := tt.res == nil || !tt.res.OK; isErr != wantErr || (code == "") == wantErr {
				t.Errorf("code %q, isError %v", code, isErr)
			}
			var o observation
			if err := json.Unmarshal([]byte(text), &o); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, text)
			}
			if !strings.Contains(o.Truncated, tt.cut) {
				t.Errorf("truncated = %q, want it to name %q", o.Truncated, tt.cut)
			}
		})
	}
	if text, code, isErr := observe("go.vet", &registry.Result{OK: true, ExitCode: 0, Command: []string{"go"}}, nil, 0); isErr || code != "" || !strings.Contains(text, `"ok":true`) {
		t.Errorf("success observed as %s %q %v", text, code, isErr)
	}
	if _, code, _ := observe("x", nil, errors.New("plain"), 0); code != failure.Internal {
		t.Errorf("plain error code %q", code)
	}
}
