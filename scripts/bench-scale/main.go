// Command bench-scale measures semantic queries at real-repository scale:
// find_references through `langhost mcp` (the whole stack: MCP server,
// semantic plugin, language server) against the bare language server
// driven over LSP with langhost's own client (plugins/lsp), in the same
// run, on the same symbols given by position, interleaved.
//
// The Go workspace is golang.org/x/tools at the version the gopls on PATH
// was built with (about 210,000 lines), copied from the module cache
// (downloaded through the module proxy if missing). The Python workspace
// (-python) is the standard library's email package, served by pyright.
// The C# workspace (-csharp) is a real solution the caller names, served by
// csharp-ls: a directory holding a git clone (or a URL to clone), copied and
// checked out at -csharp-commit, restored with dotnet restore; nothing of it
// is kept. Its symbols come from -csharp-symbols (file|declaration|identifier
// entries separated by ';', relative to the solution's directory),
// by default picked from its own symbols as the differential harness picks
// them (internal/difftest). -csharp-env sets environment variables,
// which MSBuild reads as properties, for the restore and both servers (to
// choose target frameworks whose packages the machine's NuGet source has). For C#
// every semantic operation is measured (csharp.go), through three paths in
// the same run, interleaved: the CLI (`langhost run`, served by the
// workspace's daemon), MCP and the bare csharp-ls sent the same LSP
// requests; the answers are compared, the memory of the three process
// trees sampled, and the documents left open in the daemon's csharp-ls
// counted through a shim that records its didOpen and didClose. The
// tables are printed after 20 and every 50 rounds, and at the end.
//
// Usage, from the repository root with the pinned tools on PATH:
//
//	go run ./scripts/bench-scale [-queries 500] [-colds 3] [-python] [-v]
//	go run ./scripts/bench-scale -go=false -csharp /path/to/Newtonsoft.Json \
//		-csharp-commit 09bb545d72969ad7fb4ea07db0d5c34f4fc07877 \
//		-csharp-env LibraryFrameworks=net8.0,TestFrameworks=net10.0 \
//		[-workdir DIR] [-langhost EXE] [-csharp-ops find_references,...]
//
// -workdir keeps the copy (restored once) for later runs; -langhost
// measures a given executable instead of building ./cmd/langhost.
//
// It reports per server: the cold first answer (process start to the first
// references result, with the language server's on-disk cache warm; the
// median of -colds starts), the warm median, p95 and slowest query, the
// median response size (the MCP result as JSON; the bare LSP result), and
// the memory of the whole process tree after 50 queries, at the end and at
// its peak: the sum of RSS over every descendant (sampled every 50 ms for
// the peak), and the sum of PSS, which counts pages that processes share
// (langhost's host and plugin map the same executable) once.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// symbol is a declaration to find references of: the line of file
// containing decl, at ident.
type symbol struct {
	file, decl, ident string

	line, column int // 1-based, found at start-up
}

// goSymbols span 1 to hundreds of references in golang.org/x/tools.
var goSymbols = []symbol{
	{file: "go/analysis/analysis.go", decl: "type Analyzer struct", ident: "Analyzer"},
	{file: "go/analysis/analysis.go", decl: "type Pass struct", ident: "Pass"},
	{file: "go/analysis/analysis.go", decl: "func (pass *Pass) ReportRangef(", ident: "ReportRangef"},
	{file: "go/packages/packages.go", decl: "func Load(", ident: "Load"},
	{file: "go/packages/packages.go", decl: "type Config struct", ident: "Config"},
	{file: "go/ssa/ssa.go", decl: "type Function struct", ident: "Function"},
	{file: "go/ssa/ssa.go", decl: "type Value interface", ident: "Value"},
	{file: "go/ssa/ssa.go", decl: "type Program struct", ident: "Program"},
	{file: "go/ast/inspector/inspector.go", decl: "type Inspector struct", ident: "Inspector"},
	{file: "go/ast/inspector/inspector.go", decl: "func (in *Inspector) Preorder(", ident: "Preorder"},
	{file: "go/types/typeutil/map.go", decl: "type Map struct", ident: "Map"},
	{file: "go/ssa/ssautil/visit.go", decl: "func AllFunctions(", ident: "AllFunctions"},
	{file: "txtar/archive.go", decl: "type Archive struct", ident: "Archive"},
	{file: "go/callgraph/callgraph.go", decl: "type Graph struct", ident: "Graph"},
	{file: "go/ast/astutil/imports.go", decl: "func Imports(", ident: "Imports"},
	{file: "go/packages/packages.go", decl: "func newLoader(", ident: "newLoader"},
	{file: "internal/testenv/testenv.go", decl: "func NeedsTool(", ident: "NeedsTool"},
	{file: "internal/gocommand/invoke.go", decl: "type Invocation struct", ident: "Invocation"},
}

