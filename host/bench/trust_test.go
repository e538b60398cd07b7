package bench_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestCheckTrust: only files naming commands are asked about, and a
// refusal is precondition_failed naming the file, the field and the fix.
func TestCheckTrust(t *testing.T) {
	tools := &bench.Scenario{File: "/r/bench/tools.yaml", Checks: []bench.Check{{Tool: "go.build"}}}
	cmds := &bench.Scenario{File: "/r/bench/cmds.yaml", Checks: []bench.Check{{Tool: "go.build"}, {Command: []string{"sh", "-c", "x"}}}}
	ext := []bench.RunConfig{{Name: "a"}, {Name: "b", Command: []string{"agent", "{task}"}}}
	tests := []struct {
		name      string
		scenarios []*bench.Scenario
		file      string
		configs   []bench.RunConfig
		trusted   map[string]bool
		asked     string // files asked, in order
		refused   string // in the error; "" for none
		reason    string // the trust function's reason; "not trusted" if ""
	}{
		{"tools only", []*bench.Scenario{tools}, "", ext, nil, "", "", ""},
		{"flag configs", []*bench.Scenario{tools}, "", ext, nil, "", "", ""},
		{"untrusted command", []*bench.Scenario{tools, cmds}, "", nil, nil, "/r/bench/cmds.yaml", `/r/bench/cmds.yaml: checks[1].command runs "sh -c x"`, ""},
		{"untrusted config file", []*bench.Scenario{tools}, "/r/bench/c.yaml", ext, nil, "/r/bench/c.yaml", "/r/bench/c.yaml: configs[1].command", ""},
		// config.FileTrust's reason says how to trust: the refusal says it once.
		{"reason with the fix", []*bench.Scenario{cmds}, "", nil, nil, "/r/bench/cmds.yaml", `checks[1].command`,
			"it is in no trusted workspace; review it and run `langhost trust DIR` for the workspace it belongs to"},
		{"trusted", []*bench.Scenario{cmds}, "/r/bench/c.yaml", ext, map[string]bool{"/r/bench/cmds.yaml": true, "/r/bench/c.yaml": true}, "/r/bench/cmds.yaml /r/bench/c.yaml", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			err := bench.CheckTrust(tt.scenarios, tt.file, tt.configs, func(file string) (bool, string, error) {
				asked = append(asked, file)
				if tt.reason == "" {
					return tt.trusted[file], "not trusted", nil
				}
				return tt.trusted[file], tt.reason, nil
			})
			if got := strings.Join(asked, " "); got != tt.asked {
				t.Errorf("asked about %q, want %q", got, tt.asked)
			}
			if tt.refused == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "langhost trust") {
				t.Fatalf("err = %v (%s), want precondition_failed with %q", err, failure.CodeOf(err), tt.refused)
			}
			if n := strings.Count(err.Error(), "langhost trust"); n != 1 {
				t.Errorf("the refusal says `langhost trust` %d times: %v", n, err)
			}
		})
	}
	boom := errors.New("boom")
	err := bench.CheckTrust([]*bench.Scenario{cmds}, "", nil, func(string) (bool, string, error) { return false, "", boom })
	if !errors.Is(err, boom) || failure.CodeOf(err) != failure.Precondition {
		t.Fatalf("err = %v", err)
	}
}
