// Package mcpserver serves langhost's tool registry over the Model Context
// Protocol with the official Go SDK: the tools of the languages the
// workspace uses (or those a profile or filter selects) become MCP tools
// named with "_" (go_find_references), every language's composed coding
// prompt an MCP prompt, and the prerequisites document and language
// summaries MCP resources. Edit previews get an id that langhost_apply
// writes, and the served tools follow the spec files while serving
// (Server.Watch).
package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressInterval is how often a running tool call reports
// "running for Ns" when the client asked for progress.
const DefaultProgressInterval = 5 * time.Second

// Options select which tools are served and how calls behave. Filters
// combine with AND.
type Options struct {
	// Languages, if set, keeps only tools of these language ids. If not,
	// the languages detected in the workspace are served (every language
	// with profile all or when Tools is set).
	Languages []string
	// Profile selects tools by what they do: readonly, edit, all, or a
	// name from Profiles. Empty is every tool of the served languages.
	Profile string
	// Profiles are user-defined profiles: name -> tool id globs or
	// "category:NAME" entries (config mcp.profiles).
	Profiles map[string][]string
	// Detect bounds the walk that detects the workspace's languages.
	Detect detect.Limits
	// Categories, if set, keeps only tools having one of these categories
	// (case-insensitive).
	Categories []string
	// Tools, if set, keeps only tools whose id or MCP name matches one of
	// these path.Match globs ("go.build", "go.*", "go_*").
	Tools []string
	// Writes says whose approval a write needs: WritesClient (the
	// default) or WritesAllow.
	Writes string
	// Allow lists ids or globs of tools that may write whatever Writes
	// says; they run as confirmed. The host config's tools.allow is added
	// to it. Tools needing confirmation that may not write are hidden.
	Allow []string
	// OutputSchemas includes each tool's output schema in tools/list. Off
	// by default: they are most of the listing's size, and results carry
	// structuredContent either way.
	OutputSchemas bool
	// ProgressInterval is the heartbeat period of progress notifications
	// (DefaultProgressInterval if 0).
	ProgressInterval time.Duration
	// PreviewTTL and MaxPreviews bound the stored edit previews
	// (DefaultPreviewTTL, DefaultMaxPreviews if 0).
	PreviewTTL  time.Duration
	MaxPreviews int
	// Logger receives server and SDK logs; the host's logger if nil. It
	// must not write to stdout when serving stdio.
	Logger hclog.Logger
	// Roles, if set, are served as prompts role-<name> (prompts_roles.go);
	// load them as `langhost roles list` does (prompts.LoadRoles).
	Roles *roles.Set
	// PromptsDir is the user's prompt directory (prompts.UserDir) for the
	// role prompts' system layer.
	PromptsDir string
	// OnCall, if set, is told of every tool call once it is answered:
	// the tool id and the failure class ("" for success).
	OnCall func(tool string, code failure.Code)
	// MaxConcurrentCalls caps the tool calls run at once, whatever the
	// sessions (DefaultMaxConcurrentCalls if 0); a call beyond it waits up
	// to CallWait (DefaultCallWait if 0), then fails as busy.
	MaxConcurrentCalls int
	CallWait           time.Duration
}

// Built-in profiles.
const (
	ProfileReadOnly = "readonly" // read-only, side-effect-free tools
	ProfileEdit     = "edit"     // readonly + semantic edit tools + langhost_apply
	ProfileAll      = "all"      // every tool of every language
)

// Who confirms a write (Options.Writes). MCP clients ask their user before
// calling a tool annotated destructive (Claude Code's permission prompt,
// Codex's approval policy), so by default that approval is the user's
// confirmation for the tools whose writes langhost can check and take
// back: those that write through a transaction, gated by diagnostics and
// recorded for undo (semantic edits, workspace.write_file). A tool that
// writes in place (gofmt -w, go mod tidy) still needs Allow.
const (
	WritesClient = "client" // the client's approval confirms transactional writes
	WritesAllow  = "allow"  // only the tools in Allow (or tools.allow) write
)

