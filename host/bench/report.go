package bench

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/langhost/langhost/host/bench/stats"

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
	// RateLow and RateHigh bound Rate: the 95% Wilson score interval.
	RateLow  float64       `json:"success_rate_low"`
	RateHigh float64       `json:"success_rate_high"`
	Dist     Distributions `json:"distributions"`
}

// Report is what `langhost bench report` prints.
type Report struct {
	Dir     string    `json:"dir"`  // the first of Dirs
	Dirs    []string  `json:"dirs"` // every results directory merged
	Runs    []*Result `json:"runs"`
	Summary []Summary `json:"summary"`
	Grid    []GridRow `json:"grid"`
	// Paired compares the first two configs, or those Compare chose; nil
	// with fewer than two configs.
	Paired *Paired `json:"paired"`
}

// LoadReport reads the result of every run under the results directories
// (dir/*/result.json) and summarizes them by config. Runs from several
// directories (local and cluster runs, say) merge into one report; the
// same scenario, config and repeat twice is an error naming both files,
// since it would be counted twice and pair ambiguously. A result that
// cannot be read is an error naming its file: a comparison with a
// silently missing run misleads.
func LoadReport(dirs ...string) (*Report, error) {
	if len(dirs) == 0 {
		return nil, failure.New(failure.InvalidInput, "no results directory")
	}
	rep := &Report{Dir: dirs[0], Dirs: dirs, Runs: []*Result{}, Summary: []Summary{}, Grid: []GridRow{}}
	type runKey struct {
		scenario, config string
		repeat           int
	}
	seen := map[runKey]string{}
	for _, dir := range dirs {
		files, err := resultFiles(dir)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			r, err := readResult(f)
			if err != nil {
				return nil, err
			}
			if r == nil {
				continue
			}
			k := runKey{r.Scenario, r.Config, r.Repeat}
			if prev, ok := seen[k]; ok {
				return nil, failure.New(failure.InvalidInput, "%s and %s are both scenario %q with config %q, repeat %d; merge results of different runs only",
					prev, f, r.Scenario, r.Config, r.Repeat)
			}
			seen[k] = f
			rep.Runs = append(rep.Runs, r)
		}
	}
	if len(rep.Runs) == 0 {
		return nil, failure.New(failure.NotFound, "%s holds no bench results (*/%s); run `langhost bench run --out %s ...` first",
			strings.Join(dirs, ", "), ResultFile, dirs[0])
	}
	slices.SortFunc(rep.Runs, func(a, b *Result) int {
		return cmp.Or(strings.Compare(a.Scenario, b.Scenario), strings.Compare(a.Config, b.Config), cmp.Compare(a.Repeat, b.Repeat))
	})
	rep.Summary = summarize(rep.Runs)
	rep.analyze()
	return rep, nil
}

// resultFiles lists the result files of one results directory.
func resultFiles(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "results directory")
	}
	if !st.IsDir() {
		return nil, failure.New(failure.InvalidInput, "%s is not a directory of bench results", dir)
	}
	return filepath.Glob(filepath.Join(dir, "*", ResultFile))
}

