package difftest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/semantic"
)

// Language is what the harness needs to know of one language: the
// language server langhost runs for it (as languages/*.yaml names it), the
// extensions of its source files and how the bare server says it is ready.
type Language struct {
	ID    string   // langhost's language id: the tool prefix
	Argv  []string // the bare server's command
	Exts  map[string]string
	Ready *regexp.Regexp // a log line saying the program is loaded; nil when none
	// SymbolCap is the count at which the server cuts a workspace/symbol
	// answer without saying so (0: none known).
	SymbolCap int
}

// Languages are the languages with a semantic server on this machine's
// pinned tools, keyed by id.
var Languages = map[string]Language{
	"go":         {ID: "go", Argv: []string{"gopls"}, Exts: map[string]string{".go": "go"}, SymbolCap: 100},
	"csharp":     {ID: "csharp", Argv: []string{"csharp-ls"}, Exts: map[string]string{".cs": "csharp"}, SymbolCap: 100},
	"python":     {ID: "python", Argv: []string{"pyright-langserver", "--stdio"}, Exts: map[string]string{".py": "python"}, Ready: regexp.MustCompile(`Found \d+ source files?|No source files found`)},
	"typescript": {ID: "typescript", Argv: []string{"typescript-language-server", "--stdio"}, Exts: map[string]string{".ts": "typescript", ".tsx": "typescriptreact"}},
	"c":          {ID: "c", Argv: []string{"clangd"}, Exts: map[string]string{".c": "c", ".h": "c"}},
}

// serverConf is what the shipped spec (languages/<id>.yaml) configures
// for a server beyond its command: the bare server gets the same, so that
// a setting langhost chooses (gopls's symbolScope: workspace) is not
// reported as a difference.
type serverConf struct {
	Command               string         `yaml:"command"`
	Settings              map[string]any `yaml:"settings"`
	InitializationOptions map[string]any `yaml:"initializationOptions"`
}

// shippedServer is the configuration of lang's server in the shipped
// spec: the server whose command is lang.Argv[0].
func shippedServer(lang Language) (serverConf, error) {
	data, err := languages.FS.ReadFile(lang.ID + ".yaml")
	if err != nil {
		return serverConf{}, fmt.Errorf("the shipped spec of %s: %w", lang.ID, err)
	}
	var spec struct {
		Servers map[string]serverConf `yaml:"servers"`
	}
	if err := yaml.Unmarshal(data, &spec); err != nil {
		return serverConf{}, fmt.Errorf("languages/%s.yaml: %w", lang.ID, err)
	}
	for _, s := range spec.Servers {
		if s.Command == lang.Argv[0] {
			return s, nil
		}
	}
	return serverConf{}, fmt.Errorf("languages/%s.yaml has no server with command %s", lang.ID, lang.Argv[0])
}

// Raw is the bare language server, driven with langhost's own LSP client
// and client capabilities: the oracle langhost's answers are held to.
type Raw struct {
	lang Language
	ws   string
	srv  *lsp.Server
	caps map[string]json.RawMessage

	mu      sync.Mutex
	opened  map[string]bool
	mappers map[string]*lsp.Mapper
}

// StartRaw starts lang's server in ws and waits until it has loaded the
// workspace: until workspace/symbol finds a declaration of probe's file
// (every server here answers it only once its index covers the file).
func StartRaw(ctx context.Context, lang Language, ws string) (*Raw, error) {
	path, err := exec.LookPath(lang.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("the %s server %s is not on PATH: %w", lang.ID, lang.Argv[0], err)
	}
	ready := make(chan struct{})
	var once sync.Once
	folders := []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(ws), Name: filepath.Base(ws)}}
	conf, err := shippedServer(lang)
	if err != nil {
		return nil, err
	}
	srv, err := lsp.Start(append([]string{path}, lang.Argv[1:]...), ws, os.Environ(), lsp.Options{
		Settings:         conf.Settings,
		WorkspaceFolders: folders,
		OnLog: func(_ int, msg string) {
			if lang.Ready != nil && lang.Ready.MatchString(msg) {
				once.Do(func() { close(ready) })
			}
		},
	})
	if err != nil {
		return nil, err
	}
	r := &Raw{lang: lang, ws: ws, srv: srv, opened: map[string]bool{}, mappers: map[string]*lsp.Mapper{}}
	init := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          lsp.URIFromPath(ws),
		"workspaceFolders": folders,
		"capabilities":     semantic.ClientCapabilities(),
	}
	if conf.InitializationOptions != nil {
		init["initializationOptions"] = conf.InitializationOptions
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := srv.Call(ctx, "initialize", init, &res); err != nil {
		r.Close()
		return nil, fmt.Errorf("initialize %s: %w", lang.Argv[0], err)
	}
	r.caps = res.Capabilities
	if err := srv.Notify(ctx, "initialized", struct{}{}); err != nil {
		r.Close()
		return nil, err
	}
	if lang.Ready != nil {
		select {
		case <-ready:
		case <-ctx.Done():
			r.Close()
			return nil, fmt.Errorf("%s never logged that it loaded %s: %w", lang.Argv[0], ws, ctx.Err())
		}
	}
	return r, nil
}

