//go:build linux

package reporthtml_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/bench/reporthtml"
	"github.com/langhost/langhost/internal/chromiumtest"
)

// Hostile names: result files are anyone's, and a name is written into
// the page in element text, attributes and tooltips.
var (
	scriptName = `<script>alert(1)</script>`
	longName   = "a-scenario-name-that-goes-on-" + strings.Repeat("and-on-", 30) + "end"
	attrConfig = `zz"><img src=x onerror=alert(2)>` + strings.Repeat("w", 60)
)

// writeRecords writes result files in bench's record format: configs
// alpha, beta and attrConfig over five scenarios and two repeats. Alpha
// and beta disagree on ten pairs, beta winning nine (b=1, c=9), gamma
// succeeds on 8 of 10.
func writeRecords(t *testing.T, dir string) {
	t.Helper()
	scenarios := []string{"go-fix", "py-types", scriptName, longName, "rename"}
	n := 0
	for si, s := range scenarios {
		for repeat := 1; repeat <= 2; repeat++ {
			pairIdx := si*2 + repeat - 1
			outcomes := map[string]bool{
				"alpha":    pairIdx == 0,   // 1 of 10
				"beta":     pairIdx != 0,   // 9 of 10
				attrConfig: pairIdx%5 != 4, // 8 of 10
			}
			for config, ok := range outcomes {
				n++
				r := bench.Result{Scenario: s, Config: config, Runner: bench.RunnerLanghost, Interface: bench.InterfaceCLI,
					Repeat: repeat, Run: fmt.Sprintf("run%02d", n), Success: ok, StopReason: "final_answer",
					Measured: config != attrConfig, Steps: 2 + pairIdx, ToolCalls: 1 + pairIdx%4,
					Tokens: model.Usage{InputTokens: 1000 + 100*pairIdx, OutputTokens: 50},
					WallMS: 1500 + 250*float64(pairIdx), Checks: []bench.CheckResult{{OK: ok}}}
				writeRecord(t, dir, r)
			}
		}
	}
}