// pySymbols span 1 to dozens of references in the email package.
var pySymbols = []symbol{
	{file: "message.py", decl: "class Message:", ident: "Message"},
	{file: "message.py", decl: "def get_payload(", ident: "get_payload"},
	{file: "message.py", decl: "def get_content_type(", ident: "get_content_type"},
	{file: "message.py", decl: "def get_param(", ident: "get_param"},
	{file: "message.py", decl: "def _splitparam(", ident: "_splitparam"},
	{file: "utils.py", decl: "def formatdate(", ident: "formatdate"},
	{file: "utils.py", decl: "def parseaddr(", ident: "parseaddr"},
	{file: "errors.py", decl: "class HeaderParseError(", ident: "HeaderParseError"},
	{file: "errors.py", decl: "class MessageDefect(", ident: "MessageDefect"},
	{file: "_header_value_parser.py", decl: "class TokenList(", ident: "TokenList"},
	{file: "_header_value_parser.py", decl: "class Terminal(", ident: "Terminal"},
	{file: "_header_value_parser.py", decl: "def get_cfws(", ident: "get_cfws"},
	{file: "header.py", decl: "class Header:", ident: "Header"},
	{file: "charset.py", decl: "class Charset:", ident: "Charset"},
	{file: "policy.py", decl: "class EmailPolicy(", ident: "EmailPolicy"},
	{file: "feedparser.py", decl: "class FeedParser:", ident: "FeedParser"},
	{file: "generator.py", decl: "class Generator:", ident: "Generator"},
	{file: "_policybase.py", decl: "def handle_defect(", ident: "handle_defect"},
}

// parseSymbols reads file|declaration|identifier entries separated by ';'.
func parseSymbols(spec string) []symbol {
	var out []symbol
	for e := range strings.SplitSeq(spec, ";") {
		f := strings.Split(e, "|")
		if len(f) != 3 {
			log.Fatalf("-csharp-symbols: %q is not file|declaration|identifier", e)
		}
		out = append(out, symbol{file: f[0], decl: f[1], ident: f[2]})
	}
	return out
}

func main() {
	log.SetFlags(0)
	if len(os.Args) > 1 && os.Args[1] == "record-lsp" {
		recordLSP(os.Args[2:]) // the shim in front of the CLI daemon's csharp-ls
	}
	queries := flag.Int("queries", 500, "warm queries per server (the memory after 50 is reported too)")
	goBench := flag.Bool("go", true, "measure gopls on golang.org/x/tools")
	python := flag.Bool("python", false, "also measure pyright on the standard library's email package")
	csharp := flag.String("csharp", "", "also measure csharp-ls on this C# solution: a git clone's directory or a URL to clone")
	csCommit := flag.String("csharp-commit", "", "the commit of -csharp to check out (default: its HEAD, reported)")
	csSyms := flag.String("csharp-symbols", "", "symbols of -csharp as file|declaration|identifier;... (default: picked from the solution's own symbols by internal/difftest)")
	csEnv := flag.String("csharp-env", "", "environment (MSBuild properties) for -csharp's restore and servers: K=V,...")
	csDetail := flag.String("csharp-detail", "standard", "langhost's detail for -csharp on both paths: compact, standard, full, or default (each path's own: compact over MCP, standard on the CLI)")
	csOpsFlag := flag.String("csharp-ops", "", "measure only these of -csharp's operations (langhost tool names: find_references,symbol_info,...)")
	keep := flag.Bool("keep", false, "keep the temporary directory")
	workdir := flag.String("workdir", "", "work in this directory instead of a temporary one, and keep it; a C# copy restored there by an earlier run at the same commit is reused")
	prebuilt := flag.String("langhost", "", "measure this langhost executable instead of building ./cmd/langhost")
	colds := flag.Int("colds", 3, "cold starts per server (the median is reported)")
	flag.BoolVar(&warmCache, "warm-cache", true, "start each server once before the cold starts, so that none pays for filling its on-disk caches")
	flag.BoolVar(&verbose, "v", false, "also report each symbol and each process")
	flag.Parse()

	tmp := *workdir
	if tmp == "" {
		var err error
		if tmp, err = os.MkdirTemp("", "langhost-bench-scale-*"); err != nil {
			log.Fatal(err)
		}
		if !*keep {
			defer os.RemoveAll(tmp)
		}
	} else if err := os.MkdirAll(tmp, 0o755); err != nil {
		log.Fatal(err)
	}
	exe := filepath.Join(tmp, "langhost")
	if *prebuilt != "" {
		var err error
		if exe, err = filepath.Abs(*prebuilt); err != nil {
			log.Fatal(err)
		}
	} else {
		run("", "go", "build", "-o", exe, "./cmd/langhost")
	}

	if *goBench {
		ws, version := goWorkspace(tmp)
		fmt.Printf("## gopls on golang.org/x/tools %s (%s lines of Go)\n\n", version, countLines(ws, ".go"))
		bench(benchConfig{
			name: "gopls", lang: "go", ws: ws, exe: exe, queries: *queries, colds: max(1, *colds), symbols: goSymbols,
			argv: []string{"gopls"}, languageID: "go",
			settings: map[string]any{"gopls": map[string]any{"symbolScope": "workspace"}},
		})
	}
	if *python {
		ws := pyWorkspace(tmp)
		fmt.Printf("\n## pyright on the standard library's email package (%s lines of Python)\n\n", countLines(ws, ".py"))
		bench(benchConfig{
			name: "pyright", lang: "python", ws: ws, exe: exe, queries: *queries, colds: max(1, *colds), symbols: pySymbols,
			argv: []string{"pyright-langserver", "--stdio"}, languageID: "python",
			ready: regexp.MustCompile(`Found \d+ source files?`),
		})
	}
	if *csharp != "" {
		var symbols []symbol // picked from the solution's own symbols
		if *csSyms != "" {
			symbols = parseSymbols(*csSyms)
		}
		for kv := range strings.SplitSeq(*csEnv, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				os.Setenv(k, v)
			}
		}
		ws, commit := csWorkspace(tmp, *csharp, *csCommit)
		name := filepath.Base(strings.TrimSuffix(*csharp, ".git"))
		if name == "repo" { // a mirror's owner+name/repo
			name = filepath.Base(filepath.Dir(*csharp))
		}
		fmt.Printf("\n## csharp-ls on %s at %s (%s lines of C#)\n\n", name, commit, countLines(ws, ".cs"))
		benchCSharp(context.Background(), benchConfig{
			name: "csharp-ls", lang: "csharp", ws: ws, exe: exe, queries: *queries, colds: max(1, *colds), symbols: symbols,
			argv: []string{"csharp-ls"}, languageID: "csharp", compareSets: true,
		}, *csOpsFlag, *csDetail)
	}
}

