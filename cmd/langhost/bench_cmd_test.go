package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchRunAndReport runs a shipped scenario with an external "agent"
// (sed fixes the fixture) and a run that changes nothing through the CLI,
// then prints the report in every format.
func TestBenchRunAndReport(t *testing.T) {
	scenario, _ := filepath.Abs("../../bench/scenarios/go-fix-failing-test.yaml")
	out := filepath.Join(t.TempDir(), "results")
	configs := filepath.Join(t.TempDir(), "configs.yaml")
	err := os.WriteFile(configs, []byte(`configs:
  - {name: sed, command: [sed, -i, "s/a - b/a + b/", calc.go]}
  - {name: noop, runner: external, command: ["true"], timeout: 1m}
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	// The scenario's go vet check and the configs' commands are commands
	// from files; this run trusts them as CI does (TestBenchRunTrust has
	// the refusals).
	c.env["LANGHOST_TRUST_WORKSPACE"] = "1"
	o := c.run("bench", "run", "--config", configs, "--out", out, scenario)
	if o.code != 1 || o.env.OK || len(o.env.Errors) == 0 || !strings.Contains(o.env.Errors[0].Message, "1 of 2 runs failed") {
		t.Fatalf("bench run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var data struct {
		Out    string `json:"out"`
		Failed int    `json:"failed"`
		Report struct {
			Runs []struct {
				Config  string `json:"config"`
				Success bool   `json:"success"`
			} `json:"runs"`
		} `json:"report"`
	}
	remarshal(t, o.env.Data, &data)
	if data.Out != out || data.Failed != 1 || len(data.Report.Runs) != 2 || data.Report.Runs[0].Config != "noop" || !data.Report.Runs[1].Success {
		t.Fatalf("data = %+v", data)
	}
	if !strings.Contains(o.stderr, "ok   go-fix-failing-test.sed.1") {
		t.Errorf("no progress line on stderr: %s", o.stderr)
	}

	c.format = "text"
	o = c.run("bench", "report", out)
	if o.code != 0 || !strings.Contains(o.stdout, "SCENARIO") || !strings.Contains(o.stdout, "1/1 (100%)") || !strings.Contains(o.stdout, "0/1 (0%)") {
		t.Fatalf("text report: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	c.format = "markdown"
	o = c.run("bench", "report", out)
	if o.code != 0 || !strings.Contains(o.stdout, "| go-fix-failing-test | sed | external | mcp | - | yes | exited | - | - | ? |") {
		t.Fatalf("markdown report: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	c.format = ""
	o = c.run("bench", "report", out)
	var rep struct {
		Summary []struct {
			Config string  `json:"config"`
			Rate   float64 `json:"success_rate"`
		} `json:"summary"`
	}
	remarshal(t, o.env.Data, &rep)
	if o.code != 0 || !o.env.OK || len(rep.Summary) != 2 || rep.Summary[0].Rate != 0 || rep.Summary[1].Rate != 1 {
		t.Fatalf("json report: exit %d, %+v", o.code, rep)
	}
}

// remarshal decodes an envelope's data into v.
func remarshal(t testing.TB, data any, v any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	scenario, _ := filepath.Abs("../../bench/scenarios/go-fix-failing-test.yaml")
	c := newCLI(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"command not JSON", []string{"bench", "run", "--runner", "external", "--command", "codex exec", scenario}, 2, "--command must be a JSON array"},
		{"config and flags", []string{"bench", "run", "--config", "x.yaml", "--model", "m", scenario}, 2, "use one"},
		{"missing scenario", []string{"bench", "run", "/nonexistent/s.yaml"}, 3, "s.yaml"},
		{"empty results", []string{"bench", "report", t.TempDir()}, 3, "no bench results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := c.run(tt.args...)
			if o.code != tt.code || !strings.Contains(o.stdout+o.stderr, tt.want) {
				t.Fatalf("exit %d, want %d with %q\n%s%s", o.code, tt.code, tt.want, o.stdout, o.stderr)
			}
		})
	}
}