func writeRecord(t *testing.T, dir string, r bench.Result) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// A field a newer langhost (or another executor) adds must not
	// stop the report.
	b = append(bytes.TrimSuffix(b, []byte("}")), []byte(`,"slurm":{"job_id":"42","array_task_id":3}}`)...)
	run := filepath.Join(dir, r.Run)
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, bench.ResultFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPageInChromium renders the page of synthetic records in headless
// Chromium and reads the charts back from the DOM the browser built:
// every chart is an SVG with its names and numbers, hostile names are
// text (no element they would have made exists), and the screenshot
// shows the charts' colours.
func TestPageInChromium(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir)
	rep, err := bench.LoadReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Compare("alpha", "beta"); err != nil {
		t.Fatal(err)
	}
	page, doc := renderPage(t, rep, "report", 2400)

	// Nothing from the network: the page names no URL at all, in an
	// attribute or in CSS.
	if loc := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*https?:|url\(|@import|https?://`).FindIndex(page); loc != nil {
		t.Errorf("the page reaches for the network: %q", page[loc[0]:min(loc[1]+40, len(page))])
	}
	// Nothing from anywhere: no script, no element that loads something.
	for _, name := range []string{"script", "img", "link", "iframe", "object", "embed"} {
		if n := len(doc.All(name)); n > 0 {
			t.Errorf("the DOM has %d <%s> elements", n, name)
		}
	}
	for _, n := range doc.All("") {
		for _, a := range []string{"src", "href", "xlink:href", "onerror", "onload"} {
			if v, ok := n.Attr[a]; ok {
				t.Errorf("<%s %s=%q> in the DOM", n.Name, a, v)
			}
		}
	}
	text := doc.TextContent()
	for _, want := range []string{scriptName, attrConfig} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}

	svgs := map[string]*chromiumtest.Node{}
	for _, s := range doc.All("svg") {
		svgs[s.Attr["id"]] = s
	}
	for _, id := range []string{"rates", "grid", "dist-tokens", "dist-wall", "dist-tool-calls", "paired"} {
		if svgs[id] == nil {
			t.Fatalf("no <svg id=%q> in the DOM; have %v", id, slices.Collect(maps.Keys(svgs)))
		}
	}

	// Rates: each config with its count and Wilson interval.
	rates := strings.Join(svgs["rates"].Texts("text"), "|")
	for _, want := range []string{"alpha", "beta", "1/10 = 10%", "95% CI 2–40%", "9/10 = 90%", "95% CI 60–98%",
		"8/10 = 80%", "95% CI 49–94%", "0%", "50%", "100%"} {
		if !strings.Contains(rates, want) {
			t.Errorf("rates chart lacks %q: %s", want, rates)
		}
	}
	if n := len(svgs["rates"].All("circle")); n != 3 {
		t.Errorf("rates chart has %d points, want 3", n)
	}

	// The grid: 5 scenarios × 3 configs, counts in the cells.
	grid := svgs["grid"]
	if n := len(grid.All("rect")); n != 15 {
		t.Errorf("grid has %d cells, want 15", n)
	}
	gridText := strings.Join(grid.Texts("text"), "|")
	for _, want := range []string{"go-fix", "py-types", "0/2", "1/2", "2/2", "100%", "50%", "0%"} {
		if !strings.Contains(gridText, want) {
			t.Errorf("grid lacks %q: %s", want, gridText)
		}
	}
	// A label shows the name, cut to fit; its tooltip (<title>) holds the
	// whole name.
	var shown []string
	for _, n := range grid.All("text") {
		shown = append(shown, strings.TrimSpace(n.Text))
	}
	if !slices.Contains(shown, scriptName) || !slices.Contains(shown, longName[:35]+"…") || slices.Contains(shown, longName) {
		t.Errorf("grid labels: the hostile name should be text and the long one cut: %q", shown)
	}
	if !slices.Contains(grid.Texts("title"), longName) {
		t.Errorf("the long name's tooltip is not the whole name")
	}

	// Distributions: a box per measured config with min/median/max.
	tokens := strings.Join(svgs["dist-tokens"].Texts("text"), "|")
	for _, want := range []string{"min 1050 · med 1500 · max 1950 (n=10)", "not measured"} {
		if !strings.Contains(tokens, want) {
			t.Errorf("tokens chart lacks %q: %s", want, tokens)
		}
	}
	if n := len(svgs["dist-tokens"].All("circle")); n != 20 {
		t.Errorf("tokens chart has %d dots, want 20 (two measured configs × 10 runs)", n)
	}
	wall := strings.Join(svgs["dist-wall"].Texts("text"), "|")
	if !strings.Contains(wall, "min 1.5s · med 2.6s · max 3.8s (n=10)") {
		t.Errorf("wall chart: %s", wall)
	}

	// The paired comparison of alpha and beta: b=1, c=9.
	paired := strings.Join(svgs["paired"].Texts("text"), "|")
	for _, want := range []string{"exact McNemar p = 0.02148", "1|wins of A", "9|losses of A", "the difference is significant"} {
		if !strings.Contains(paired, want) {
			t.Errorf("paired chart lacks %q: %s", want, paired)
		}
	}
	if d := doc.ByID("discordant"); d == nil || len(d.All("tr")) != 11 {
		t.Errorf("the discordant pairs table should have a header and 10 rows")
	}
	if r := doc.ByID("runs"); r == nil || len(r.All("tr")) != 31 {
		t.Errorf("the runs table should have a header and 30 rows")
	}

	// The text report states the same numbers as the page.
	var txt bytes.Buffer
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	for _, sum := range rep.Summary {
		count := fmt.Sprintf("%d/%d", sum.Succeeded, sum.Runs)
		ci := bench.Interval(sum.RateLow, sum.RateHigh)
		if !strings.Contains(txt.String(), count) || !strings.Contains(txt.String(), ci) ||
			!strings.Contains(rates, count) || !strings.Contains(rates, strings.Replace(ci, "-", "–", 1)) {
			t.Errorf("config %s: %s and %s should be in the text report and the chart", sum.Config, count, ci)
		}
	}
	if s := rep.Paired.Sentence(); !strings.Contains(txt.String(), "paired: "+s) || !strings.Contains(text, s) {
		t.Errorf("the paired sentence %q should be in the text report and on the page", s)
	}

}

// checkScreenshot checks the PNG is the window's size and shows the
// charts: the grid's red and green cells and the rate bars' blue cover
// real areas, not a blank or broken page.
func checkScreenshot(t *testing.T, shot []byte, w, h int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %v, want %dx%d", b, w, h)
	}
	colors := map[string][3]uint32{"green": {26, 152, 80}, "red": {215, 48, 39}, "bar blue": {143, 184, 222}}
	for name, c := range colors {
		if n := countColor(img, c); n < 400 {
			t.Errorf("the screenshot has %d pixels of %s %v; the chart is not drawn", n, name, c)
		}
	}
}

func countColor(img image.Image, want [3]uint32) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, want[0]) && near(g>>8, want[1]) && near(bl>>8, want[2]) {
				n++
			}
		}
	}
	return n
}

func near(a, b uint32) bool { return a+3 >= b && b+3 >= a }

// renderPage writes rep's page and renders it in Chromium at 1100 x
// height, checks the screenshot, and returns the page and the DOM after
// rendering. With
// LANGHOST_REPORT_ARTIFACTS set, the page, the PNG and the DOM are kept
// there as name.html, name.png and name-dom.html for a person to look at.
func renderPage(t *testing.T, rep *bench.Report, name string, height int) ([]byte, *chromiumtest.Node) {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	var buf bytes.Buffer
	if err := reporthtml.Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot, dom := chromiumtest.Render(t, page, 1100, height)
	if out := os.Getenv("LANGHOST_REPORT_ARTIFACTS"); out != "" {
		_ = os.WriteFile(filepath.Join(out, name+".html"), buf.Bytes(), 0o644)
		_ = os.WriteFile(filepath.Join(out, name+".png"), shot, 0o644)
		_ = os.WriteFile(filepath.Join(out, name+"-dom.html"), dom, 0o644)
	}
	checkScreenshot(t, shot, 1100, height)
	doc, err := chromiumtest.ParseDOM(dom)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), doc
}
