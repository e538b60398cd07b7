package reporthtml

// pageHTML is the page. Styles are inline and the policy allows nothing
// else: no script, no image, font or style from anywhere.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>langhost bench report</title>
<style>
body { margin: 0; background: #f4f5f7; color: #1d2430;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 1040px; margin: 0 auto; padding: 20px 24px 40px; }
h1 { font-size: 22px; margin: 4px 0 6px; }
h2 { font-size: 17px; margin: 0 0 2px; }
h3 { font-size: 14px; margin: 14px 0 0; }
p { margin: 4px 0; }
.meta { color: #5b6573; overflow-wrap: anywhere; }
.note { color: #5b6573; margin: 0 0 10px; font-size: 13px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 8px; padding: 16px 20px; margin: 14px 0; }
svg { display: block; width: 100%; height: auto; fill: #1d2430; }
svg text { font-size: 12px; }
svg .name { font-size: 12.5px; }
svg .axis { fill: #6b7480; font-size: 11px; }
svg .big { font-size: 15px; font-weight: 600; }
svg .small { font-size: 10.5px; }
.grid-wrap { overflow-x: auto; }
.grid-wrap svg { width: auto; max-width: none; }
.p { font-size: 16px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; table-layout: fixed; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #eceef1; overflow-wrap: anywhere; vertical-align: top; }
th { color: #5b6573; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #137a3d; font-weight: 600; }
.fail { color: #b42318; font-weight: 600; }
</style>
</head>
<body>
<main>
<h1>langhost bench report</h1>
<p class="meta">{{.Runs}} runs of {{.Scenarios}} scenarios with {{len .Rates.Rows}} configs{{if .Versions}}; langhost {{.Versions}}{{end}}{{if .Executors}}; run by {{.Executors}}{{end}}</p>
<p class="meta">results: {{range $i, $d := .Dirs}}{{if $i}}, {{end}}{{$d}}{{end}}</p>

<section id="rates-section">
<h2>Success rate per config</h2>
<p class="note">Bars are the share of runs whose acceptance checks all passed; whiskers are the 95% Wilson score interval.</p>
<svg id="rates" viewBox="0 0 {{f .Rates.W}} {{f .Rates.H}}" width="{{f .Rates.W}}" role="img" aria-label="Success rate per config">
{{- range .Rates.Ticks}}
<line x1="{{f .X}}" y1="22" x2="{{f .X}}" y2="{{f $.Rates.AxisY}}" stroke="#e3e6ea"/>
<text class="axis" x="{{f .X}}" y="16" text-anchor="middle">{{.Text}}</text>
{{- end}}
{{- range .Rates.Rows}}
<g class="rate-row"><title>{{.Tip}}</title>
<text class="name" x="220" y="{{f .MidY}}" dy="4" text-anchor="end">{{.Label.Short}}</text>
<rect x="230" y="{{f .Y}}" width="{{f .BarW}}" height="14" rx="2" fill="#8fb8de"/>
<line x1="{{f .Lo}}" y1="{{f .MidY}}" x2="{{f .Hi}}" y2="{{f .MidY}}" stroke="#1d2430" stroke-width="1.5"/>
<path d="M{{f .Lo}} {{f .Y}}v14M{{f .Hi}} {{f .Y}}v14" stroke="#1d2430" stroke-width="1.5" fill="none"/>
<circle cx="{{f .Rate}}" cy="{{f .MidY}}" r="4" fill="#1f4e79"/>
<text class="count" x="742" y="{{f .MidY}}" dy="4">{{.Count}}</text>
<text class="interval axis" x="850" y="{{f .MidY}}" dy="4">{{.Interval}}</text>
</g>
{{- end}}
<line x1="230" y1="{{f .Rates.AxisY}}" x2="730" y2="{{f .Rates.AxisY}}" stroke="#9aa2ad"/>
</svg>
</section>

<section id="grid-section">
<h2>Scenario × config</h2>
<p class="note">Runs that succeeded out of runs, per scenario and config; green is all, red is none.</p>
<div class="grid-wrap">
<svg id="grid" viewBox="0 0 {{f .Grid.W}} {{f .Grid.H}}" width="{{f .Grid.W}}" height="{{f .Grid.H}}" role="img" aria-label="Successes by scenario and config">
{{- range .Grid.Headers}}
<text class="name col" transform="translate({{f .X}} {{f .Y}}) rotate(-40)"><title>{{.Label.Full}}</title>{{.Label.Short}}</text>
{{- end}}
{{- range .Grid.Rows}}
<g class="grid-row">
<text class="name" x="250" y="{{f .MidY}}" dy="4" text-anchor="end"><title>{{.Label.Full}}</title>{{.Label.Short}}</text>
{{- $r := .}}
{{- range .Cells}}
<g class="cell"><title>{{.Tip}}</title>
<rect x="{{f .X}}" y="{{f $r.Y}}" width="98" height="42" rx="3" fill="{{.Fill}}"/>
<text class="big" x="{{f .MidX}}" y="{{f $r.MidY}}" dy="-1" text-anchor="middle" fill="{{.Ink}}">{{.Count}}</text>
<text class="small" x="{{f .MidX}}" y="{{f $r.MidY}}" dy="14" text-anchor="middle" fill="{{.Ink}}">{{.Rate}}</text>
</g>
{{- end}}
</g>
{{- end}}
</svg>
</div>
</section>

<section id="dist-section">
<h2>Distributions per config</h2>
<p class="note">Each dot is a run; the box spans the quartiles, the bar is the median and the whiskers reach the minimum and maximum. Tokens and tool calls are counted for langhost's own agent only.</p>
{{- range .Dists}}
<h3>{{.Heading}}</h3>
<svg id="{{.ID}}" class="dist" viewBox="0 0 {{f .W}} {{f .H}}" width="{{f .W}}" role="img" aria-label="{{.Title}} per config">
{{- $c := .}}
{{- range .Ticks}}
<line x1="{{f .X}}" y1="22" x2="{{f .X}}" y2="{{f $c.AxisY}}" stroke="#e3e6ea"/>
<text class="axis" x="{{f .X}}" y="16" text-anchor="middle">{{.Text}}</text>
{{- end}}
{{- range .Rows}}
<g class="dist-row"><title>{{.Tip}}</title>
<text class="name" x="220" y="{{f .MidY}}" dy="4" text-anchor="end">{{.Label.Short}}</text>
{{- if .Measured}}
<line x1="{{f .Min}}" y1="{{f .MidY}}" x2="{{f .Max}}" y2="{{f .MidY}}" stroke="#5b6573"/>
<path d="M{{f .Min}} {{f .Y}}v24M{{f .Max}} {{f .Y}}v24" stroke="#5b6573" fill="none"/>
<rect x="{{f .Q1}}" y="{{f .Y}}" width="{{f (sub .Q3 .Q1)}}" height="24" fill="#dbe8f5" stroke="#4a78a8"/>
<line x1="{{f .Med}}" y1="{{f .Y}}" x2="{{f .Med}}" y2="{{f (add .Y 24)}}" stroke="#1f4e79" stroke-width="3"/>
{{- range .Dots}}
<circle cx="{{f .X}}" cy="{{f .Y}}" r="2.6" fill="#e07b39" fill-opacity="0.8"/>
{{- end}}
{{- end}}
<text class="axis" x="{{f $c.NoteX}}" y="{{f .MidY}}" dy="4">{{.Note}}</text>
</g>
{{- end}}
</svg>
{{- end}}
</section>

<section id="paired-section">
<h2>Paired comparison</h2>
{{- with .Paired}}
<p class="note">Runs of <b>A = {{.A.Full}}</b> and <b>B = {{.B.Full}}</b> on the same scenario and repeat. A win is a pair where A succeeded and B failed; the exact McNemar test (a two-sided binomial test on the discordant pairs) asks whether wins and losses differ more than chance.</p>
<svg id="paired" viewBox="0 0 980 190" width="980" role="img" aria-label="Paired comparison">
<text class="axis" x="210" y="52" text-anchor="middle">B succeeded</text>
<text class="axis" x="330" y="52" text-anchor="middle">B failed</text>
<text class="axis" x="140" y="92" text-anchor="end">A succeeded</text>
<text class="axis" x="140" y="148" text-anchor="end">A failed</text>
<text class="name" x="150" y="24"><title>A = {{.A.Full}}, B = {{.B.Full}}</title>A = {{.A.Short}}, B = {{.B.Short}}</text>
{{- range .Cells}}
<g class="pair-cell"><title>{{.Count}} {{.What}}</title>
<rect x="{{f .X}}" y="{{f .Y}}" width="118" height="54" rx="3" fill="{{.Fill}}"/>
<text class="big" x="{{f (add .X 59)}}" y="{{f (add .Y 26)}}" text-anchor="middle" fill="{{.Ink}}">{{.Count}}</text>
<text class="small" x="{{f (add .X 59)}}" y="{{f (add .Y 42)}}" text-anchor="middle" fill="{{.Ink}}">{{.What}}</text>
</g>
{{- end}}
<text x="470" y="52">{{.Pairs}} pairs: wins, ties, losses of A</text>
{{- range .Bar}}
<g class="bar-part"><title>{{.Tip}}</title>
<rect x="{{f .X}}" y="62" width="{{f .W}}" height="30" fill="{{.Fill}}" stroke="#ffffff"/>
<text x="{{f (add .X (half .W))}}" y="81" text-anchor="middle" fill="{{.Ink}}">{{.Text}}</text>
</g>
{{- end}}
<text id="pvalue" class="big" x="470" y="128">exact McNemar p = {{.PValue}}</text>
<text class="axis" x="470" y="150">{{.Verdict}}</text>
</svg>
<p>{{.Sentence}}</p>
{{- if .Unpaired}}<p class="note">{{.Unpaired}}</p>{{end}}
{{- if .Discordant}}
<table id="discordant">
<thead><tr><th style="width:60%">scenario</th><th class="num">repeat</th><th>A</th><th>B</th></tr></thead>
<tbody>
{{- range .Discordant}}
<tr><td>{{.Scenario}}</td><td class="num">{{.Repeat}}</td><td>{{if .A}}<span class="ok">ok</span>{{else}}<span class="fail">failed</span>{{end}}</td><td>{{if .B}}<span class="ok">ok</span>{{else}}<span class="fail">failed</span>{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- else}}
<p class="note">Only one config: nothing to compare.</p>
{{- end}}
</section>

<section id="runs-section">
<h2>Runs</h2>
<table id="runs">
<thead><tr><th style="width:22%">scenario</th><th style="width:15%">config</th><th class="num" style="width:5%">rep.</th><th style="width:5%">ok</th><th style="width:12%">stop</th><th class="num" style="width:6%">steps</th><th class="num" style="width:6%">calls</th><th class="num" style="width:7%">tokens</th><th class="num" style="width:6%">wall</th><th class="num" style="width:6%">checks</th><th style="width:10%">ran by</th></tr></thead>
<tbody>
{{- range .Table}}
<tr><td>{{.Scenario}}</td><td>{{.Config}}</td><td class="num">{{.Repeat}}</td><td>{{if .OK}}<span class="ok">yes</span>{{else}}<span class="fail">no</span>{{end}}</td><td>{{.Stop}}</td><td class="num">{{.Steps}}</td><td class="num">{{.Calls}}</td><td class="num">{{.Tokens}}</td><td class="num">{{.Wall}}</td><td class="num">{{.Checks}}</td><td>{{.Where}}</td></tr>
{{- end}}
</tbody>
</table>
</section>
</main>
</body>
</html>
`
