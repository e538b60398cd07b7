package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// dialect holds what differs between language servers around start-up and
// error handling.
type dialect interface {
	// prepare runs before initialize, e.g. to register notification handlers.
	prepare(s *session)
	// afterInitialized runs after the initialized notification.
	afterInitialized(ctx context.Context, s *session) error
	// waitReady blocks until the server answers requests with real results.
	waitReady(ctx context.Context, s *session) error
	// retryable reports whether a failed request is worth retrying.
	retryable(err *lsp.ResponseError) bool
}

func newDialect(cfg Config) dialect {
	switch cfg.Dialect {
	case DialectRoslyn:
		return &roslynDialect{loaded: make(chan struct{})}
	case DialectCSharpLS:
		return &csharpLSDialect{quiet: cfg.readyQuiet(), loadEnded: make(chan struct{})}
	}
	d := &standardDialect{quiet: cfg.readyQuiet(), openFile: cfg.OpenFileOnStart}
	if cfg.ReadyMessage != "" {
		d.readyMessage = regexp.MustCompile(cfg.ReadyMessage) // validated by ParseConfig
		d.sawMessage = make(chan struct{})
	}
	return d
}

// settleTime is the default quiet time before a standard server counts as
// ready, and how long diagnostics wait for further publications.
const settleTime = 300 * time.Millisecond

// standardDialect suits servers that queue requests until they can answer
// (gopls) or that say when loading is done (pyright's log line): ready once
// the optional ready message arrived and start-up activity has settled.
type standardDialect struct {
	quiet        time.Duration
	openFile     bool
	opened       *document // the file opened on start, if any
	readyMessage *regexp.Regexp
	once         sync.Once
	sawMessage   chan struct{}
}

// onLog is called for every server log message.
func (d *standardDialect) onLog(msg string) {
	if d.readyMessage != nil && d.readyMessage.MatchString(msg) {
		d.once.Do(func() { close(d.sawMessage) })
	}
}

func (*standardDialect) prepare(*session) {}

func (d *standardDialect) afterInitialized(ctx context.Context, s *session) error {
	if !d.openFile {
		return nil
	}
	// A file of the workspace: langhost opens nothing outside it.
	path := firstSourceFile(s.e.root, s.e.cfg.LanguageIDs)
	if path == "" {
		return failure.New(failure.Precondition, "no source file (%s) under %s for %s to open", strings.Join(slices.Sorted(maps.Keys(s.e.cfg.LanguageIDs)), ", "), s.e.root, s.name)
	}
	s.e.report("opening "+filepath.Base(path), 0)
	doc, err := s.document(ctx, path)
	d.opened = doc
	return err
}

func (d *standardDialect) waitReady(ctx context.Context, s *session) error {
	if d.sawMessage != nil {
		if err := s.await(ctx, d.sawMessage); err != nil {
			return err
		}
	}
	if d.opened != nil {
		// The server has analysed the file once it publishes diagnostics
		// for it; typescript-language-server answers from a syntax-only
		// server until then.
		seq := d.opened.syncSeq
		if _, err := s.srv.WaitDiagnostics(ctx, d.opened.uri, func(e lsp.DiagnosticsEntry) bool { return e.Seq > seq }); err != nil {
			return err
		}
	}
	return s.srv.WaitIdle(ctx, d.quiet)
}

func (*standardDialect) retryable(err *lsp.ResponseError) bool {
	return err.Code == lsp.CodeContentModified
}

// roslynDialect drives Microsoft.CodeAnalysis.LanguageServer: the client
// must open a solution or projects after initialized, and requests return
// empty results until workspace/projectInitializationComplete arrives.
type roslynDialect struct {
	once   sync.Once
	loaded chan struct{}
}

func (d *roslynDialect) prepare(s *session) {
	s.srv.OnNotification("workspace/projectInitializationComplete", func(json.RawMessage) {
		d.once.Do(func() { close(d.loaded) })
	})
}

