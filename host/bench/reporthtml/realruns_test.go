//go:build linux

package reporthtml_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/internal/chromiumtest"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
)

func TestMain(m *testing.M) { builtintest.Main(m) }

// openHost loads the embedded specs with the built-in plugins over a
// run's workspace, as `langhost bench run` does.
func openHost(ctx context.Context, dir string) (*host.Host, error) {
	cfg, err := config.Load(config.Paths{}, nil, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, err
	}
	cfg.Workspace = dir
	return host.Open(ctx, cfg, hclog.NewNullLogger(), host.Options{Builtins: builtin.Agents()})
}

// TestRealRunsReport runs a shipped scenario for real into two results
// directories, as two separate benches would: langhost's agent with the
// scripted model (gopls and go through the real tools) in one, external
// "agents" in the other (sed fixes the bug, true does nothing). The
// merged report states the same numbers in text, JSON and the page
// Chromium renders.
func TestRealRunsReport(t *testing.T) {
	builtintest.RequireTools(t, "go", "gopls")
	chromiumtest.Binary(t)
	s, err := bench.LoadScenario(filepath.Join("..", "..", "..", "bench", "scenarios", "go-fix-failing-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(configs ...bench.RunConfig) string {
		t.Helper()
		if err := bench.NormalizeConfigs("test", configs); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if _, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost, Repeat: 2}, []*bench.Scenario{s}, configs); err != nil {
			t.Fatal(err)
		}
		return out
	}
	own := run(bench.RunConfig{Name: "own", Provider: bench.ProviderScripted})
	ext := run(bench.RunConfig{Name: "sed", Command: []string{"sed", "-i", "s/a - b/a + b/", "calc.go"}},
		bench.RunConfig{Name: "noop", Command: []string{"true"}})

	rep, err := bench.LoadReport(own, ext)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Compare("own", "noop"); err != nil {
		t.Fatal(err)
	}
	// The numbers, as the JSON report states them.
	var js bytes.Buffer
	if err := json.NewEncoder(&js).Encode(rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Summary []struct {
			Config        string `json:"config"`
			Runs          int    `json:"runs"`
			Succeeded     int    `json:"succeeded"`
			Distributions struct {
				Tokens struct {
					N int `json:"n"`
				} `json:"tokens"`
			} `json:"distributions"`
		} `json:"summary"`
		Paired struct {
			Wins, Losses int
			PValue       float64 `json:"p_value"`
		} `json:"paired"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range back.Summary {
		got[s.Config] = s.Succeeded*10 + s.Runs
	}
	if got["own"] != 22 || got["sed"] != 22 || got["noop"] != 2 || back.Paired.Wins != 2 || back.Paired.Losses != 0 || back.Paired.PValue != 0.5 {
		t.Fatalf("JSON report: %s", js.String())
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("text report:\n%s", text.String())
	for _, want := range []string{"2/2 (100%)", "34-100%", "0/2 (0%)", "0-66%",
		"paired: own vs noop on 2 runs of the same scenario and repeat: 2 wins, 0 losses, 0 ties (0 both succeeded, 0 both failed); exact McNemar p = 0.5"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q", want)
		}
	}

	_, doc := renderPage(t, rep, "real", 1900)
	texts := func(id string) string {
		n := doc.ByID(id)
		if n == nil || n.Name != "svg" {
			t.Fatalf("no <svg id=%q> in the DOM", id)
		}
		return strings.Join(n.Texts("text"), "|")
	}
	for id, wants := range map[string][]string{
		"rates":       {"own", "sed", "noop", "2/2 = 100%", "95% CI 34–100%", "0/2 = 0%", "95% CI 0–66%"},
		"grid":        {"go-fix-failing-test", "2/2", "0/2"},
		"dist-tokens": {"(n=2)", "not measured"},
		"dist-wall":   {"min ", "med ", "max "},
		"paired":      {"exact McNemar p = 0.5", "2|wins of A", "0|losses of A", "not significant"},
	} {
		got := texts(id)
		for _, want := range wants {
			if !strings.Contains(got, want) {
				t.Errorf("<svg id=%q> lacks %q: %s", id, want, got)
			}
		}
	}
}