type benchConfig struct {
	name, lang, ws, exe string
	queries, colds      int
	symbols             []symbol
	argv                []string
	languageID          string
	settings            map[string]any
	// ready, when set, is the log message after which the raw server
	// answers with real results (pyright answers empty before).
	ready *regexp.Regexp
	// untilAnswer repeats the first query of a cold start until its answer
	// is not empty (csharp-ls answers empty while it loads the solution).
	untilAnswer bool
	// op is "references" (the default) or "implementations".
	op string
	// compareSets compares the answers as sets of locations, not counts.
	compareSets bool
	// capabilities are the client capabilities the raw server is given
	// (default: references and progress only).
	capabilities map[string]any
	// loadDetail is langhost's detail for the first query of a cold start
	// (default standard).
	loadDetail string
}

// sample is one timed query.
type sample struct {
	d     time.Duration
	bytes int
	refs  int
	inner time.Duration // langhost: the time the MCP server reports for the call
	locs  []string      // file:line:column, sorted, when compareSets
}

func bench(cfg benchConfig) {
	ctx := context.Background()
	for i := range cfg.symbols {
		locate(cfg.ws, &cfg.symbols[i])
	}

	// Warm the language server's on-disk cache (gopls keeps export data
	// and indexes under the user cache directory), so that no cold start
	// below pays for it.
	if warmCache {
		log.Printf("%s: warming the server's disk cache", cfg.name)
		warm, _, err := startRaw(ctx, cfg)
		if err != nil {
			log.Fatal(err)
		}
		warm.close()
	}

	// Cold starts, alternating, one at a time; the last pair stays up.
	var (
		raw               *rawServer
		lh                *langhost
		rawColds, lhColds []time.Duration
	)
	for i := range cfg.colds {
		for _, who := range alternate(i, "raw", "langhost") {
			log.Printf("%s: cold start %d of %d, %s", cfg.name, i+1, cfg.colds, who)
			if who == "raw" {
				r, d, err := startRaw(ctx, cfg)
				if err != nil {
					log.Fatal(err)
				}
				rawColds = append(rawColds, d)
				if i < cfg.colds-1 {
					r.close()
				} else {
					raw = r
				}
				continue
			}
			l, d, err := startLanghost(ctx, cfg)
			if err != nil {
				log.Fatal(err)
			}
			lhColds = append(lhColds, d)
			if i < cfg.colds-1 {
				l.close()
			} else {
				lh = l
			}
		}
	}
	defer raw.close()
	defer lh.close()
	slices.Sort(rawColds)
	slices.Sort(lhColds)
	rawCold, lhCold := rawColds[len(rawColds)/2], lhColds[len(lhColds)/2]

	rawMem, lhMem := newSampler(raw.pid()), newSampler(lh.pid())
	defer rawMem.stop()
	defer lhMem.stop()

	var rawS, stdS, compactS []sample
	bySymbol := make([][3][]sample, len(cfg.symbols))
	var rawAt50, lhAt50 memory
	var mismatches []string
	log.Printf("%s: %d warm queries per column", cfg.name, cfg.queries)
	for q := 0; q < cfg.queries; {
		for i, sym := range cfg.symbols {
			if q == cfg.queries {
				break
			}
			// Alternate who goes first, so neither always runs on a CPU
			// the other just warmed or left busy.
			var rawN, stdN int
			var rawLocs, stdLocs []string
			for _, who := range alternate(q/len(cfg.symbols)+i, "raw", "standard", "compact") {
				var s sample
				var err error
				switch who {
				case "raw":
					s, err = raw.query(ctx, cfg, sym)
					rawS, rawN, rawLocs = append(rawS, s), s.refs, s.locs
					bySymbol[i][0] = append(bySymbol[i][0], s)
				case "standard":
					s, err = lh.query(ctx, cfg, sym, "standard")
					stdS, stdN, stdLocs = append(stdS, s), s.refs, s.locs
					bySymbol[i][1] = append(bySymbol[i][1], s)
				case "compact":
					s, err = lh.query(ctx, cfg, sym, "compact")
					compactS = append(compactS, s)
					bySymbol[i][2] = append(bySymbol[i][2], s)
				}
				if err != nil {
					log.Fatalf("%s %s: %v", who, sym.ident, err)
				}
			}
			if rawN != stdN && len(mismatches) < 5 {
				mismatches = append(mismatches, fmt.Sprintf("%s: raw %d %s, langhost %d", sym.ident, rawN, cfg.opName(), stdN))
			} else if cfg.compareSets && !slices.Equal(rawLocs, stdLocs) && len(mismatches) < 5 {
				mismatches = append(mismatches, fmt.Sprintf("%s: the same number of %s at different places: raw %q, langhost %q", sym.ident, cfg.opName(), rawLocs, stdLocs))
			}
			q++
			if q == min(50, cfg.queries) {
				rawAt50, lhAt50 = treeMemory(raw.pid(), cfg.exe), treeMemory(lh.pid(), cfg.exe)
			}
		}
	}
	rawEnd, lhEnd := treeMemory(raw.pid(), cfg.exe), treeMemory(lh.pid(), cfg.exe)
	if verbose {
		inner := make([]sample, len(stdS))
		for i, x := range stdS {
			inner[i].d = x.inner
		}
		log.Printf("langhost standard: median %s as the MCP client sees it, %s in the tool call", ms(median(stdS)), ms(median(inner)))
		log.Printf("raw tree: %s", treeBreakdown(raw.pid()))
		log.Printf("langhost tree: %s", treeBreakdown(lh.pid()))
	}

	n := len(rawS)
	at50 := min(50, n)
	fmt.Printf("%d symbols (%s %s each); %d warm queries per row, interleaved; cold: median of %d starts each.\n\n", len(cfg.symbols), refRange(rawS), cfg.opName(), n, cfg.colds)
	fmt.Printf("| | cold first answer | warm median | warm p95 | slowest | median response | tree RSS after %d queries | after %d | peak | tree PSS after %d | after %d |\n", at50, n, at50, n)
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	row := func(name string, cold time.Duration, s []sample, m50, mEnd memory, peak int64) {
		mem := func(v int64) string {
			if v < 0 {
				return "″"
			}
			return mib(v)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, ms(cold), ms(median(s)), ms(p95(s)), ms(slowest(s)), kib(medianBytes(s)),
			mem(m50.rss), mem(mEnd.rss), mem(peak), mem(m50.pss), mem(mEnd.pss))
	}
	same := memory{rss: -1, pss: -1, own: -1}
	row("raw "+cfg.name+" over LSP", rawCold, rawS, rawAt50, rawEnd, rawMem.peak())
	row("langhost, `standard` detail", lhCold, stdS, lhAt50, lhEnd, lhMem.peak())
	row("langhost, `compact` detail", -1, compactS, same, same, -1)
	fmt.Println()
	check := func(ok bool, format string, args ...any) {
		mark := "met"
		if !ok {
			mark = "NOT met"
		}
		fmt.Printf("- %s: %s\n", fmt.Sprintf(format, args...), mark)
	}
	ratio := func(a, b time.Duration) float64 { return float64(a) / float64(b) }
	check(ratio(median(stdS), median(rawS)) <= 1.2, "warm median at standard ≤ 1.2× raw: %.2f×", ratio(median(stdS), median(rawS)))
	check(ratio(p95(stdS), median(stdS)) <= 3, "p95 ≤ 3× median at standard: %.1f× (raw %s: %.1f×; langhost p95 is %.2f× raw's)",
		ratio(p95(stdS), median(stdS)), cfg.name, ratio(p95(rawS), median(rawS)), ratio(p95(stdS), p95(rawS)))
	check(slowest(stdS) < time.Second, "no multi-second spikes: slowest %s (raw: %s)", ms(slowest(stdS)), ms(slowest(rawS)))
	check(lhCold <= rawCold+300*time.Millisecond, "cold first answer ≤ raw + 300 ms: %+d ms", (lhCold - rawCold).Milliseconds())
	check(lhAt50.rss <= rawAt50.rss+80<<20, "tree RSS after %d queries ≤ raw + 80 MiB: %+.0f MiB", at50, float64(lhAt50.rss-rawAt50.rss)/(1<<20))
	check(lhAt50.pss <= rawAt50.pss+80<<20, "tree PSS (shared pages counted once) after %d queries ≤ raw + 80 MiB: %+.0f MiB", at50, float64(lhAt50.pss-rawAt50.pss)/(1<<20))
	check(lhEnd.rss-lhAt50.rss <= max(0, rawEnd.rss-rawAt50.rss)+32<<20, "tree memory flat from %d to %d queries: langhost %+.0f MiB, raw %+.0f MiB",
		at50, n, float64(lhEnd.rss-lhAt50.rss)/(1<<20), float64(rawEnd.rss-rawAt50.rss)/(1<<20))
	fmt.Printf("- of langhost's tree, its own processes (MCP host, plugin, reaper; not the language server) hold %s RSS after %d queries and %s after %d\n",
		mib(lhAt50.own), at50, mib(lhEnd.own), n)
	printProcesses(at50, n, lhAt50, lhEnd)
	for _, m := range mismatches {
		fmt.Printf("- different answers: %s\n", m)
	}
	if cfg.compareSets && len(mismatches) == 0 {
		fmt.Printf("- answers: the same sets of locations for every query\n")
	}
	if verbose {
		fmt.Println("\n| symbol | references | raw median | standard median | compact median | standard response |")
		fmt.Println("|---|---|---|---|---|---|")
		for i, sym := range cfg.symbols {
			b := bySymbol[i]
			if len(b[0]) == 0 {
				continue
			}
			fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", sym.ident, b[0][0].refs, ms(median(b[0])), ms(median(b[1])), ms(median(b[2])), kib(medianBytes(b[1])))
		}
	}
}

