package bench

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// maxResultBytes bounds a result.json read back by Report.
const maxResultBytes = 4 << 20

// Summary aggregates the runs of one config over every scenario.
type Summary struct {
	Config    string  `json:"config"`
	Runner    string  `json:"runner"`
	Interface string  `json:"interface"`
	Packet    string  `json:"packet,omitempty"`
	Runs      int     `json:"runs"`
	Succeeded int     `json:"succeeded"`
	Rate      float64 `json:"success_rate"`
	// Means over the measured runs (zero when none was measured).
	Measured      int     `json:"measured"`
	MeanSteps     float64 `json:"mean_steps"`
	MeanToolCalls float64 `json:"mean_tool_calls"`
	MeanTokens    float64 `json:"mean_tokens"`
	MeanWallMS    float64 `json:"mean_wall_ms"`
}

// Report is what `langhost bench report` prints.
type Report struct {
	Dir     string    `json:"dir"`
	Runs    []*Result `json:"runs"`
	Summary []Summary `json:"summary"`
}

// LoadReport reads the result of every run under dir (dir/*/result.json)
// and summarizes them by config. A result that cannot be read is an error
// naming its file: a comparison with a silently missing run misleads.
func LoadReport(dir string) (*Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "results directory")
	}
	if !st.IsDir() {
		return nil, failure.New(failure.InvalidInput, "%s is not a directory of bench results", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", ResultFile))
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Runs: []*Result{}, Summary: []Summary{}}
	for _, f := range files {
		data, err := safefile.ReadRegular(f, maxResultBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, failure.Wrap(failure.InvalidInput, err, "bench result %s", f)
		}
		var r Result
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, failure.Wrap(failure.InvalidInput, err, "bench result %s", f)
		}
		// A result written by an older langhost, or edited, may hold a
		// key: hide what is shaped like one.
		if clean, err := redact.JSON[Result](nil, &r); err == nil {
			r = *clean
		}
		if r.Scenario == "" || r.Config == "" {
			return nil, failure.New(failure.InvalidInput, "bench result %s: no scenario or config; it is not a langhost bench result", f)
		}
		rep.Runs = append(rep.Runs, &r)
	}
	if len(rep.Runs) == 0 {
		return nil, failure.New(failure.NotFound, "%s holds no bench results (*/%s); run `langhost bench run --out %s ...` first", dir, ResultFile, dir)
	}
	slices.SortFunc(rep.Runs, func(a, b *Result) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.Config, b.Config), cmp.Compare(a.Repeat, b.Repeat))
	})
	rep.Summary = summarize(rep.Runs)
	return rep, nil
}

func summarize(runs []*Result) []Summary {
	byConfig := map[string]*Summary{}
	var order []string
	for _, r := range runs {
		s, ok := byConfig[r.Config]
		if !ok {
			s = &Summary{Config: r.Config, Runner: r.Runner, Interface: r.Interface, Packet: r.Packet}
			byConfig[r.Config] = s
			order = append(order, r.Config)
		}
		s.Runs++
		if r.Success {
			s.Succeeded++
		}
		s.MeanWallMS += r.WallMS
		if r.Measured {
			s.Measured++
			s.MeanSteps += float64(r.Steps)
			s.MeanToolCalls += float64(r.ToolCalls)
			s.MeanTokens += float64(r.Tokens.InputTokens + r.Tokens.OutputTokens)
		}
	}
	slices.Sort(order)
	out := make([]Summary, 0, len(order))
	for _, name := range order {
		s := byConfig[name]
		s.Rate = float64(s.Succeeded) / float64(s.Runs)
		s.MeanWallMS /= float64(s.Runs)
		if s.Measured > 0 {
			n := float64(s.Measured)
			s.MeanSteps, s.MeanToolCalls, s.MeanTokens = s.MeanSteps/n, s.MeanToolCalls/n, s.MeanTokens/n
		}
		out = append(out, *s)
	}
	return out
}

