package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBenchRecord writes a result file in bench's record format, with a
// field this langhost does not know (another executor's provenance).
func writeBenchRecord(t *testing.T, dir, scenario, config string, repeat int, ok bool) {
	t.Helper()
	run := filepath.Join(dir, fmt.Sprintf("%s.%s.%d", scenario, config, repeat))
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := map[string]any{"scenario": scenario, "config": config, "runner": "langhost", "interface": "cli",
		"repeat": repeat, "run": filepath.Base(run), "success": ok, "measured": true, "steps": 3, "tool_calls": 2,
		"tokens": map[string]int{"input_tokens": 900 + repeat, "output_tokens": 100}, "wall_ms": 1000.0 * float64(repeat),
		"checks": []map[string]any{{"ok": ok}}, "slurm": map[string]any{"job_id": "7", "array_task_id": repeat}}
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(filepath.Join(run, "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBenchReportMergesAndWritesHTML: two results directories merge into
// one report; --compare chooses the paired configs; --html writes the
// page; text and JSON state the same numbers.
func TestBenchReportMergesAndWritesHTML(t *testing.T) {
	local, cluster := t.TempDir(), t.TempDir()
	// a succeeds on repeats 1..9 and b only on 10: a wins 9 pairs, loses 1.
	for r := 1; r <= 10; r++ {
		writeBenchRecord(t, local, "s", "a", r, r != 10)
		writeBenchRecord(t, cluster, "s", "b", r, r == 10)
		writeBenchRecord(t, cluster, "s", "c", r, true)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	c := newCLI(t)
	o := c.run("bench", "report", "--html", page, "--compare", "a,b", local, cluster)
	if o.code != 0 || !o.env.OK {
		t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	var data struct {
		Dirs    []string `json:"dirs"`
		HTML    string   `json:"html"`
		Summary []struct {
			Config string  `json:"config"`
			Low    float64 `json:"success_rate_low"`
		} `json:"summary"`
		Paired struct {
			A, B         string
			Wins, Losses int
			PValue       float64 `json:"p_value"`
		} `json:"paired"`
	}
	remarshal(t, o.env.Data, &data)
	if data.HTML != page || len(data.Dirs) != 2 || len(data.Summary) != 3 || data.Paired.A != "a" || data.Paired.B != "b" ||
		data.Paired.Wins != 9 || data.Paired.Losses != 1 || data.Paired.PValue != 0.021484375 || math.Abs(data.Summary[0].Low-0.5958) > 1e-4 {
		t.Fatalf("data = %+v", data)
	}
	html, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(html), "exact McNemar p = 0.02148") {
		t.Fatalf("page: %v\n%.300s", err, html)
	}

	c.format = "text"
	o = c.run("bench", "report", "--compare", "a,b", local, cluster)
	for _, want := range []string{"9/10 (90%)", "60-98%", "1/10 (10%)", "2-40%", "10/10 (100%)", "72-100%",
		"paired: a vs b on 10 runs of the same scenario and repeat: 9 wins, 1 losses, 0 ties (0 both succeeded, 0 both failed); exact McNemar p = 0.02148"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, o.stdout)
		}
	}

	// By default the first two configs are compared.
	o = c.run("bench", "report", local, cluster)
	if !strings.Contains(o.stdout, "paired: a vs b") {
		t.Errorf("default comparison:\n%s", o.stdout)
	}
}

func TestBenchReportErrors(t *testing.T) {
	dir := t.TempDir()
	writeBenchRecord(t, dir, "s", "a", 1, true)
	writeBenchRecord(t, dir, "s", "b", 1, false)
	again := t.TempDir()
	writeBenchRecord(t, again, "s", "a", 1, false)
	c := newCLI(t)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown config", []string{"bench", "report", "--compare", "a,zz", dir}, 2, `no config "zz"`},
		{"one config", []string{"bench", "report", "--compare", "a", dir}, 2, "want two config names as A,B"},
		{"three configs", []string{"bench", "report", "--compare", "a,b,c", dir}, 2, "want two config names"},
		{"itself", []string{"bench", "report", "--compare", "a,a", dir}, 2, "compared with itself"},
		{"same run twice", []string{"bench", "report", dir, again}, 2, `both scenario "s" with config "a", repeat 1`},
		{"html into a missing directory", []string{"bench", "report", "--html", filepath.Join(dir, "no", "such", "r.html"), dir}, 4, "--html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := c.run(tt.args...)
			msg := o.stderr
			for _, e := range o.env.Errors {
				msg += e.Message
			}
			if o.code != tt.code || !strings.Contains(msg, tt.want) {
				t.Fatalf("exit %d, want %d with %q\n%s%s", o.code, tt.code, tt.want, o.stdout, o.stderr)
			}
		})
	}
}