// alternate returns names in order for even i and reversed for odd i.
func alternate(i int, names ...string) []string {
	if i%2 == 1 {
		slices.Reverse(names)
	}
	return names
}

// verbose adds a table per symbol.
var verbose bool

// warmCache starts a server once before measuring its cold starts.
var warmCache bool

// locate finds the line and column of a symbol's declaration.
func locate(ws string, s *symbol) {
	content, err := os.ReadFile(filepath.Join(ws, s.file))
	if err != nil {
		log.Fatal(err)
	}
	for i, line := range strings.Split(string(content), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), s.decl) {
			col := strings.Index(line, s.decl) + strings.Index(s.decl, s.ident)
			if col < strings.Index(line, s.decl) || !strings.Contains(s.decl, s.ident) {
				log.Fatalf("%s: %q is not in %q", s.file, s.ident, s.decl)
			}
			s.line, s.column = i+1, col+1
			return
		}
	}
	log.Fatalf("%s: no line starts with %q", s.file, s.decl)
}

// ---- the raw server, over LSP with langhost's client

type rawServer struct {
	srv  *lsp.Server
	ws   string
	caps map[string]json.RawMessage // the server's capabilities
}

// startRaw starts the bare server and returns it with the time to its
// first references answer.
func startRaw(ctx context.Context, cfg benchConfig) (*rawServer, time.Duration, error) {
	start := time.Now()
	ready := make(chan struct{})
	var once sync.Once
	path, err := exec.LookPath(cfg.argv[0])
	if err != nil {
		return nil, 0, err
	}
	srv, err := lsp.Start(append([]string{path}, cfg.argv[1:]...), cfg.ws, nil, lsp.Options{
		Settings:         cfg.settings,
		WorkspaceFolders: []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(cfg.ws), Name: filepath.Base(cfg.ws)}},
		OnLog: func(_ int, msg string) {
			if cfg.ready != nil && cfg.ready.MatchString(msg) {
				once.Do(func() { close(ready) })
			}
		},
	})
	if err != nil {
		return nil, 0, err
	}
	r := &rawServer{srv: srv, ws: cfg.ws}
	init := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          lsp.URIFromPath(cfg.ws),
		"workspaceFolders": []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(cfg.ws), Name: filepath.Base(cfg.ws)}},
		"capabilities": map[string]any{
			"workspace":    map[string]any{"configuration": true, "workspaceFolders": true},
			"textDocument": map[string]any{"references": map[string]any{}},
			"window":       map[string]any{"workDoneProgress": true},
		},
	}
	if cfg.capabilities != nil {
		init["capabilities"] = cfg.capabilities
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := srv.Call(ctx, "initialize", init, &res); err != nil {
		r.close()
		return nil, 0, fmt.Errorf("initialize: %w", err)
	}
	r.caps = res.Capabilities
	if err := srv.Notify(ctx, "initialized", struct{}{}); err != nil {
		r.close()
		return nil, 0, err
	}
	if cfg.ready != nil {
		select {
		case <-ready:
		case <-time.After(5 * time.Minute):
			r.close()
			return nil, 0, errors.New("the server never said it was ready")
		}
	}
	if err := firstAnswer(cfg, func() (sample, error) { return r.query(ctx, cfg, cfg.symbols[0]) }); err != nil {
		r.close()
		return nil, 0, err
	}
	return r, time.Since(start), nil
}

func (r *rawServer) query(ctx context.Context, cfg benchConfig, s symbol) (sample, error) {
	params := map[string]any{
		"textDocument": lsp.TextDocumentIdentifier{URI: lsp.URIFromPath(filepath.Join(r.ws, s.file))},
		"position":     lsp.Position{Line: uint32(s.line - 1), Character: uint32(s.column - 1)},
	}
	method := "textDocument/implementation"
	if cfg.op != "implementations" {
		method = "textDocument/references"
		params["context"] = map[string]bool{"includeDeclaration": false}
	}
	start := time.Now()
	var raw json.RawMessage
	if err := r.srv.Call(ctx, method, params, &raw); err != nil {
		return sample{}, err
	}
	d := time.Since(start)
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return sample{}, err
	}
	out := sample{d: d, bytes: len(raw), refs: len(locs)}
	if cfg.compareSets {
		for _, l := range locs {
			p, err := l.URI.Path()
			if err != nil {
				return sample{}, err
			}
			rel, _ := filepath.Rel(r.ws, p)
			out.locs = append(out.locs, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), l.Range.Start.Line+1))
		}
		slices.Sort(out.locs)
	}
	return out, nil
}

func (r *rawServer) pid() int { return r.srv.PID() }

func (r *rawServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.srv.Close(ctx)
}