// server is one generation of the served state: a host and the tools
// selected from it. The handlers of call.go and content.go run on it.
type server struct {
	h        *host.Host
	opts     Options
	log      hclog.Logger
	tools    []*registry.Tool // served, sorted by id
	interval time.Duration
	langs    []string // the served languages; nil means every one
	detected []detect.Language
}

// Server is a running MCP server whose tool set can be replaced (Reload).
type Server struct {
	mcp      *mcp.Server
	opts     Options
	log      hclog.Logger
	previews *previews
	load     Loader
	good     *lastGood

	reloadMu sync.Mutex // serialises reloads and enables

	// enabled are the languages langhost_enable_language added; they
	// stay served across reloads.
	enabledMu sync.Mutex
	enabled   []string
	genMu     sync.RWMutex
	gen       *generation

	// ctx lives as long as the server: Close cancels it, which ends the
	// warms (prewarm.go) that are still starting plugins.
	ctx     context.Context
	cancel  context.CancelFunc
	prewarm atomic.Bool
	warmMu  sync.Mutex // orders warming.Go after cancel against Close
	warming sync.WaitGroup
	// listed is closed once a first tools/list is answered: the first
	// warm waits for it (Prewarm).
	listed       chan struct{}
	listedOnce   sync.Once
	prewarmDelay time.Duration // at most this long
}

// generation is the state calls run on; calls counts the calls in
// flight so that a replaced generation's host is closed after them.
type generation struct {
	*server
	byID  map[string]*registry.Tool
	defs  map[string]*mcp.Tool // by MCP name
	names *toolname.Table
	calls sync.WaitGroup
}

// New builds the MCP server for h. It fails with failure.NotFound for an
// unknown language or profile and failure.InvalidInput for a bad glob or
// two tools with the same MCP name; an empty selection is logged, not an
// error.
func New(h *host.Host, opts Options) (*mcp.Server, error) {
	s, err := newServer(h, opts, nil, nil)
	if err != nil {
		return nil, err
	}
	return s.mcp, nil
}

// Loader builds a fresh host, passing wrap as host.Options.SpecSources.
type Loader func(ctx context.Context, wrap func([]spec.Source) []spec.Source) (*host.Host, error)

// Open loads a host with load and serves it; Reload and Watch load it
// again. A spec file that breaks later keeps its last good version. The
// caller closes the Server, which closes the host.
func Open(ctx context.Context, load Loader, opts Options) (*Server, error) {
	good := newLastGood(opts.Logger)
	h, err := load(ctx, good.wrap)
	if err != nil {
		return nil, err
	}
	s, err := newServer(h, opts, load, good)
	if err != nil {
		_ = h.Close()
		return nil, err
	}
	return s, nil
}