// Close stops the server and its process group.
func (r *Raw) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.srv.Close(ctx)
}

// Supports reports whether the server declared a capability.
func (r *Raw) Supports(capability string) bool {
	v, ok := r.caps[capability]
	return ok && string(v) != "false" && string(v) != "null"
}

// settleLimit bounds how long Settle waits for the server to index.
const settleLimit = 10 * time.Minute

// Settle waits until the server finds probe by name in the workspace, its
// progress ended and it has been quiet for a second: a loaded workspace.
func (r *Raw) Settle(ctx context.Context, probe Decl) error {
	// A server that never indexes the probe (a file outside its project)
	// must fail the run, not hang it; a large solution loads in minutes.
	ctx, cancel := context.WithTimeout(ctx, settleLimit)
	defer cancel()
	if err := r.open(ctx, probe.File); err != nil {
		return err
	}
	for {
		syms, err := r.WorkspaceSymbols(ctx, bareName(probe.Name))
		if err != nil {
			return err
		}
		for _, s := range syms {
			if s.File == probe.File {
				return r.srv.WaitIdle(ctx, time.Second)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s never found %s of %s by name: %w", r.lang.Argv[0], probe.Name, probe.File, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// abs is the path of a file as rel renders it: workspace-relative, or
// absolute outside the workspace.
func (r *Raw) abs(file string) string {
	if filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(r.ws, filepath.FromSlash(file))
}

func (r *Raw) uri(file string) lsp.DocumentURI { return lsp.URIFromPath(r.abs(file)) }

// Mapper reads a workspace file once: positions convert through it.
func (r *Raw) Mapper(file string) (*lsp.Mapper, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.mappers[file]; m != nil {
		return m, nil
	}
	content, err := os.ReadFile(r.abs(file))
	if err != nil {
		return nil, err
	}
	m := lsp.NewMapper(content)
	r.mappers[file] = m
	return m, nil
}

// rel is a URI as langhost renders it: workspace-relative with '/', or
// absolute outside the workspace.
func (r *Raw) rel(u lsp.DocumentURI) string {
	p, err := u.Path()
	if err != nil {
		return string(u)
	}
	if rel, err := filepath.Rel(r.ws, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// open sends didOpen once per file, as langhost does before asking about
// a file (typescript-language-server loads a project only for an open file).
func (r *Raw) open(ctx context.Context, file string) error {
	r.mu.Lock()
	done := r.opened[file]
	r.opened[file] = true
	r.mu.Unlock()
	if done {
		return nil
	}
	m, err := r.Mapper(file)
	if err != nil {
		return err
	}
	return r.srv.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{
		URI: r.uri(file), LanguageID: r.lang.Exts[filepath.Ext(file)], Version: 1, Text: string(m.Content()),
	}})
}

// Loc is a location as langhost prints it: file, 1-based line and column
// in Unicode characters.
type Loc struct {
	File         string
	Line, Column int
}

func (l Loc) String() string { return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column) }

// loc converts an LSP position the way langhost does (UTF-16 to runes).
func (r *Raw) loc(u lsp.DocumentURI, p lsp.Position) Loc {
	file := r.rel(u)
	l := Loc{File: file, Line: int(p.Line) + 1, Column: int(p.Character) + 1}
	if !strings.HasPrefix(file, "/") {
		if m, err := r.Mapper(file); err == nil {
			l.Line, l.Column = m.LineColumn(p)
		}
	}
	return l
}

func (r *Raw) position(file string, line, column int) (map[string]any, error) {
	m, err := r.Mapper(file)
	if err != nil {
		return nil, err
	}
	p, err := m.Position(line, column)
	if err != nil {
		return nil, fmt.Errorf("%s:%d:%d: %w", file, line, column, err)
	}
	return map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(file)}, "position": p}, nil
}

// call opens file and sends a position request.
func (r *Raw) call(ctx context.Context, method string, at Loc, extra map[string]any, result any) error {
	if err := r.open(ctx, at.File); err != nil {
		return err
	}
	params, err := r.position(at.File, at.Line, at.Column)
	if err != nil {
		return err
	}
	for k, v := range extra {
		params[k] = v
	}
	if err := r.srv.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s at %s: %w", method, at, err)
	}
	return nil
}

