// Package reporthtml writes a bench report as one self-contained HTML
// page: inline CSS and SVG charts drawn here, no script, nothing loaded
// from anywhere (its Content-Security-Policy forbids it too), so the file
// can be mailed, archived or opened offline. Every name on the page comes
// from result files anyone could have written; html/template escapes each
// one for where it lands.
package reporthtml

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/langhost/langhost/host/bench"
)

// Write writes rep as an HTML page to w.
func Write(w io.Writer, rep *bench.Report) error {
	return pageTemplate.Execute(w, newPage(rep))
}

// Chart geometry, in SVG user units (pixels at a 1040px page width).
const (
	chartW = 980
	labelW = 230 // names left of a plot
	noteW  = 250 // numbers right of a plot
	plotW  = chartW - labelW - noteW
	// distPlotW leaves more room for a distribution's five numbers.
	distPlotW = plotW - 80
	rowH      = 30
	axisH     = 26
	maxLabel  = 30 // characters of a name in a chart; the full name is its tooltip
)

// label is a name as a chart shows it: cut to fit, whole in its tooltip.
type label struct {
	Short, Full string
}

func newLabel(s string, n int) label {
	short := s
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		short = string(r[:n-1]) + "…"
	}
	return label{Short: short, Full: s}
}

type tick struct {
	X    float64
	Text string
}

// page is everything the template shows.
type page struct {
	Dirs      []string
	Runs      int
	Scenarios int
	Versions  string
	Executors string
	Rates     rateChart
	Grid      gridChart
	Dists     []distChart
	Paired    *pairedChart
	Table     []runRow
}

