package workflow

import (
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/workspace"
)

func TestParsePlan(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	step := `{"title": "t", "files": ["a.go"], "acceptance": ["go.test passes"]}`
	tests := []struct {
		name, answer, err string
	}{
		{"plain", `{"steps": [` + step + `]}`, ""},
		{"fenced with prose", "Here it is:\n```json\n{\"steps\": [" + step + "]}\n```\nDone.", ""},
		{"no JSON", "I will fix it.", "no JSON object"},
		{"not JSON", "{steps: [}", "not the expected JSON"},
		{"unknown field", `{"steps": [` + step + `], "shell": "rm -rf /"}`, "unknown field"},
		{"no steps", `{"steps": []}`, "steps: the plan has no steps"},
		{"empty title", `{"steps": [{"title": " ", "acceptance": ["x"]}]}`, "steps[0].title"},
		{"no acceptance", `{"steps": [{"title": "t", "files": []}]}`, "steps[0].acceptance"},
		{"path escape", `{"steps": [{"title": "t", "files": ["../x.go"], "acceptance": ["x"]}]}`, "steps[0].files[0]"},
		{"too many steps", `{"steps": [` + strings.Repeat(step+",", 20) + step + `]}`, "at most 20"},
		{"huge title", `{"steps": [{"title": "` + strings.Repeat("x", 3000) + `", "acceptance": ["x"]}]}`, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePlan(ws, tt.answer)
			if tt.err == "" {
				if err != nil || len(p.Steps) == 0 {
					t.Fatalf("plan %+v, err %v", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.err)
			}
		})
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		answer string
		ok     bool
	}{
		{`{"approved": true, "reasons": []}`, true},
		{`{"approved": false, "reasons": ["fix x"]}`, true},
		{`{"approved": false}`, false},
		{`{"reasons": ["x"]}`, false},
		{`looks good`, false},
		{`{"approved": "yes"}`, false},
	}
	for _, tt := range tests {
		if _, err := parseVerdict(tt.answer); (err == nil) != tt.ok {
			t.Errorf("parseVerdict(%s) = %v, want ok %v", tt.answer, err, tt.ok)
		}
	}
}