// Locations sends a request answered with locations (definition,
// references, implementation).
func (r *Raw) Locations(ctx context.Context, method string, at Loc, extra map[string]any) ([]Loc, error) {
	var raw json.RawMessage
	if err := r.call(ctx, method, at, extra, &raw); err != nil {
		return nil, err
	}
	locs, err := lsp.DecodeLocations(raw)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", method, err)
	}
	out := make([]Loc, 0, len(locs))
	for _, l := range locs {
		out = append(out, r.loc(l.URI, l.Range.Start))
	}
	return out, nil
}

// Symbol is a workspace/symbol result.
type Symbol struct {
	Name string
	Kind lsp.SymbolKind
	Loc
}

// WorkspaceSymbols sends workspace/symbol.
func (r *Raw) WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error) {
	var syms []lsp.SymbolInformation
	if err := r.srv.Call(ctx, "workspace/symbol", map[string]any{"query": query}, &syms); err != nil {
		return nil, fmt.Errorf("workspace/symbol %q: %w", query, err)
	}
	out := make([]Symbol, 0, len(syms))
	for _, s := range syms {
		sym := Symbol{Name: s.Name, Kind: s.Kind, Loc: Loc{File: r.rel(s.Location.URI)}}
		if s.Location.Range != nil {
			sym.Loc = r.loc(s.Location.URI, s.Location.Range.Start)
		}
		out = append(out, sym)
	}
	return out, nil
}

// DocumentSymbols sends textDocument/documentSymbol for file.
func (r *Raw) DocumentSymbols(ctx context.Context, file string) ([]lsp.DocumentSymbol, error) {
	if err := r.open(ctx, file); err != nil {
		return nil, err
	}
	var raw json.RawMessage
	params := map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(file)}}
	if err := r.srv.Call(ctx, "textDocument/documentSymbol", params, &raw); err != nil {
		return nil, fmt.Errorf("documentSymbol %s: %w", file, err)
	}
	return lsp.DecodeDocumentSymbols(raw)
}

// Hierarchy sends a prepare request and then method for the first item.
// It returns nil items when the prepare request found nothing.
func (r *Raw) Hierarchy(ctx context.Context, prepare, method string, at Loc) (root *lsp.HierarchyItem, out []json.RawMessage, err error) {
	var items []lsp.HierarchyItem
	if err := r.call(ctx, prepare, at, nil, &items); err != nil {
		return nil, nil, err
	}
	if len(items) == 0 {
		return nil, nil, nil
	}
	if err := r.srv.Call(ctx, method, map[string]any{"item": items[0]}, &out); err != nil {
		return nil, nil, fmt.Errorf("%s at %s: %w", method, at, err)
	}
	return &items[0], out, nil
}

// Diagnostics returns the diagnostics of file: pulled when the server
// supports textDocument/diagnostic, else the first publication after
// opening it.
func (r *Raw) Diagnostics(ctx context.Context, file string) ([]lsp.Diagnostic, error) {
	if err := r.open(ctx, file); err != nil {
		return nil, err
	}
	if r.Supports("diagnosticProvider") {
		var rep lsp.DocumentDiagnosticReport
		params := map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: r.uri(file)}}
		if err := r.srv.Call(ctx, "textDocument/diagnostic", params, &rep); err != nil {
			return nil, fmt.Errorf("textDocument/diagnostic %s: %w", file, err)
		}
		return rep.Items, nil
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	e, err := r.srv.WaitDiagnostics(wctx, r.uri(file), func(lsp.DiagnosticsEntry) bool { return true })
	if err != nil {
		return nil, fmt.Errorf("no diagnostics published for %s: %w", file, err)
	}
	return e.Diagnostics, nil
}

// UniqueDiagnostics drops the exact repeats of a diagnostic (same range,
// severity, code, source and message), which langhost lists once
// (docs/output.md): Roslyn reports CS0518 twice on one span.
func UniqueDiagnostics(ds []lsp.Diagnostic) []lsp.Diagnostic {
	seen := map[string]bool{}
	var out []lsp.Diagnostic
	for _, d := range ds {
		key := fmt.Sprintf("%v %d %s %q %q", d.Range, d.Severity, d.CodeString(), d.Source, d.Message)
		if !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out
}