// readResult reads one result file; nil, nil when it went away. Fields it
// does not know (a newer langhost's) are ignored, so records of every
// version and executor merge.
func readResult(f string) (*Result, error) {
	data, err := safefile.ReadRegular(f, maxResultBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
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
	if r.Status == "" { // written before records had a status
		r.Status = StatusFinished
	}
	return &r, nil
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

// runColumns and summaryColumns head the first two tables.
var (
	runColumns     = []string{"SCENARIO", "CONFIG", "RUNNER", "IFACE", "PACKET", "OK", "STOP", "STEPS", "CALLS", "LANGHOST", "TOKENS", "WALL", "CHECKS"}
	summaryColumns = []string{"CONFIG", "RUNNER", "IFACE", "PACKET", "RUNS", "SUCCESS", "95% CI", "STEPS", "CALLS", "TOKENS", "WALL"}
	distColumns    = []string{"CONFIG", "METRIC", "N", "MIN", "Q1", "MEDIAN", "Q3", "MAX"}
)

// table is one table of the text and markdown reports.
type table struct {
	title string
	cols  []string
	rows  [][]string
}

// tables are the report's tables: runs, per config, scenario × config
// and distributions.
func (rep *Report) tables() []table {
	var runs, summary, dist [][]string
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
		runs = append(runs, []string{r.Scenario, r.Config, r.Runner, r.Interface, dash(r.Packet), ok, StopText(r),
			steps, calls, langhostCalls(r), tokens, seconds(r.WallMS), fmt.Sprintf("%d/%d", passed, len(r.Checks))})
	}
	for _, s := range rep.Summary {
		steps, calls, tokens := "-", "-", "-"
		if s.Measured > 0 {
			steps, calls, tokens = fmt.Sprintf("%.1f", s.MeanSteps), fmt.Sprintf("%.1f", s.MeanToolCalls), fmt.Sprintf("%.0f", s.MeanTokens)
		}
		summary = append(summary, []string{s.Config, s.Runner, s.Interface, dash(s.Packet), strconv.Itoa(s.Runs),
			fmt.Sprintf("%d/%d (%.0f%%)", s.Succeeded, s.Runs, 100*s.Rate), Interval(s.RateLow, s.RateHigh),
			steps, calls, tokens, seconds(s.MeanWallMS)})
		for _, m := range s.Dist.Metrics() {
			row := []string{s.Config, m.Name, strconv.Itoa(m.Summary.N), "-", "-", "-", "-", "-"}
			if m.Summary.N > 0 {
				for i, v := range []float64{m.Summary.Min, m.Summary.Q1, m.Summary.Median, m.Summary.Q3, m.Summary.Max} {
					row[3+i] = m.Format(v)
				}
			}
			dist = append(dist, row)
		}
	}
	gridCols := []string{"SCENARIO"}
	for _, s := range rep.Summary {
		gridCols = append(gridCols, s.Config)
	}
	var grid [][]string
	for _, g := range rep.Grid {
		row := []string{g.Scenario}
		for _, c := range g.Cells {
			row = append(row, GridText(c))
		}
		grid = append(grid, row)
	}
	return []table{
		{"Runs", runColumns, runs},
		{"By config (means per run; 95% Wilson interval of the success rate)", summaryColumns, summary},
		{"Successes by scenario and config", gridCols, grid},
		{"Distributions per config (tokens and calls of measured runs)", distColumns, dist},
	}
}

// StopText says how a run ended: the agent's stop reason, or the
// executor's status when the run was stopped before its end.
func StopText(r *Result) string {
	if r.Status != "" && r.Status != StatusFinished {
		return r.Status
	}
	return dash(r.StopReason)
}

// Interval writes a rate's interval in whole percent.
func Interval(lo, hi float64) string { return fmt.Sprintf("%.0f-%.0f%%", 100*lo, 100*hi) }

// GridText is a grid cell as the reports write it: "2/3", "-" if not run.
func GridText(c GridCell) string {
	if c.Runs == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", c.Succeeded, c.Runs)
}

// Metric is one distribution of Distributions, with how to write a value.
type Metric struct {
	Name    string
	Unit    string
	Summary stats.Summary
	Format  func(float64) string
}

// Metrics lists the distributions in the order the reports show them.
func (d Distributions) Metrics() []Metric {
	return []Metric{
		{"tokens", "tokens", d.Tokens, count},
		{"wall", "seconds", d.WallMS, seconds},
		{"tool calls", "calls", d.ToolCalls, count},
	}
}

// count writes a count, or a quartile between two counts, without noise.
func count(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// Sentence says the paired comparison in words, with its numbers.
func (p *Paired) Sentence() string {
	s := fmt.Sprintf("%s vs %s on %d runs of the same scenario and repeat: %d wins, %d losses, %d ties (%d both succeeded, %d both failed); exact McNemar p = %s",
		p.A, p.B, p.Pairs, p.Wins, p.Losses, p.TiesSuccess+p.TiesFailure, p.TiesSuccess, p.TiesFailure, PValue(p.PValue))
	if p.UnpairedA+p.UnpairedB > 0 {
		s += fmt.Sprintf("; unpaired: %d of %s, %d of %s", p.UnpairedA, p.A, p.UnpairedB, p.B)
	}
	return s
}

// PValue writes a p-value with four significant digits.
func PValue(p float64) string { return strconv.FormatFloat(p, 'g', 4, 64) }

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

// WriteText prints the report's tables, aligned, and the paired
// comparison.
func (rep *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, t := range rep.tables() {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		writeRows(tw, t.cols, cleanRows(t.rows), "\t", "", "")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.Paired != nil {
		_, err := fmt.Fprintf(w, "\npaired: %s\n", clean(rep.Paired.Sentence()))
		return err
	}
	return nil
}

// WriteMarkdown prints the same tables as GitHub markdown.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	for i, t := range rep.tables() {
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
		writeRows(w, mdEscape(t.cols), esc, " | ", "| ", " |")
	}
	if rep.Paired != nil {
		fmt.Fprintf(w, "\n### Paired comparison\n\n%s\n", mdEscape([]string{rep.Paired.Sentence()})[0])
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
		c = strings.ReplaceAll(clean(c), "|", `\|`)
		out[i] = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(c)
	}
	return out
}

func cleanRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = clean(c)
		}
	}
	return out
}

// clean keeps a name from a result file on its line and in its column,
// and a terminal from acting on it: control characters (tabs, newlines,
// escape sequences) become U+FFFD.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}