func newServer(h *host.Host, opts Options, load Loader, good *lastGood) (*Server, error) {
	log := opts.Logger
	if log == nil {
		log = h.Logger
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	opts.Logger = log
	if good != nil {
		good.log = log
	}
	srv := &Server{opts: opts, log: log, load: load, good: good, previews: newPreviews(opts.PreviewTTL, opts.MaxPreviews),
		listed: make(chan struct{}), prewarmDelay: defaultPrewarmDelay}
	srv.ctx, srv.cancel = context.WithCancel(context.Background())
	g, err := srv.generation(h)
	if err != nil {
		return nil, err
	}
	srv.mcp = mcp.NewServer(&mcp.Implementation{Name: "langhost", Title: "langhost", Version: host.Version},
		&mcp.ServerOptions{
			Instructions: instructions(h),
			Logger:       slogLogger(log),
			// No "logging" capability: logs go to stderr, never to the
			// client. Tools may change (Reload): say so.
			Capabilities:      &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
			CompletionHandler: srv.complete,
		})
	// Added first, so it runs innermost: a waiting call is canceled as
	// any other is (bindRequests, the HTTP post contexts).
	srv.mcp.AddReceivingMiddleware(newCallLimit(opts.MaxConcurrentCalls, opts.CallWait).middleware, srv.noteListed, srv.explainUnknown)
	srv.swap(g)
	return srv, nil
}

// MCP returns the SDK server to serve (ServeStdio, ServeHTTP).
func (srv *Server) MCP() *mcp.Server { return srv.mcp }

// Host returns the host of the tools being served.
func (srv *Server) Host() *host.Host {
	srv.genMu.RLock()
	defer srv.genMu.RUnlock()
	return srv.gen.h
}

// Summary says what is served: the number of tools, the languages (nil
// for every loaded one) and, when the languages were detected, why.
func (srv *Server) Summary() (tools int, languages []string, detected []detect.Language) {
	srv.genMu.RLock()
	defer srv.genMu.RUnlock()
	if srv.gen == nil {
		return 0, nil, nil
	}
	return len(srv.gen.defs), srv.gen.langs, srv.gen.detected
}

// Close closes the current host (its plugins) once its calls are done,
// and stops the warms in progress.
func (srv *Server) Close() error {
	srv.warmMu.Lock()
	srv.cancel()
	srv.warmMu.Unlock()
	defer srv.warming.Wait() // they end once the host's plugins are closed
	srv.genMu.Lock()
	g := srv.gen
	srv.gen = nil
	srv.genMu.Unlock()
	if g == nil {
		return nil
	}
	g.calls.Wait()
	return g.h.Close()
}

// trusted reports whether the user trusts h's workspace; a host built
// without a config (tests) is not.
func trusted(h *host.Host) bool { return h.Config != nil && h.Config.Trust.Trusted }

// generation selects the tools of h and describes them to MCP.
func (srv *Server) generation(h *host.Host) (*generation, error) {
	s := &server{h: h, opts: srv.opts, log: srv.log, interval: srv.opts.ProgressInterval}
	if s.interval <= 0 {
		s.interval = DefaultProgressInterval
	}
	tools, langs, detected, err := selectTools(h, srv.opts, srv.enabledLanguages(), srv.log)
	if err != nil {
		return nil, err
	}
	s.tools, s.langs, s.detected = tools, langs, detected
	ids := make([]string, 0, len(tools)+1)
	for _, t := range tools {
		ids = append(ids, t.ID)
	}
	if serveApply(srv.opts, tools) {
		ids = append(ids, ApplyToolID)
	}
	names, err := toolname.NewTable(ids)
	if err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "tools", Message: err.Error()}
	}
	g := &generation{server: s, byID: map[string]*registry.Tool{}, defs: map[string]*mcp.Tool{}, names: names}
	for _, t := range tools {
		mt, err := mcpTool(t, srv.opts.OutputSchemas, trusted(h))
		if err != nil {
			srv.log.Error("tool not served", "tool", t.ID, "error", err)
			continue
		}
		g.byID[t.ID], g.defs[mt.Name] = t, mt
	}
	if len(ids) > len(tools) {
		g.defs[toolname.Name(ApplyToolID)] = applyTool()
	}
	if serveEnable(srv.opts) {
		if choices := g.notServed(); len(choices) > 0 {
			g.defs[toolname.Name(EnableToolID)] = enableTool(choices)
		}
	}
	if len(g.defs) == 0 {
		srv.log.Warn("no tools match the filters; serving none", "languages", srv.opts.Languages,
			"profile", srv.opts.Profile, "categories", srv.opts.Categories, "tools", srv.opts.Tools)
	}
	return g, nil
}

