package bench

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/langhost/langhost/host/bench/stats"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Distributions are the five-number summaries of one config's runs:
// tokens and tool calls over the measured runs, wall time over all.
type Distributions struct {
	Tokens    stats.Summary `json:"tokens"`
	ToolCalls stats.Summary `json:"tool_calls"`
	WallMS    stats.Summary `json:"wall_ms"`
}

// GridRow is one scenario of the scenario × config grid.
type GridRow struct {
	Scenario string     `json:"scenario"`
	Cells    []GridCell `json:"cells"` // one per config, in Summary's order
}

// GridCell counts the runs of one scenario with one config; Runs is 0
// where that pair was not run.
type GridCell struct {
	Config    string  `json:"config"`
	Runs      int     `json:"runs"`
	Succeeded int     `json:"succeeded"`
	Rate      float64 `json:"success_rate"`
}

// Paired compares two configs on the runs they share: the same scenario
// and repeat. A win is a pair where A succeeded and B failed, a loss the
// reverse; the exact McNemar test asks whether wins and losses differ more
// than chance would make them.
type Paired struct {
	A           string `json:"a"`
	B           string `json:"b"`
	Pairs       int    `json:"pairs"`
	Wins        int    `json:"wins"`
	Losses      int    `json:"losses"`
	TiesSuccess int    `json:"ties_success"` // both succeeded
	TiesFailure int    `json:"ties_failure"` // both failed
	// UnpairedA and UnpairedB are runs of one config with no partner.
	UnpairedA int     `json:"unpaired_a"`
	UnpairedB int     `json:"unpaired_b"`
	PValue    float64 `json:"p_value"`
	// Discordant lists the pairs that decided the test.
	Discordant []PairOutcome `json:"discordant"`
}

// PairOutcome is one pair of runs of Paired.
type PairOutcome struct {
	Scenario string `json:"scenario"`
	Repeat   int    `json:"repeat"`
	A        bool   `json:"a_success"`
	B        bool   `json:"b_success"`
}

// analyze fills the statistics that go beyond the per-config means:
// intervals, distributions, the grid and, for the first two configs, the
// paired comparison.
func (rep *Report) analyze() {
	for i := range rep.Summary {
		s := &rep.Summary[i]
		s.RateLow, s.RateHigh = stats.Wilson(s.Succeeded, s.Runs, stats.Z95)
		var tokens, calls, wall []float64
		for _, r := range rep.Runs {
			if r.Config != s.Config {
				continue
			}
			wall = append(wall, r.WallMS)
			if r.Measured {
				tokens = append(tokens, float64(r.Tokens.InputTokens+r.Tokens.OutputTokens))
				calls = append(calls, float64(r.ToolCalls))
			}
		}
		s.Dist = Distributions{Tokens: stats.Summarize(tokens), ToolCalls: stats.Summarize(calls), WallMS: stats.Summarize(wall)}
	}
	rep.Grid = grid(rep.Runs, rep.Summary)
	rep.Paired = nil
	if len(rep.Summary) >= 2 {
		rep.Paired = pair(rep.Runs, rep.Summary[0].Config, rep.Summary[1].Config)
	}
}

func grid(runs []*Result, summary []Summary) []GridRow {
	col := map[string]int{}
	for i, s := range summary {
		col[s.Config] = i
	}
	var rows []GridRow
	for _, r := range runs { // sorted by scenario
		if len(rows) == 0 || rows[len(rows)-1].Scenario != r.Scenario {
			cells := make([]GridCell, len(summary))
			for i, s := range summary {
				cells[i].Config = s.Config
			}
			rows = append(rows, GridRow{Scenario: r.Scenario, Cells: cells})
		}
		c := &rows[len(rows)-1].Cells[col[r.Config]]
		c.Runs++
		if r.Success {
			c.Succeeded++
		}
		c.Rate = float64(c.Succeeded) / float64(c.Runs)
	}
	return rows
}

// Compare sets the paired comparison to configs a and b.
func (rep *Report) Compare(a, b string) error {
	for _, name := range []string{a, b} {
		if !slices.ContainsFunc(rep.Summary, func(s Summary) bool { return s.Config == name }) {
			var names []string
			for _, s := range rep.Summary {
				names = append(names, s.Config)
			}
			return &failure.Error{Code: failure.InvalidInput, Field: "--compare",
				Message: fmt.Sprintf("no config %q in the results; they hold %v", name, names)}
		}
	}
	if a == b {
		return &failure.Error{Code: failure.InvalidInput, Field: "--compare",
			Message: fmt.Sprintf("--compare %s,%s: a config compared with itself", a, b)}
	}
	rep.Paired = pair(rep.Runs, a, b)
	return nil
}

func pair(runs []*Result, a, b string) *Paired {
	type key struct {
		scenario string
		repeat   int
	}
	outcome := func(config string) map[key]bool {
		m := map[key]bool{}
		for _, r := range runs {
			if r.Config == config {
				m[key{r.Scenario, r.Repeat}] = r.Success
			}
		}
		return m
	}
	as, bs := outcome(a), outcome(b)
	p := &Paired{A: a, B: b, Discordant: []PairOutcome{}}
	for k, okA := range as {
		okB, ok := bs[k]
		if !ok {
			p.UnpairedA++
			continue
		}
		p.Pairs++
		switch {
		case okA && okB:
			p.TiesSuccess++
		case !okA && !okB:
			p.TiesFailure++
		default:
			if okA {
				p.Wins++
			} else {
				p.Losses++
			}
			p.Discordant = append(p.Discordant, PairOutcome{Scenario: k.scenario, Repeat: k.repeat, A: okA, B: okB})
		}
	}
	p.UnpairedB = len(bs) - p.Pairs
	p.PValue = stats.McNemarExact(p.Wins, p.Losses)
	slices.SortFunc(p.Discordant, func(x, y PairOutcome) int {
		return cmp.Or(cmp.Compare(x.Scenario, y.Scenario), cmp.Compare(x.Repeat, y.Repeat))
	})
	return p
}