// runColumns and summaryColumns head the two tables.
var (
	runColumns     = []string{"SCENARIO", "CONFIG", "RUNNER", "IFACE", "PACKET", "OK", "STOP", "STEPS", "CALLS", "LANGHOST", "TOKENS", "WALL", "CHECKS"}
	summaryColumns = []string{"CONFIG", "RUNNER", "IFACE", "PACKET", "RUNS", "SUCCESS", "STEPS", "CALLS", "TOKENS", "WALL"}
)

func (rep *Report) rows() (runs, summary [][]string) {
	for _, r := range rep.Runs {
		ok := "no"
		if r.Success {
			ok = "yes"
		}
		steps, calls, tokens := "-", "-", "-"
		if r.Measured {
			steps, calls = strconv.Itoa(r.Steps), strconv.Itoa(r.ToolCalls)
			tokens = strconv.Itoa(r.Tokens.InputTokens + r.Tokens.OutputTokens)
		}
		passed := 0
		for _, c := range r.Checks {
			if c.OK {
				passed++
			}
		}
		runs = append(runs, []string{r.Scenario, r.Config, r.Runner, r.Interface, dash(r.Packet), ok, dash(r.StopReason),
			steps, calls, langhostCalls(r), tokens, seconds(r.WallMS), fmt.Sprintf("%d/%d", passed, len(r.Checks))})
	}
	for _, s := range rep.Summary {
		steps, calls, tokens := "-", "-", "-"
		if s.Measured > 0 {
			steps, calls, tokens = fmt.Sprintf("%.1f", s.MeanSteps), fmt.Sprintf("%.1f", s.MeanToolCalls), fmt.Sprintf("%.0f", s.MeanTokens)
		}
		summary = append(summary, []string{s.Config, s.Runner, s.Interface, dash(s.Packet), strconv.Itoa(s.Runs),
			fmt.Sprintf("%d/%d (%.0f%%)", s.Succeeded, s.Runs, 100*s.Rate), steps, calls, tokens, seconds(s.MeanWallMS)})
	}
	return runs, summary
}

func dash(s string) string { return cmp.Or(s, "-") }

// langhostCalls says whether a run's agent called langhost's tools at
// all: "yes (n)", "no", or "?" for an external agent whose CLI did not
// pass the call log's variable to langhost mcp (or never started it).
func langhostCalls(r *Result) string {
	n := r.LanghostCalls
	if r.Runner != RunnerExternal {
		n = &r.ToolCalls
	}
	switch {
	case n == nil:
		return "?"
	case *n == 0:
		return "no"
	}
	return fmt.Sprintf("yes (%d)", *n)
}

func seconds(ms float64) string { return fmt.Sprintf("%.1fs", ms/1000) }

// WriteText prints the runs and the per-config summary as aligned tables.
func (rep *Report) WriteText(w io.Writer) error {
	runs, summary := rep.rows()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	writeRows(tw, runColumns, runs, "\t", "", "")
	fmt.Fprintln(tw)
	writeRows(tw, summaryColumns, summary, "\t", "", "")
	return tw.Flush()
}

// WriteMarkdown prints the same tables as GitHub markdown.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	runs, summary := rep.rows()
	for i, t := range []struct {
		title string
		cols  []string
		rows  [][]string
	}{{"Runs", runColumns, runs}, {"By config (means per run)", summaryColumns, summary}} {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "### %s\n\n", t.title)
		sep := make([]string, len(t.cols))
		for j := range sep {
			sep[j] = "---"
		}
		esc := make([][]string, len(t.rows)+1)
		esc[0] = sep
		for j, row := range t.rows {
			esc[j+1] = mdEscape(row)
		}
		writeRows(w, t.cols, esc, " | ", "| ", " |")
	}
	return nil
}

func writeRows(w io.Writer, cols []string, rows [][]string, sep, pre, post string) {
	fmt.Fprintln(w, pre+strings.Join(cols, sep)+post)
	for _, r := range rows {
		fmt.Fprintln(w, pre+strings.Join(r, sep)+post)
	}
}

// mdEscape keeps a cell in its column: names come from files anyone wrote.
func mdEscape(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		c = strings.ReplaceAll(c, "|", `\|`)
		out[i] = strings.NewReplacer("\n", " ", "\r", " ").Replace(c)
	}
	return out
}