func (d *roslynDialect) afterInitialized(ctx context.Context, s *session) error {
	solutions, projects, err := dotnetProjects(s)
	if err != nil {
		return err
	}
	if len(solutions) > 0 {
		s.e.report("opening solution "+filepath.Base(solutions[0]), 0)
		return s.srv.Notify(ctx, "solution/open", map[string]any{"solution": lsp.URIFromPath(solutions[0])})
	}
	uris := make([]lsp.DocumentURI, len(projects))
	for i, p := range projects {
		uris[i] = lsp.URIFromPath(p)
	}
	s.e.report("opening projects", 0)
	return s.srv.Notify(ctx, "project/open", map[string]any{"projects": uris})
}

// dotnetProjects finds what a Roslyn-based server loads: the solutions at
// the server's root, sorted by name, else the .csproj files under it.
func dotnetProjects(s *session) (solutions, projects []string, err error) {
	root := s.e.lspRoot
	if solutions = globSorted(root, "*.sln", "*.slnx"); len(solutions) > 0 {
		return solutions, nil, nil
	}
	walkFiles(root, func(path string) bool {
		if filepath.Ext(path) == ".csproj" {
			projects = append(projects, path)
		}
		return true
	})
	if len(projects) == 0 {
		return nil, nil, failure.New(failure.Precondition, "no .sln, .slnx or .csproj file under %s for %s to open", root, s.name)
	}
	return nil, projects, nil
}

func (d *roslynDialect) waitReady(ctx context.Context, s *session) error {
	return s.await(ctx, d.loaded)
}

func (d *roslynDialect) retryable(err *lsp.ResponseError) bool {
	return err.Code == lsp.CodeRoslynNonFatal || err.Code == lsp.CodeContentModified
}

// csharpLSDialect drives csharp-ls (razzmatazz/csharp-language-server),
// the other Roslyn-based server. It is a standard LSP server that finds
// and loads the solution (else the projects) under its root by itself:
// the client opens nothing, and there is no projectInitializationComplete.
// 0.28.0 asks for the "csharp" configuration section after initialized;
// the first request makes it load under work-done progress ("Loading
// workspace folder", one report per project: "Zoo.Core (1/2)"), and it
// answers requests once it has loaded. Diagnostics are pulled when the client
// can, else pushed; the engine takes either. Its document symbols are
// Roslyn's full spans wrapped in a File symbol, and its workspace symbols
// are named by signature (declarationsOnly, trimTrivia, memberName).
type csharpLSDialect struct {
	quiet time.Duration

	// loadEnded is closed when the loading progress ("Loading workspace
	// folder ...") ends.
	loadEnded chan struct{}

	mu        sync.Mutex
	loadToken string   // the loading progress's token, once begun
	loaded    []string // projects, from progress reports "Zoo.Core (1/2)"
	total     int
	messages  []string // log messages about loading
}