// ---- langhost, over MCP with the official SDK client

type langhost struct {
	cmd  *exec.Cmd
	cs   *mcp.ClientSession
	tool string
}

func startLanghost(ctx context.Context, cfg benchConfig) (*langhost, time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(cfg.exe, "mcp", "--workspace", cfg.ws, "--language", cfg.lang)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-scale"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("starting langhost mcp: %w", err)
	}
	l := &langhost{cmd: cmd, cs: cs, tool: toolname.Name(cfg.lang + ".find_" + cfg.opName())}
	if err := firstAnswer(cfg, func() (sample, error) { return l.query(ctx, cfg, cfg.symbols[0], cmp.Or(cfg.loadDetail, "standard")) }); err != nil {
		l.close()
		return nil, 0, err
	}
	return l, time.Since(start), nil
}

// firstAnswer runs the first query of a cold start; with untilAnswer it
// repeats it, for up to five minutes, until the answer is not empty.
func firstAnswer(cfg benchConfig, query func() (sample, error)) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		s, err := query()
		if err != nil || !cfg.untilAnswer || s.refs > 0 {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s of %s after five minutes", cfg.opName(), cfg.symbols[0].ident)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (cfg benchConfig) opName() string {
	if cfg.op == "" {
		return "references"
	}
	return cfg.op
}