// swap makes g the served generation: tools whose definition changed
// are (re)added, tools that are gone removed, so that clients get one
// notifications/tools/list_changed for a change and none for a reload
// that changed nothing. The replaced generation's host is closed once
// its calls end.
func (srv *Server) swap(g *generation) (changed bool) {
	srv.genMu.Lock()
	old := srv.gen
	srv.gen = g
	srv.genMu.Unlock()

	var gone []string
	if old != nil {
		for name := range old.defs {
			if _, ok := g.defs[name]; !ok {
				gone = append(gone, name)
			}
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		srv.mcp.RemoveTools(gone...)
		changed = true
	}
	for _, name := range slices.Sorted(maps.Keys(g.defs)) {
		def := g.defs[name]
		if old != nil && sameTool(old.defs[name], def) {
			continue
		}
		changed = true
		switch name {
		case toolname.Name(ApplyToolID):
			srv.mcp.AddTool(def, srv.applyHandler())
			continue
		case toolname.Name(EnableToolID):
			srv.mcp.AddTool(def, srv.enableHandler())
			continue
		}
		id, _ := g.names.ID(name)
		srv.mcp.AddTool(def, srv.dispatch(id))
	}
	srv.setPromptsAndResources(old, g)
	if old != nil && old.h != g.h { // an enabled language keeps the host
		go func() {
			old.calls.Wait()
			if err := old.h.Close(); err != nil {
				srv.log.Warn("closing the replaced host", "error", err)
			}
		}()
	}
	return changed
}

// acquire returns the served generation, counting a call on it; the
// caller calls g.calls.Done. It is nil after Close.
func (srv *Server) acquire() *generation {
	srv.genMu.RLock()
	defer srv.genMu.RUnlock()
	if srv.gen != nil {
		srv.gen.calls.Add(1)
	}
	return srv.gen
}

// dispatch runs tool id on the generation served when the call arrives.
func (srv *Server) dispatch(id string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() { srv.noteCall(id, res) }()
		g := srv.acquire()
		if g == nil {
			return toolResult(id, nil, failure.New(failure.Precondition, "the server is shutting down")), nil
		}
		defer g.calls.Done()
		t := g.byID[id]
		if t == nil {
			return toolResult(id, nil, failure.New(failure.NotFound, "tool %s is no longer served (its spec changed); list the tools again", id)), nil
		}
		conf := confirmed(g.h, srv.opts, t)
		if !conf {
			// Refuse a write before anything runs; bad arguments are
			// the handler's to report.
			if input, err := decodeArguments(req.Params.Arguments); err == nil {
				if ok, field := writes(t, input); ok {
					return toolResult(id, nil, notPermitted(id, field)), nil
				}
			}
		}
		detail := ""
		if shapedByDetail(t) {
			if detail, err = takeDetail(req); err != nil {
				return toolResult(id, nil, err), nil
			}
		}
		res, err = g.handler(t, conf)(ctx, req)
		if err == nil && res != nil && !res.IsError && offersPreview(t) {
			srv.notePreview(t, req, res)
		}
		if err == nil && res != nil && detail != "" {
			shape(res, id, detail)
		}
		return res, err
	}
}

// noteCall tells Options.OnCall of a call's outcome.
func (srv *Server) noteCall(id string, res *mcp.CallToolResult) {
	if srv.opts.OnCall == nil || res == nil {
		return
	}
	var code failure.Code
	if st, ok := res.StructuredContent.(structured); ok && st.Error != nil {
		code = st.Error.Code
	} else if res.IsError {
		code = failure.Internal
	}
	srv.opts.OnCall(id, code)
}