// csharpLSProject is csharp-ls's progress report of one loaded project.
var csharpLSProject = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+) \((\d+)/(\d+)\)$`) })

// maxLoadMessages bounds the log messages load_status keeps.
const maxLoadMessages = 20

func (d *csharpLSDialect) onProgress(ev lsp.ProgressEvent) {
	d.trackLoad(ev)
	m := csharpLSProject().FindStringSubmatch(ev.Message)
	if ev.Kind != "report" || m == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.loaded, m[1]) {
		d.loaded = append(d.loaded, m[1])
	}
	if n, err := strconv.Atoi(m[3]); err == nil {
		d.total = n
	}
}

// trackLoad follows the first progress whose title starts with "Loading",
// under which csharp-ls loads the solution.
func (d *csharpLSDialect) trackLoad(ev lsp.ProgressEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case ev.Kind == "begin" && d.loadToken == "" && strings.HasPrefix(ev.Title, "Loading"):
		d.loadToken = ev.Token
	case ev.Kind == "end" && d.loadToken != "" && ev.Token == d.loadToken:
		select {
		case <-d.loadEnded:
		default:
			close(d.loadEnded)
		}
	}
}

func (d *csharpLSDialect) onLog(msg string) {
	if !strings.Contains(msg, "solution") && !strings.Contains(msg, "project") {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.messages) == maxLoadMessages {
		d.messages = slices.Delete(d.messages, 0, 1)
	}
	d.messages = append(d.messages, msg)
}

func (d *csharpLSDialect) loadReport() ([]string, int, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.loaded), d.total, slices.Clone(d.messages)
}

func (*csharpLSDialect) prepare(*session) {}

// answersFromDisk: csharp-ls diagnoses any file of its solution, and
// offers code actions and formatting for it, from Roslyn's workspace,
// which follows didChangeWatchedFiles; opening the file first only costs
// two notifications and a reparse per call (100 ms on a large file).
func (*csharpLSDialect) answersFromDisk() bool { return true }

// symbolCap: csharp-ls 0.28.0 answers workspace/symbol with at most 100
// symbols, saying nothing when it left some out.
func (*csharpLSDialect) symbolCap() int { return 100 }

// organizeImportsInstead: csharp-ls 0.28.0 has Roslyn's using actions, but
// none of kind source.organizeImports.
func (*csharpLSDialect) organizeImportsInstead() string {
	return `use apply_code_action with title "Remove unnecessary usings", then "Sort Usings"`
}

// afterInitialized checks that there is something to load: without a
// solution or project csharp-ls only logs, and every answer is empty.
func (*csharpLSDialect) afterInitialized(_ context.Context, s *session) error {
	_, _, err := dotnetProjects(s)
	return err
}

// waitReady makes csharp-ls load the solution, which it does on the first
// request, and waits until it has, so that start-up (bounded by
// readyTimeout) pays for loading rather than the first call. The request
// is for the symbols of a file that does not exist: answered as soon as
// the solution is loaded, where a workspace symbol query would search
// every project first, seconds more on a large solution. Then it waits for
// the loading progress to end, or without one, for activity to settle.
func (d *csharpLSDialect) waitReady(ctx context.Context, s *session) error {
	s.e.report("loading the solution", 0)
	probe := lsp.URIFromPath(filepath.Join(s.e.lspRoot, "langhost-ready-probe.cs"))
	var symbols json.RawMessage
	if err := s.srv.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: probe}}, &symbols); err != nil {
		// An error answer still means that the server is up and has
		// loaded what it could; anything else ends the start-up.
		var re *lsp.ResponseError
		if !errors.As(err, &re) {
			return err
		}
	}
	d.mu.Lock()
	loading := d.loadToken != ""
	d.mu.Unlock()
	if !loading {
		// No loading progress (a server without work-done progress):
		// wait for activity to settle instead.
		return s.srv.WaitIdle(ctx, d.quiet)
	}
	return s.await(ctx, d.loadEnded)
}

func (*csharpLSDialect) retryable(err *lsp.ResponseError) bool {
	return err.Code == lsp.CodeContentModified
}

// firstSourceFile returns the first file, in lexical walk order, whose
// extension is a key of languageIDs.
func firstSourceFile(root string, languageIDs map[string]string) string {
	var found string
	walkFiles(root, func(path string) bool {
		if _, ok := languageIDs[filepath.Ext(path)]; ok {
			found = path
			return false
		}
		return true
	})
	return found
}

// walkFiles calls visit for the regular files under root in lexical order,
// skipping hidden, dependency and build directories and symlinks, until
// visit returns false.
func walkFiles(root string, visit func(path string) bool) {
	_ = filepath.WalkDir(root, func(path string, de fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case de.IsDir():
			if path != root && workspace.SkipDir(de.Name()) {
				return filepath.SkipDir
			}
			return nil
		case !de.Type().IsRegular():
			return nil
		case !visit(path):
			return filepath.SkipAll
		}
		return nil
	})
}

func globSorted(dir string, patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		m, _ := filepath.Glob(filepath.Join(dir, p))
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// LSP symbol kinds the reshaping below looks for.
const (
	symbolKindFile      lsp.SymbolKind = 1
	symbolKindNamespace lsp.SymbolKind = 3
)

// declarationsOnly reshapes document symbols into declarations: csharp-ls
// wraps a file's symbols in one of kind File named after the file, whose
// range is the whole file (so that it would contain every position as if
// it were the declaration there), and names a namespace by its last
// segment with the full name in detail ("Core", "Zoo.Core"), which name
// paths such as Zoo.Core.Dog.Speak need.
func declarationsOnly(syms []lsp.DocumentSymbol) []lsp.DocumentSymbol {
	out := make([]lsp.DocumentSymbol, 0, len(syms))
	for _, s := range syms {
		if s.Kind == symbolKindFile {
			out = append(out, declarationsOnly(s.Children)...)
			continue
		}
		if s.Kind == symbolKindNamespace && strings.HasSuffix(s.Detail, "."+s.Name) && !strings.ContainsAny(s.Detail, " (") {
			s.Name = s.Detail
		}
		if len(s.Children) > 0 {
			s.Children = declarationsOnly(s.Children)
		}
		out = append(out, s)
	}
	return out
}

// memberName splits a workspace symbol named by its signature, as
// csharp-ls names members ("string Dog.Speak()", "void Feeder.Feed(IAnimal,
// int)", "string Animal.Name"), into the member's name and its container
// ("Speak", "Dog"), which is how other servers name them and what lookups
// by name and container compare. Other names are returned unchanged.
func memberName(name, container string) (string, string) {
	sig := name
	if strings.HasSuffix(sig, ")") {
		// The parameter list: from the '(' that the final ')' closes.
		depth := 0
		for i := len(sig) - 1; i >= 0; i-- {
			switch sig[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				sig = sig[:i]
				break
			}
		}
	}
	if sig == name && !strings.Contains(name, " ") {
		return name, container
	}
	// The return type ends at the last space outside <...> and (...).
	depth := 0
	for i := len(sig) - 1; i >= 0; i-- {
		switch sig[i] {
		case '>', ')':
			depth++
		case '<', '(':
			depth--
		case ' ':
			if depth == 0 {
				sig = sig[i+1:]
				i = 0
			}
		}
	}
	if sig == "" || strings.HasPrefix(sig, "(") {
		return name, container // "(*T).M" and the like are left to baseName
	}
	// The container is what precedes the last dot outside <...>.
	depth = 0
	for i := len(sig) - 1; i > 0; i-- {
		switch sig[i] {
		case '>':
			depth++
		case '<':
			depth--
		case '.':
			if depth == 0 {
				if i == len(sig)-1 {
					return name, container // "a.(b)": no member name to split off
				}
				if container == "" {
					container = sig[:i]
				}
				return sig[i+1:], container
			}
		}
	}
	return sig, container
}

// trimTrivia narrows each declaration's range to the declaration itself.
// csharp-ls sends Roslyn's full spans: from the end of the previous
// declaration (blank lines, indentation, comments) to the start of the
// next line, which would make edits that cut, indent or insert next to a
// declaration cut from and indent to the wrong column.
func trimTrivia(m *lsp.Mapper, syms []lsp.DocumentSymbol) {
	text := m.Content()
	for i := range syms {
		s := &syms[i]
		trimTrivia(m, s.Children)
		start, err1 := m.Offset(s.Range.Start)
		end, err2 := m.Offset(s.Range.End)
		sel, err3 := m.Offset(s.SelectionRange.Start)
		selEnd, err4 := m.Offset(s.SelectionRange.End)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || start > sel || end < selEnd || end > len(text) {
			continue
		}
		for start < sel {
			switch {
			case isSpace(text[start]):
				start++
				continue
			case bytes.HasPrefix(text[start:sel], []byte("//")):
				if nl := bytes.IndexByte(text[start:sel], '\n'); nl >= 0 {
					start += nl + 1
					continue
				}
			case bytes.HasPrefix(text[start:sel], []byte("/*")):
				if close := bytes.Index(text[start:sel], []byte("*/")); close >= 0 {
					start += close + 2
					continue
				}
			}
			break
		}
		for end > selEnd && isSpace(text[end-1]) {
			end--
		}
		s.Range.Start, s.Range.End = m.PositionAt(start), m.PositionAt(end)
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }
