package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

func TestMain(m *testing.M) { builtintest.Main(m) }

// openHost loads the embedded specs with the built-in semantic plugin
// over a run's workspace, as `langhost bench run` does.
func openHost(ctx context.Context, dir string) (*host.Host, error) {
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, err
	}
	cfg.Workspace = dir
	return host.Open(ctx, cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
}

// shipped is the directory of the scenarios shipped with langhost.
var shipped = filepath.Join("..", "..", "bench", "scenarios")

// TestShippedScenariosEndToEnd runs every shipped scenario with langhost's
// agent against the scripted model server (no network): each scripted
// conversation solves its task through the real tools (gopls, pyright,
// go, python) and every acceptance check passes. The report compares them.
func TestShippedScenariosEndToEnd(t *testing.T) {
	for _, tool := range []string{"go", "gopls", "pyright", "python3"} {
		builtintest.RequireTools(t, tool)
	}
	all, err := bench.LoadScenarios([]string{shipped})
	if err != nil {
		t.Fatal(err)
	}
	// The C# scenarios run in TestShippedCSharpScenarios: they need dotnet
	// and csharp-ls, and minutes each.
	scenarios := slices.DeleteFunc(all, func(s *bench.Scenario) bool { return s.Language == "csharp" })
	if len(scenarios) < 6 {
		t.Fatalf("%d scenarios shipped, want at least 6", len(scenarios))
	}
	configs := []bench.RunConfig{{Name: "own-scripted", Provider: bench.ProviderScripted}}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var progress bytes.Buffer
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost, Progress: &progress}, scenarios, configs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())
	if len(results) != len(scenarios) {
		t.Fatalf("%d results for %d scenarios", len(results), len(scenarios))
	}
	for _, r := range results {
		if !r.Success || r.StopReason != "final_answer" || r.Error != "" {
			b, _ := json.MarshalIndent(r, "", "  ")
			t.Errorf("%s did not succeed:\n%s", r.Scenario, b)
			continue
		}
		if !r.Measured || r.Steps < 2 || r.ToolCalls < 1 || r.Tokens.InputTokens == 0 || r.WallMS <= 0 {
			t.Errorf("%s: metrics not recorded: steps %d, calls %d, tokens %+v, wall %v", r.Scenario, r.Steps, r.ToolCalls, r.Tokens, r.WallMS)
		}
		if r.Provenance.ScriptHash == "" || r.Provenance.ScenarioHash == "" {
			t.Errorf("%s: provenance lacks hashes: %+v", r.Scenario, r.Provenance)
		}
		checkTimeline(t, filepath.Join(out, r.Run, bench.TimelineFile), r)
	}

	// The acceptance run: the first edit was rejected for a
	// regression, the second accepted, the tests green.
	tl := readLines(t, filepath.Join(out, "go-fix-failing-test.own-scripted.1", bench.TimelineFile))
	var codes []string
	for _, ev := range tl {
		if ev["type"] == "tool_result" {
			codes = append(codes, fmt.Sprint(ev["tool"], ":", ev["code"]))
		}
	}
	if want := "go.test:tool_failed go.edit_file:diagnostic_regression go.edit_file:<nil> go.test:<nil>"; strings.Join(codes, " ") != want {
		t.Errorf("tool results of go-fix-failing-test = %q, want %q", strings.Join(codes, " "), want)
	}

	rep, err := bench.LoadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := json.NewEncoder(&js).Encode(rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s\n%s", text.String(), md.String())
	for _, s := range scenarios {
		if !strings.Contains(text.String(), s.Name) || !strings.Contains(md.String(), "| "+s.Name+" |") {
			t.Errorf("the report lacks %s", s.Name)
		}
	}
	want := fmt.Sprintf("%d/%d (100%%)", len(scenarios), len(scenarios))
	if !strings.Contains(text.String(), want) {
		t.Errorf("the summary does not say %s:\n%s", want, text.String())
	}
	var back bench.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Runs) != len(scenarios) || len(back.Summary) != 1 || back.Summary[0].Rate != 1 {
		t.Errorf("JSON report = %s (err %v)", js.String(), err)
	}
}

// checkTimeline checks a run's timeline: valid JSON lines from bench_start
// to bench_end, with the agent's model calls (tokens, timings) and tool
// calls between, and one line per check.
func checkTimeline(t *testing.T, path string, r *bench.Result) {
	t.Helper()
	lines := readLines(t, path)
	counts := map[string]int{}
	for _, ev := range lines {
		counts[fmt.Sprint(ev["type"])]++
	}
	if lines[0]["type"] != "bench_start" || lines[len(lines)-1]["type"] != "bench_end" {
		t.Errorf("%s: timeline from %v to %v", r.Scenario, lines[0]["type"], lines[len(lines)-1]["type"])
	}
	if counts["model_call"] != r.Steps || counts["tool_call"] != r.ToolCalls || counts["check"] != len(r.Checks) {
		t.Errorf("%s: timeline counts %v; want %d model calls, %d tool calls, %d checks", r.Scenario, counts, r.Steps, r.ToolCalls, len(r.Checks))
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, ev)
	}
	return out
}