// selectTools returns the tools served for opts, sorted by id, the
// served languages (nil for every one) and, when they were detected, why.
//
// extra are languages served besides the detected or named ones
// (langhost_enable_language).
func selectTools(h *host.Host, opts Options, extra []string, log hclog.Logger) (_ []*registry.Tool, _ []string, _ []detect.Language, _ error) {
	langs := opts.Languages
	for _, lang := range langs {
		if _, ok := h.Specs.Language(lang); ok || languageless(h, lang) {
			continue
		}
		var ids []string
		for _, f := range h.Specs.Languages {
			ids = append(ids, f.Language.ID)
		}
		e := &failure.Error{Code: failure.NotFound, Field: "language",
			Message: fmt.Sprintf("unknown language %q (loaded: %s)", lang, strings.Join(ids, ", "))}
		if c := textdist.Ranked(lang, ids, 3); len(c) > 0 {
			e.Message += fmt.Sprintf("; did you mean %s?", strings.Join(c, ", "))
			e.Details = map[string]any{"candidates": c}
		}
		return nil, nil, nil, e
	}
	switch opts.Writes {
	case "", WritesClient, WritesAllow:
	default:
		return nil, nil, nil, &failure.Error{Code: failure.InvalidInput, Field: "writes",
			Message: fmt.Sprintf("--writes %q: use %s (the client's approval confirms) or %s (only --allow'ed tools write)", opts.Writes, WritesClient, WritesAllow)}
	}
	for _, field := range []struct {
		name     string
		patterns []string
	}{{"tools", opts.Tools}, {"allow", opts.Allow}} {
		for _, p := range field.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, nil, nil, &failure.Error{Code: failure.InvalidInput, Field: field.name,
					Message: fmt.Sprintf("bad glob %q", p), Err: err}
			}
		}
	}
	keep, err := profileFilter(opts)
	if err != nil {
		return nil, nil, nil, err
	}
	var found []detect.Language
	detected := false
	// Detect unless languages or tools were named: --tools 'python.*'
	// means python's tools whatever the workspace holds.
	if len(langs) == 0 && len(opts.Tools) == 0 && opts.Profile != ProfileAll {
		res, err := detect.Detect(context.Background(), h.Workspace.Dir(), h.Specs.Languages, opts.Detect)
		if err != nil {
			return nil, nil, nil, failure.Wrap(failure.Precondition, err, "detect the workspace's languages (use --language)")
		}
		for _, l := range res.Languages {
			log.Info("language detected", "language", l.ID, "main", l.Main, "why", strings.Join(l.Reasons, "; "))
		}
		for _, l := range res.Ignored {
			log.Info("language ignored", "language", l.ID, "why", strings.Join(l.Reasons, "; "))
		}
		if res.Truncated {
			log.Info("language detection stopped at its limit", "entries", res.Entries)
		}
		// The workspace's main languages; the others (a few scripts, test
		// data) are a langhost_enable_language call away.
		langs = res.MainIDs()
		for _, l := range res.Languages {
			if l.Main {
				found = append(found, l)
			}
		}
		if len(langs) == 0 {
			log.Warn("no language detected in the workspace; serving only the workspace tools (use --language or --profile all)", "workspace", h.Workspace.Dir())
		}
		detected = true
	}
	if len(langs) > 0 || detected {
		for _, l := range extra {
			if !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
	}
	var out []*registry.Tool
	for _, t := range h.Registry.List() {
		_, ofSpec := h.Specs.Language(t.Language)
		inLangs := len(langs) == 0 && !detected || slices.Contains(langs, t.Language) ||
			detected && !ofSpec
		switch {
		case !inLangs:
		case len(opts.Categories) > 0 && !hasCategory(t, opts.Categories):
		case len(opts.Tools) > 0 && !matchAny(opts.Tools, t.ID) && !matchAny(opts.Tools, toolname.Name(t.ID)):
		case !keep(t):
		case t.RequiresConfirmation && !confirmed(h, opts, t):
		default:
			// With its schemas: the input schema alone unless the
			// listing shows output schemas (decoding those is most of
			// a first tools/list).
			lookup := h.Registry.ToolInput
			if opts.OutputSchemas {
				lookup = h.Registry.Tool
			}
			served, err := lookup(t.ID)
			if err != nil {
				return nil, nil, nil, err
			}
			out = append(out, served)
		}
	}
	if len(langs) == 0 && !detected {
		langs = nil
	}
	return out, langs, found, nil
}

// Select returns the registry tools New serves for opts, sorted by id.
func Select(h *host.Host, opts Options) ([]*registry.Tool, error) {
	tools, _, _, err := selectTools(h, opts, nil, hclog.NewNullLogger())
	return tools, err
}

// Names returns the MCP names of the tools New serves for opts at start,
// sorted: the selected tools, and langhost_apply and
// langhost_enable_language when they are served.
func Names(h *host.Host, opts Options) ([]string, error) {
	tools, langs, _, err := selectTools(h, opts, nil, hclog.NewNullLogger())
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tools)+2)
	for _, t := range tools {
		names = append(names, toolname.Name(t.ID))
	}
	if serveApply(opts, tools) {
		names = append(names, toolname.Name(ApplyToolID))
	}
	g := &generation{server: &server{h: h, langs: langs}}
	if serveEnable(opts) && len(g.notServed()) > 0 {
		names = append(names, toolname.Name(EnableToolID))
	}
	slices.Sort(names)
	return names, nil
}

// languageless reports whether lang names tools that belong to no spec
// (the workspace file tools): they are served whatever the languages.
func languageless(h *host.Host, lang string) bool {
	if _, ok := h.Specs.Language(lang); ok {
		return false
	}
	for _, t := range h.Registry.List() {
		if t.Language == lang {
			return true
		}
	}
	return false
}

func hasCategory(t *registry.Tool, want []string) bool {
	for _, c := range t.Categories {
		for _, w := range want {
			if strings.EqualFold(c, w) {
				return true
			}
		}
	}
	return false
}

// allowed reports whether a tool that needs confirmation may run: --allow
// (by id or MCP name) or the config's tools.allow names it.
func allowed(h *host.Host, opts Options, id string) bool {
	return matchAny(opts.Allow, id) || matchAny(opts.Allow, toolname.Name(id)) || h.Config.Allows(id)
}

// confirmed reports whether calls of t run confirmed: the user allowed
// it, or the client's approval stands for the user's (WritesClient) and t
// writes only through a transaction.
func confirmed(h *host.Host, opts Options, t *registry.Tool) bool {
	return allowed(h, opts, t.ID) || opts.Writes != WritesAllow && transactional(t)
}

// transactional reports whether t writes workspace files only through a
// transaction, which checks the edit's diagnostics before writing and
// records it for undo: the semantic and built-in edit tools, not a CLI
// tool.
func transactional(t *registry.Tool) bool {
	return t.Kind != registry.KindCLI && t.SideEffects == "workspace"
}

// writes reports whether a call of t with input would write files, as
// opposed to previewing the edit: apply asks a previewing tool to write,
// dry_run asks a writing tool not to.
func writes(t *registry.Tool, input map[string]any) (bool, string) {
	if t.ReadOnly || !t.RequiresConfirmation && !transactional(t) {
		return false, ""
	}
	if t.InputSchema != nil {
		if _, ok := t.InputSchema.Properties["apply"]; ok {
			return input["apply"] == true, "apply"
		}
		if _, ok := t.InputSchema.Properties["dry_run"]; ok {
			return input["dry_run"] != true, "dry_run"
		}
	}
	return true, ""
}

// notPermitted is the refusal of a write the server may not make, naming
// what lifts it.
func notPermitted(id, field string) *failure.Error {
	msg := fmt.Sprintf("%s writes files, and this server lets only the tools it is told to allow write (--writes %s, or mcp.writes in the config): "+
		"start it with --allow %s (or list %s in tools.allow of your config), or with --writes %s to let your client's approval confirm it; nothing was written",
		id, WritesAllow, id, id, WritesClient)
	if field == "dry_run" {
		msg += "; pass dry_run: true for a preview"
	}
	return &failure.Error{Code: failure.Precondition, Field: field, Message: msg}
}

// matchAny reports whether id matches one of the globs (validated by Select).
func matchAny(patterns []string, id string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

func instructions(h *host.Host) string {
	return fmt.Sprintf("langhost runs language tools (build, lint, test, format, semantic navigation) "+
		"in the workspace %s. Paths in tool inputs are relative to that root. Results carry "+
		"normalised diagnostics, parsed outputs and the exit code in structuredContent, compact by default "+
		"(detail: standard or full brings the command and the tool's whole text); a failed "+
		"call has isError set and structuredContent.error.code names the failure class. "+
		"An edit preview (rename, code_actions, format) returns preview_id: pass it to "+
		"langhost_apply to write exactly that preview. "+
		"Prompts <language>-coding give a language's workflow and conventions; prompts role-<role> "+
		"the system prompt of an agent role (planner, coder, reviewer, ...).", h.Workspace.Dir())
}