func newPage(rep *bench.Report) *page {
	p := &page{Dirs: rep.Dirs, Runs: len(rep.Runs), Scenarios: len(rep.Grid),
		Rates: newRateChart(rep.Summary), Grid: newGridChart(rep), Paired: newPairedChart(rep.Paired)}
	versions, executors := map[string]bool{}, map[string]bool{}
	for _, r := range rep.Runs {
		versions[r.Provenance.Langhost] = true
		executors[r.Provenance.Executor] = true
	}
	p.Versions = strings.Join(sortedKeys(versions), ", ")
	p.Executors = strings.Join(sortedKeys(executors), ", ")
	for i, name := range []string{"tokens", "wall", "tool calls"} {
		p.Dists = append(p.Dists, newDistChart(rep, i, name))
	}
	for _, r := range rep.Runs {
		p.Table = append(p.Table, newRunRow(r))
	}
	return p
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// rateChart is success rate per config with Wilson intervals.
type rateChart struct {
	W, H  float64
	Ticks []tick
	Rows  []rateRow
	AxisY float64 // the bottom axis line
}

type rateRow struct {
	Label           label
	Y, MidY         float64
	BarW            float64
	Lo, Hi, Rate    float64 // x positions
	Count, Interval string
	Tip             string
}

func xOfRate(r float64) float64 { return labelW + r*plotW }

func newRateChart(sum []bench.Summary) rateChart {
	c := rateChart{W: chartW, H: float64(2*axisH + len(sum)*rowH)}
	for i := 0; i <= 4; i++ {
		c.Ticks = append(c.Ticks, tick{X: xOfRate(float64(i) / 4), Text: fmt.Sprintf("%d%%", i*25)})
	}
	c.AxisY = float64(axisH + len(sum)*rowH)
	for i, s := range sum {
		y := float64(axisH + i*rowH)
		row := rateRow{Label: newLabel(s.Config, maxLabel), Y: y + 8, MidY: y + rowH/2,
			BarW: s.Rate * plotW, Lo: xOfRate(s.RateLow), Hi: xOfRate(s.RateHigh), Rate: xOfRate(s.Rate),
			Count:    fmt.Sprintf("%d/%d = %.0f%%", s.Succeeded, s.Runs, 100*s.Rate),
			Interval: "95% CI " + bench.Interval(s.RateLow, s.RateHigh)}
		row.Interval = strings.Replace(row.Interval, "-", "–", 1)
		row.Tip = fmt.Sprintf("%s: %s, %s", s.Config, row.Count, row.Interval)
		c.Rows = append(c.Rows, row)
	}
	return c
}

// gridChart is the scenario × config grid.
type gridChart struct {
	W, H    float64
	Headers []gridHeader
	Rows    []gridRow
}

type gridHeader struct {
	X, Y  float64
	Label label
}

type gridRow struct {
	Label label
	Y     float64
	MidY  float64
	Cells []gridCell
}

type gridCell struct {
	X, MidX     float64
	Fill, Ink   string
	Count, Rate string
	Tip         string
}

const (
	gridLabelW = 260
	cellW      = 100
	cellH      = 44
	// maxHeader is the most characters of a config name over a column.
	maxHeader = 22
)

func newGridChart(rep *bench.Report) gridChart {
	n := len(rep.Summary)
	// Headers are written at 40° up and to the right: leave them room.
	// The header row is as high as its longest name needs at 40°: about
	// 7px a character, sin 40° ≈ 0.64 of it upwards.
	longest := 0
	for _, s := range rep.Summary {
		longest = max(longest, utf8.RuneCountInString(newLabel(s.Config, maxHeader).Short))
	}
	headerH := 24 + int(float64(longest)*7*0.64)
	c := gridChart{W: float64(gridLabelW + n*cellW + 170), H: float64(headerH + len(rep.Grid)*cellH + 4)}
	for i, s := range rep.Summary {
		c.Headers = append(c.Headers, gridHeader{X: float64(gridLabelW+i*cellW) + cellW/2, Y: float64(headerH - 8), Label: newLabel(s.Config, maxHeader)})
	}
	for j, g := range rep.Grid {
		y := float64(headerH + j*cellH)
		row := gridRow{Label: newLabel(g.Scenario, 36), Y: y, MidY: y + cellH/2}
		for i, cell := range g.Cells {
			x := float64(gridLabelW + i*cellW)
			gc := gridCell{X: x, MidX: x + cellW/2, Fill: "#e8eaed", Ink: "#5b6573", Count: "–", Rate: "not run"}
			if cell.Runs > 0 {
				gc.Fill, gc.Ink = rateColor(cell.Rate)
				gc.Count, gc.Rate = bench.GridText(cell), fmt.Sprintf("%.0f%%", 100*cell.Rate)
			}
			gc.Tip = fmt.Sprintf("%s × %s: %s (%s)", g.Scenario, cell.Config, gc.Count, gc.Rate)
			row.Cells = append(row.Cells, gc)
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// rateColor maps a rate to a fill on a red–yellow–green scale and the
// ink that reads on it.
func rateColor(rate float64) (fill, ink string) {
	stops := [][3]float64{{215, 48, 39}, {254, 224, 139}, {26, 152, 80}}
	rate = min(max(rate, 0), 1)
	seg := 0
	t := rate * 2
	if t > 1 {
		seg, t = 1, t-1
	}
	var rgb [3]float64
	for i := range rgb {
		rgb[i] = stops[seg][i] + t*(stops[seg+1][i]-stops[seg][i])
	}
	lum := (0.299*rgb[0] + 0.587*rgb[1] + 0.114*rgb[2]) / 255
	ink = "#1d2430"
	if lum < 0.55 {
		ink = "#ffffff"
	}
	return fmt.Sprintf("#%02x%02x%02x", int(rgb[0]+0.5), int(rgb[1]+0.5), int(rgb[2]+0.5)), ink
}

// distChart is one metric's distribution per config: a box plot (min to
// max whiskers, quartile box, median bar) over the runs as dots.
type distChart struct {
	ID, Title string
	Heading   string
	W, H      float64
	NoteX     float64 // where the numbers right of the plot start
	Ticks     []tick
	AxisY     float64
	Rows      []distRow
}

type distRow struct {
	Label                 label
	Y, MidY               float64
	Measured              bool
	Min, Q1, Med, Q3, Max float64 // x positions
	Dots                  []dot
	Note, Tip             string
}

type dot struct{ X, Y float64 }

func newDistChart(rep *bench.Report, metric int, id string) distChart {
	c := distChart{ID: "dist-" + strings.ReplaceAll(id, " ", "-")}
	values := func(s bench.Summary) []float64 {
		var out []float64
		for _, r := range rep.Runs {
			if r.Config != s.Config {
				continue
			}
			switch {
			case metric == 1:
				out = append(out, r.WallMS)
			case !r.Measured:
			case metric == 0:
				out = append(out, float64(r.Tokens.InputTokens+r.Tokens.OutputTokens))
			default:
				out = append(out, float64(r.ToolCalls))
			}
		}
		return out
	}
	lo, hi := 0.0, 0.0
	for _, s := range rep.Summary {
		m := s.Dist.Metrics()[metric]
		c.Title = m.Name
		if m.Summary.N > 0 {
			lo, hi = min(lo, m.Summary.Min), max(hi, m.Summary.Max)
		}
	}
	c.Heading = []string{"Tokens per run (input + output)", "Wall time per run (seconds)", "Tool calls per run"}[metric]
	if metric == 1 { // wall time is stored in ms, shown in seconds
		lo, hi = lo/1000, hi/1000
	}
	ticks, lo, hi := niceTicks(lo, hi)
	x := func(v float64) float64 {
		if metric == 1 {
			v /= 1000
		}
		return labelW + (v-lo)/(hi-lo)*distPlotW
	}
	for _, t := range ticks {
		c.Ticks = append(c.Ticks, tick{X: labelW + (t-lo)/(hi-lo)*distPlotW, Text: strconv.FormatFloat(t, 'f', -1, 64)})
	}
	c.W, c.NoteX, c.H = chartW, labelW+distPlotW+12, float64(2*axisH+len(rep.Summary)*(rowH+6))
	c.AxisY = float64(axisH + len(rep.Summary)*(rowH+6))
	for i, s := range rep.Summary {
		m := s.Dist.Metrics()[metric]
		y := float64(axisH + i*(rowH+6))
		row := distRow{Label: newLabel(s.Config, maxLabel), Y: y + 6, MidY: y + (rowH+6)/2, Measured: m.Summary.N > 0}
		if !row.Measured {
			row.Note = "not measured"
			row.Tip = s.Config + ": " + m.Name + " not measured (an external agent reports only success and time)"
		} else {
			sm := m.Summary
			row.Min, row.Q1, row.Med, row.Q3, row.Max = x(sm.Min), x(sm.Q1), x(sm.Median), x(sm.Q3), x(sm.Max)
			row.Note = fmt.Sprintf("min %s · med %s · max %s (n=%d)", m.Format(sm.Min), m.Format(sm.Median), m.Format(sm.Max), sm.N)
			row.Tip = fmt.Sprintf("%s %s: min %s, q1 %s, median %s, q3 %s, max %s, mean %s over %d runs", s.Config, m.Name,
				m.Format(sm.Min), m.Format(sm.Q1), m.Format(sm.Median), m.Format(sm.Q3), m.Format(sm.Max), m.Format(sm.Mean), sm.N)
			for j, v := range values(s) {
				// Dots spread over five lanes, so equal values stay visible.
				row.Dots = append(row.Dots, dot{X: x(v), Y: row.MidY + float64(j%5-2)*3})
			}
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// niceTicks returns about five round tick values covering [lo, hi] and
// the axis range they span.
func niceTicks(lo, hi float64) ([]float64, float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if step = m * mag; step >= raw {
			break
		}
	}
	start, end := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	var out []float64
	for v := start; v <= end+step/2 && len(out) < 12; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out, start, end
}

// pairedChart is the paired comparison of two configs.
type pairedChart struct {
	A, B       label
	Sentence   string
	PValue     string
	Pairs      int
	Cells      []pairCell
	Bar        []barPart
	Discordant []bench.PairOutcome
	Unpaired   string
	Verdict    string
}

type pairCell struct {
	X, Y      float64
	Fill, Ink string
	Count     int
	What      string
}

type barPart struct {
	X, W      float64
	Fill, Ink string
	Text, Tip string
}

func newPairedChart(p *bench.Paired) *pairedChart {
	if p == nil {
		return nil
	}
	c := &pairedChart{A: newLabel(p.A, 40), B: newLabel(p.B, 40), Sentence: p.Sentence(), PValue: bench.PValue(p.PValue),
		Pairs: p.Pairs, Discordant: p.Discordant}
	// The 2×2 table: rows A succeeded / failed, columns B succeeded / failed.
	const x0, y0, w, h = 150, 60, 120, 56
	c.Cells = []pairCell{
		{x0, y0, "#d9ead3", "#1d2430", p.TiesSuccess, "both succeeded"},
		{x0 + w, y0, "#1a9850", "#ffffff", p.Wins, "wins of A"},
		{x0, y0 + h, "#d73027", "#ffffff", p.Losses, "losses of A"},
		{x0 + w, y0 + h, "#c4c8ce", "#1d2430", p.TiesFailure, "both failed"},
	}
	for i := range c.Cells {
		// An empty cell is not drawn in a colour that catches the eye.
		if c.Cells[i].Count == 0 {
			c.Cells[i].Fill, c.Cells[i].Ink = "#f1f2f4", "#5b6573"
		}
	}
	if p.Pairs > 0 {
		const bx, bw = 470, 480
		x := float64(bx)
		for _, part := range []struct {
			n         int
			fill, ink string
			what      string
		}{{p.Wins, "#1a9850", "#ffffff", "wins"}, {p.TiesSuccess + p.TiesFailure, "#c4c8ce", "#1d2430", "ties"}, {p.Losses, "#d73027", "#ffffff", "losses"}} {
			if part.n == 0 {
				continue
			}
			wd := float64(part.n) / float64(p.Pairs) * bw
			c.Bar = append(c.Bar, barPart{X: x, W: wd, Fill: part.fill, Ink: part.ink,
				Text: strconv.Itoa(part.n), Tip: fmt.Sprintf("%d %s", part.n, part.what)})
			x += wd
		}
	}
	if p.UnpairedA+p.UnpairedB > 0 {
		c.Unpaired = fmt.Sprintf("%d runs of %s and %d of %s have no partner (another scenario or repeat) and are left out.", p.UnpairedA, p.A, p.UnpairedB, p.B)
	}
	switch {
	case p.Wins+p.Losses == 0:
		c.Verdict = "no discordant pairs: nothing tells the two configs apart"
	case p.PValue < 0.05:
		c.Verdict = "the difference is significant at the 5% level"
	default:
		c.Verdict = "the difference is not significant at the 5% level"
	}
	return c
}

// runRow is a row of the table of runs.
type runRow struct {
	Scenario, Config, Stop, Steps, Calls, Tokens, Wall, Checks string
	// Where says what ran it: local, or the Slurm task (array job_task).
	Where  string
	Repeat int
	OK     bool
}

func newRunRow(r *bench.Result) runRow {
	row := runRow{Scenario: r.Scenario, Config: r.Config, Repeat: r.Repeat, OK: r.Success, Stop: bench.StopText(r),
		Steps: "–", Calls: "–", Tokens: "–", Wall: fmt.Sprintf("%.1fs", r.WallMS/1000)}
	if r.Measured {
		row.Steps, row.Calls = strconv.Itoa(r.Steps), strconv.Itoa(r.ToolCalls)
		row.Tokens = strconv.Itoa(r.Tokens.InputTokens + r.Tokens.OutputTokens)
	}
	row.Where = r.Provenance.Executor
	if id := r.Provenance.ArrayJobID; id != "" {
		row.Where += " " + id + "_" + r.Provenance.ArrayTaskID
	}
	passed := 0
	for _, c := range r.Checks {
		if c.OK {
			passed++
		}
	}
	row.Checks = fmt.Sprintf("%d/%d", passed, len(r.Checks))
	return row
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"f":    func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"add":  func(a, b float64) float64 { return a + b },
	"sub":  func(a, b float64) float64 { return a - b },
	"half": func(a float64) float64 { return a / 2 },
}).Parse(pageHTML))