func (l *langhost) query(ctx context.Context, cfg benchConfig, s symbol, detail string) (sample, error) {
	args := map[string]any{"file": s.file, "line": s.line, "column": s.column, "detail": detail}
	if cfg.compareSets && cfg.opName() == "references" {
		args["limit"] = 100000 // every reference, to compare the sets
	}
	start := time.Now()
	res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Name: l.tool, Arguments: args})
	if err != nil {
		return sample{}, err
	}
	d := time.Since(start)
	body, err := json.Marshal(res)
	if err != nil {
		return sample{}, err
	}
	if res.IsError {
		return sample{}, fmt.Errorf("%s", body)
	}
	type loc struct {
		File string `json:"file"`
		Line int    `json:"line"`
	}
	var st struct {
		DurationMS      float64 `json:"duration_ms"`
		Total           int     `json:"total"`
		References      []loc   `json:"references"`
		Implementations []loc   `json:"implementations"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &st); err != nil {
		return sample{}, err
	}
	out := sample{d: d, bytes: len(body), refs: st.Total, inner: time.Duration(st.DurationMS * float64(time.Millisecond))}
	if cfg.compareSets {
		for _, l := range append(st.References, st.Implementations...) {
			out.locs = append(out.locs, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		slices.Sort(out.locs)
	}
	return out, nil
}

func (l *langhost) pid() int { return l.cmd.Process.Pid }

func (l *langhost) close() { _ = l.cs.Close() }

// ---- memory of a process tree

// sampler records the summed RSS of a process and its descendants every
// 50 ms.
type sampler struct {
	root int
	done chan struct{}
	wg   sync.WaitGroup

	mu  sync.Mutex
	max int64
}

func newSampler(root int) *sampler {
	s := &sampler{root: root, done: make(chan struct{})}
	s.sample()
	s.wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-t.C:
				s.sample()
			}
		}
	})
	return s
}

func (s *sampler) sample() {
	v := treeRSS(s.root)
	s.mu.Lock()
	s.max = max(s.max, v)
	s.mu.Unlock()
}

func (s *sampler) peak() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max
}

func (s *sampler) stop() {
	close(s.done)
	s.wg.Wait()
}

var pageSize = int64(os.Getpagesize())

// treeRSS sums the resident memory of root and its descendants.
func treeRSS(root int) int64 {
	var sum int64
	for _, p := range tree(root) {
		sum += p.rss
	}
	return sum
}

// memory is a tree's summed RSS and PSS. RSS counts the pages processes
// share (the same executable mapped by langhost's processes) once per
// process; PSS divides them among the processes that share them.
// own is the RSS of langhost's own processes (host, plugin and reaper,
// without the language server); each is every process's share.
type memory struct {
	rss, pss, own int64
	each          []procMemory
}

// procMemory is the memory of one process of a tree, named by its role.
type procMemory struct {
	role     string
	rss, pss int64
}

func treeMemory(root int, exe string) memory {
	var m memory
	for _, p := range tree(root) {
		pm := procMemory{role: role(p, exe), rss: p.rss, pss: pss(p.pid)}
		if pm.role == "recorder" {
			continue // bench-scale's own shim (the C# CLI's daemon), not langhost's
		}
		m.rss += pm.rss
		m.pss += pm.pss
		if pm.role != "server" {
			m.own += p.rss
		}
		m.each = append(m.each, pm)
	}
	return m
}

// role names a process of a tree: langhost's MCP host, plugin or reaper
// (/bin/sh named langhost-reaper, or this executable sweeping), or a
// language server (anything else, its helpers included).
func role(p proc, exe string) string {
	args := strings.Fields(p.name)
	switch {
	case len(args) > 1 && args[1] == "record-lsp":
		return "recorder"
	case slices.Contains(args, "langhost-reaper") || p.exe == exe && slices.Contains(args, "reaper"):
		return "reaper"
	case p.exe == exe && len(args) > 2 && args[1] == "plugin" && args[2] == "serve":
		return "plugin " + strings.Join(args[3:], " ")
	case p.exe == exe:
		return "host: langhost " + strings.Join(args[1:min(len(args), 2)], " ")
	}
	return "server"
}

// printProcesses prints the memory of each process of langhost's tree
// after at50 and n queries: what the host, the plugin, the reaper and the
// language server each hold.
func printProcesses(at50, n int, a, b memory) {
	fmt.Printf("\n| langhost's tree, each process | RSS after %d queries | after %d | PSS after %d | after %d |\n", at50, n, at50, n)
	fmt.Println("|---|---|---|---|---|")
	byRole := func(m memory, r string) (rss, pss int64, ok bool) {
		for _, p := range m.each {
			if p.role == r {
				rss, pss, ok = rss+p.rss, pss+p.pss, true
			}
		}
		return rss, pss, ok
	}
	var roles []string
	for _, p := range append(a.each, b.each...) {
		if !slices.Contains(roles, p.role) {
			roles = append(roles, p.role)
		}
	}
	show := func(v int64, ok bool) string {
		if !ok {
			return "(gone)"
		}
		return mib(v)
	}
	for _, r := range roles {
		r1, p1, ok1 := byRole(a, r)
		r2, p2, ok2 := byRole(b, r)
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r, show(r1, ok1), show(r2, ok2), show(p1, ok1), show(p2, ok2))
	}
	fmt.Printf("| langhost's own (all but the server) | %s | %s | %s | %s |\n", mib(a.own), mib(b.own), mib(a.ownPSS()), mib(b.ownPSS()))
}

// ownPSS is the PSS of langhost's own processes.
func (m memory) ownPSS() int64 {
	var sum int64
	for _, p := range m.each {
		if p.role != "server" {
			sum += p.pss
		}
	}
	return sum
}

// pss reads a process's proportional set size.
func pss(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// treeBreakdown describes the processes of a tree and their memory.
func treeBreakdown(root int) string {
	var parts []string
	for _, p := range tree(root) {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", p.name, mib(p.rss), p.detail))
	}
	return strings.Join(parts, "; ")
}

type proc struct {
	pid               int
	exe, name, detail string
	rss               int64
}

// tree lists root and its descendants.
func tree(root int) []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields
		// after it start after the last ")".
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
	}
	var procs []proc
	for todo := []int{root}; len(todo) > 0; {
		pid := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[pid]...)
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		statm, err := os.ReadFile(filepath.Join(dir, "statm"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(statm))
		if len(f) < 2 {
			continue
		}
		pages, _ := strconv.ParseInt(f[1], 10, 64)
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		exe, _, _ := strings.Cut(string(cmdline), "\x00")
		p := proc{pid: pid, exe: exe, name: strings.Join(strings.Fields(strings.ReplaceAll(string(cmdline), "\x00", " ")), " "), rss: pages * pageSize}
		if verbose {
			status, _ := os.ReadFile(filepath.Join(dir, "status"))
			for line := range strings.SplitSeq(string(status), "\n") {
				if strings.HasPrefix(line, "RssAnon") || strings.HasPrefix(line, "RssFile") {
					p.detail += strings.Join(strings.Fields(line), " ") + " "
				}
			}
		}
		procs = append(procs, p)
	}
	return procs
}

// ---- workspaces

// goWorkspace copies golang.org/x/tools, at the version the gopls on PATH
// was built with, into dir and downloads its dependencies.
func goWorkspace(dir string) (ws, version string) {
	gopls, err := exec.LookPath("gopls")
	if err != nil {
		log.Fatal("gopls is not on PATH; run scripts/install-tools.sh and put .tools/bin on PATH")
	}
	out := output("", "go", "version", "-m", gopls)
	for line := range strings.SplitSeq(out, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "dep" && f[1] == "golang.org/x/tools" {
			version = f[2]
		}
	}
	if version == "" {
		log.Fatalf("%s does not say which golang.org/x/tools it was built with", gopls)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal([]byte(output("", "go", "mod", "download", "-json", "golang.org/x/tools@"+version)), &mod); err != nil || mod.Dir == "" {
		log.Fatalf("downloading golang.org/x/tools@%s: %v", version, err)
	}
	ws = filepath.Join(dir, "x-tools")
	if err := os.CopyFS(ws, os.DirFS(mod.Dir)); err != nil {
		log.Fatal(err)
	}
	// The module cache is read-only; the copy need not be.
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			mode := os.FileMode(0o644)
			if d.IsDir() {
				mode = 0o755
			}
			_ = os.Chmod(p, mode)
		}
		return nil
	})
	run(ws, "go", "mod", "download")
	return ws, version
}

// pyWorkspace copies the standard library's email package into dir.
func pyWorkspace(dir string) string {
	stdlib := strings.TrimSpace(output("", "python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`))
	ws := filepath.Join(dir, "email")
	if err := os.CopyFS(ws, os.DirFS(filepath.Join(stdlib, "email"))); err != nil {
		log.Fatal(err)
	}
	// A marker so that langhost roots the server here (python.yaml's
	// rootMarkers), as the raw server is.
	if err := os.WriteFile(filepath.Join(ws, "pyproject.toml"), []byte("[project]\nname = \"email-bench\"\nversion = \"0\"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	return ws
}

// csWorkspace copies a C# solution (a git clone's directory, or a URL to
// clone) into dir, checks out commit (default: HEAD), and restores it with
// dotnet restore, which asks the machine's NuGet sources. It returns the
// copy and the commit.
func csWorkspace(dir, src, commit string) (ws, at string) {
	ws = filepath.Join(dir, "csharp")
	if commit == "" {
		commit = "HEAD"
	}
	// A copy restored by an earlier run (-workdir) is reused at the same
	// commit; the marker is written only once it has been restored.
	marker := filepath.Join(dir, "csharp.restored")
	reuse := false
	if b, err := os.ReadFile(marker); err == nil {
		at = strings.TrimSpace(output(ws, "git", "rev-parse", commit+"^{commit}"))
		reuse = strings.TrimSpace(string(b)) == at
		if !reuse {
			log.Fatalf("%s holds a copy at %s, not %s: remove it", ws, b, at)
		}
	} else {
		run("", "git", "clone", "--quiet", "--no-checkout", src, ws)
		at = strings.TrimSpace(output(ws, "git", "rev-parse", commit+"^{commit}"))
		checkout(ws, at)
	}
	// The solution at the root, or in a directory below it (Src/); the
	// workspace is its directory.
	var solution string
	for _, pat := range []string{"*.sln", "*.slnx", "*/*.sln", "*/*.slnx"} {
		if m, _ := filepath.Glob(filepath.Join(ws, pat)); len(m) > 0 && solution == "" {
			solution = m[0]
		}
	}
	if solution == "" {
		log.Fatalf("%s: no .sln or .slnx at the root or one directory below", src)
	}
	ws = filepath.Dir(solution)
	if reuse {
		log.Printf("csharp-ls: reusing %s, restored by an earlier run", ws)
		return ws, at
	}
	log.Printf("csharp-ls: dotnet restore %s", filepath.Base(solution))
	start := time.Now()
	// A project whose packages the machine's sources lack fails to
	// restore; the servers load the solution all the same, and the report
	// says so.
	cmd := exec.Command("dotnet", "restore", solution)
	cmd.Dir, cmd.Stdout, cmd.Stderr = ws, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Printf("dotnet restore failed for some projects (%v): see the log\n\n", err)
	}
	log.Printf("csharp-ls: restored in %s", time.Since(start).Round(time.Second))
	if err := os.WriteFile(marker, []byte(at+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	return ws, at
}

// checkout writes the files of commit into the clone at ws. A mirror may
// lack the blobs of large files (nuget.exe, a test's large.json), which
// git checkout refuses: those are left out and counted.
func checkout(ws, commit string) {
	type entry struct{ mode, sha, path string }
	var entries []entry
	for rec := range strings.SplitSeq(output(ws, "git", "ls-tree", "-r", "-z", commit), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
			entries = append(entries, entry{f[0], f[2], path})
		}
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir = ws
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.sha + "\n")
	}
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("git cat-file: %v", err)
	}
	missing := 0
	for _, e := range entries {
		header, rest, _ := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(header))
		if len(f) == 2 && f[1] == "missing" {
			out, missing = rest, missing+1
			continue
		}
		if len(f) != 3 {
			log.Fatalf("git cat-file: unexpected %q", header)
		}
		size, _ := strconv.Atoi(f[2])
		body := rest[:size]
		out = rest[size+1:]
		if e.mode == "120000" { // a symlink: its target is the body
			continue
		}
		p := filepath.Join(ws, filepath.FromSlash(e.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if missing > 0 {
		log.Printf("csharp: %d of %d files have no content in the clone and were left out", missing, len(entries))
	}
}

func countLines(dir, ext string) string {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if filepath.Ext(p) == ext {
			if b, err := os.ReadFile(p); err == nil {
				n += bytes.Count(b, []byte("\n"))
			}
		}
		return nil
	})
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func run(dir, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

func output(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

// ---- statistics

func durations(s []sample) []time.Duration {
	d := make([]time.Duration, len(s))
	for i, x := range s {
		d[i] = x.d
	}
	slices.Sort(d)
	return d
}

func median(s []sample) time.Duration  { return quantile(durations(s), 0.5) }
func slowest(s []sample) time.Duration { return quantile(durations(s), 1) }
func p95(s []sample) time.Duration     { return quantile(durations(s), 0.95) }

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

func medianBytes(s []sample) int {
	b := make([]int, len(s))
	for i, x := range s {
		b[i] = x.bytes
	}
	slices.Sort(b)
	if len(b) == 0 {
		return 0
	}
	return b[len(b)/2]
}

func refRange(s []sample) string {
	if len(s) == 0 {
		return "no"
	}
	lo, hi := s[0].refs, s[0].refs
	for _, x := range s {
		lo, hi = min(lo, x.refs), max(hi, x.refs)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

func ms(d time.Duration) string {
	if d < 0 {
		return "(same server)"
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func kib(b int) string { return fmt.Sprintf("%.1f KiB", float64(b)/1024) }
