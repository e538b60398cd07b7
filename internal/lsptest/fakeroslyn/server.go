package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/langhost/langhost/plugins/dotnet"
)

// server is the fake Roslyn language server. All state is owned by the
// serve loop goroutine; timers and the reader feed it through events.
type server struct {
	cfg    *config
	out    *writer
	stderr io.Writer
	log    io.Writer // extension log file, or io.Discard
	events chan func()

	initializeSeen bool
	initialized    bool
	shutdown       bool
	clientCaps     clientCapabilities

	nextID  int
	pending map[int]*serverRequest
	replies []ClientReply
	config  map[string]json.RawMessage

	opened       *OpenedWorkspace
	loadState    string // "none", "loading", "ready"
	progress     string // work-done token once the client accepted it
	progressWait bool   // load started before the token was accepted
	progressOn   bool
	idx          *index
	problems     []string

	requests  int // counted for FAKEROSLYN_EXIT_AFTER
	navigated int // counted for FAKEROSLYN_FAIL_30099
	failed    int

	root        string     // the client's rootUri, as a path
	pullDiags   bool       // the client can pull diagnostics
	held        []*message // csharp-ls: requests waiting for the solution
	replay      []*message // held requests to handle now that it loaded
	loadedCount int        // times loading finished
}

type serverRequest struct {
	method string
	timer  *time.Timer
	onOK   func(result json.RawMessage)
}

// ClientReply records how the client answered a server->client request.
type ClientReply struct {
	Method  string `json:"method"`
	Outcome string `json:"outcome"` // "ok", "error", "no reply"
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// OpenedWorkspace is what solution/open or project/open named.
type OpenedWorkspace struct {
	Solution string   `json:"solution,omitempty"`
	Projects []string `json:"projects,omitempty"`
}

type clientCapabilities struct {
	watchedFilesDynamic bool
	workDoneProgress    bool
	hierarchicalSymbols bool
	codeActionResolve   bool
}

func newServer(cfg *config, stdout, stderr io.Writer) (*server, error) {
	s := &server{
		cfg: cfg, out: &writer{w: stdout}, stderr: stderr, log: io.Discard,
		events: make(chan func(), 64), pending: map[int]*serverRequest{},
		config: map[string]json.RawMessage{}, loadState: "none", idx: newIndex(),
	}
	var logs []io.Writer
	if cfg.logDir != "" {
		if err := os.MkdirAll(cfg.logDir, 0o755); err != nil {
			return nil, fmt.Errorf("--extensionLogDirectory: %w", err)
		}
		f, err := os.Create(filepath.Join(cfg.logDir, "fakeroslyn.log"))
		if err != nil {
			return nil, fmt.Errorf("--extensionLogDirectory: %w", err)
		}
		logs = append(logs, f)
	}
	if cfg.logFile != "" {
		// Appended to: a test may start several servers in turn.
		f, err := os.OpenFile(cfg.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("FAKEROSLYN_LOG: %w", err)
		}
		logs = append(logs, f)
	}
	if len(logs) > 0 {
		s.log = io.MultiWriter(logs...)
	}
	return s, nil
}

func (s *server) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintf(s.log, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), line)
	if s.cfg.logLevel != "None" && s.cfg.logLevel != "Error" && s.cfg.logLevel != "Critical" {
		fmt.Fprintf(s.stderr, "[fakeroslyn] %s\n", line)
	}
}

// after runs f on the serve loop once d has passed.
func (s *server) after(d time.Duration, f func()) *time.Timer {
	return time.AfterFunc(d, func() { s.events <- f })
}

type readResult struct {
	msg *message
	err error
}

// serve runs until exit, stdin EOF or FAKEROSLYN_EXIT_AFTER; it returns
// the process exit code.
func (s *server) serve(stdin io.Reader) int {
	msgs := make(chan readResult)
	go func() {
		r := bufio.NewReader(stdin)
		for {
			m, err := readMessage(r)
			msgs <- readResult{m, err}
			if err != nil {
				return
			}
		}
	}()
	s.logf("Language server started (fake %s), logLevel=%s", s.cfg.flavor, s.cfg.logLevel)
	for {
		for len(s.replay) > 0 {
			m := s.replay[0]
			s.replay = s.replay[1:]
			if code, exit := s.handle(m); exit {
				return code
			}
		}
		select {
		case f := <-s.events:
			f()
		case rr := <-msgs:
			if rr.err == io.EOF {
				if s.shutdown {
					return 0
				}
				s.logf("stdin closed before shutdown; exiting")
				return 1
			}
			if rr.err != nil {
				s.logf("protocol error: %v", rr.err)
				return 1
			}
			if code, exit := s.handle(rr.msg); exit {
				return code
			}
		}
	}
}

// handle processes one message; exit is true when the process must end.
func (s *server) handle(m *message) (code int, exit bool) {
	switch {
	case m.isRequest():
		if s.cfg.neverAnswer[m.Method] {
			s.logf("request %s: never answered (FAKEROSLYN_NEVER_ANSWER)", m.Method)
			return 0, false
		}
		if s.holds(m) {
			s.logf("request %s held until the solution has loaded", m.Method)
			s.held = append(s.held, m)
			return 0, false
		}
		s.logf("request %s (load %s)", m.Method, s.loadState)
		if m.Method == "workspace/symbol" && s.malformed() {
			// Linger, deaf to stdin's EOF, until killed.
			time.Sleep(time.Hour)
		}
		if m.Method != "fakeroslyn/state" {
			s.requests++
			if s.cfg.exitAfter >= 0 && s.requests > s.cfg.exitAfter {
				fmt.Fprintf(s.stderr, "[fakeroslyn] FAKEROSLYN_EXIT_AFTER=%d reached at %s; exiting abruptly\n", s.cfg.exitAfter, m.Method)
				return 3, true
			}
		}
		result, rerr := s.request(m)
		if rerr != nil {
			s.check(s.out.replyError(m.ID, rerr))
		} else {
			s.check(s.out.reply(m.ID, result))
		}
	case m.isNotification():
		s.logf("notification %s (load %s)", m.Method, s.loadState)
		if m.Method == "exit" {
			if s.shutdown {
				return 0, true
			}
			return 1, true
		}
		s.notification(m)
	case m.ID != nil:
		s.clientReply(m)
	}
	return 0, false
}

// holds reports whether a request must wait for the solution: csharp-ls
// answers requests that need it once it has loaded.
func (s *server) holds(m *message) bool {
	return s.cfg.flavor == flavorCSharpLS && (navigation[m.Method] || gated[m.Method]) &&
		(s.loadState == "none" || s.loadState == "loading")
}

// malformed sends a response with a broken header, once per
// FAKEROSLYN_MALFORMED_ONCE file, and reports whether it did.
func (s *server) malformed() bool {
	if s.cfg.malformedOnce == "" {
		return false
	}
	f, err := os.OpenFile(s.cfg.malformedOnce, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	s.logf("FAKEROSLYN_MALFORMED_ONCE: answering with a broken header")
	s.check(s.out.raw("Content-Length: lots\r\n\r\n{}"))
	return true
}

func (s *server) check(err error) {
	if err != nil {
		fmt.Fprintf(s.stderr, "[fakeroslyn] write: %v\n", err)
	}
}

// navigation methods are gated on project load and subject to -30099.
var navigation = map[string]bool{
	"textDocument/definition": true, "textDocument/references": true, "textDocument/implementation": true,
	"textDocument/documentSymbol": true, "workspace/symbol": true, "textDocument/hover": true,
	"textDocument/prepareTypeHierarchy": true, "typeHierarchy/supertypes": true, "typeHierarchy/subtypes": true,
	"textDocument/prepareCallHierarchy": true, "callHierarchy/incomingCalls": true, "callHierarchy/outgoingCalls": true,
}

// gated methods answer empty results until the workspace is ready.
var gated = map[string]bool{
	"textDocument/prepareRename": true, "textDocument/rename": true, "textDocument/diagnostic": true,
	"workspace/diagnostic": true, "textDocument/codeAction": true,
}

func (s *server) request(m *message) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		if s.initializeSeen {
			return nil, &rpcError{Code: codeInvalidRequest, Message: "initialize may only be sent once"}
		}
		s.initializeSeen = true
		return s.initialize(m.Params)
	case "shutdown":
		s.shutdown = true
		s.logf("shutdown requested")
		return nil, nil
	case "fakeroslyn/state":
		return s.state(), nil
	}
	if !s.initializeSeen {
		return nil, &rpcError{Code: codeServerNotInitialized, Message: "the server has not been initialized"}
	}
	if s.shutdown {
		return nil, &rpcError{Code: codeInvalidRequest, Message: "the server is shutting down"}
	}
	hierarchy := strings.Contains(m.Method, "Hierarchy") || strings.HasPrefix(m.Method, "typeHierarchy/") || strings.HasPrefix(m.Method, "callHierarchy/")
	if hierarchy && !s.cfg.hierarchy {
		return nil, &rpcError{Code: codeMethodNotFound, Message: "Method not found: " + m.Method}
	}
	if navigation[m.Method] && s.cfg.flavor == flavorRoslyn {
		s.navigated++
		if s.navigated <= s.cfg.fail30099 {
			s.failed++
			s.logf("failing %s with -30099 (%d of %d)", m.Method, s.navigated, s.cfg.fail30099)
			return nil, &rpcError{Code: codeNonFatal, Message: fmt.Sprintf("Request %s failed: the workspace is being updated; try again (non-fatal)", m.Method)}
		}
	}
	if (navigation[m.Method] || gated[m.Method]) && s.loadState != "ready" {
		s.logf("%s before project initialization completed: empty result", m.Method)
		return emptyResult(m.Method), nil
	}
	if m.Method == "textDocument/rename" && s.cfg.renameEdit != "" {
		edit, err := os.ReadFile(s.cfg.renameEdit)
		if err != nil {
			return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
		}
		return json.RawMessage(edit), nil
	}
	h, ok := handlers[m.Method]
	if !ok {
		return nil, &rpcError{Code: codeMethodNotFound, Message: "Method not found: " + m.Method}
	}
	return h(s, m.Params)
}

// emptyResult is what Roslyn answers before its workspace has loaded.
func emptyResult(method string) any {
	switch method {
	case "textDocument/hover", "textDocument/prepareRename", "textDocument/rename",
		"textDocument/prepareTypeHierarchy", "textDocument/prepareCallHierarchy":
		return nil
	case "textDocument/diagnostic":
		return map[string]any{"kind": "full", "resultId": "empty", "items": []any{}}
	case "workspace/diagnostic":
		return map[string]any{"items": []any{}}
	}
	return []any{}
}

func (s *server) initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProcessID    *int   `json:"processId"`
		RootURI      string `json:"rootUri"`
		Capabilities struct {
			Workspace struct {
				DidChangeWatchedFiles struct {
					DynamicRegistration bool `json:"dynamicRegistration"`
				} `json:"didChangeWatchedFiles"`
			} `json:"workspace"`
			TextDocument struct {
				DocumentSymbol struct {
					HierarchicalDocumentSymbolSupport bool `json:"hierarchicalDocumentSymbolSupport"`
				} `json:"documentSymbol"`
				CodeAction struct {
					ResolveSupport struct {
						Properties []string `json:"properties"`
					} `json:"resolveSupport"`
				} `json:"codeAction"`
				Diagnostic json.RawMessage `json:"diagnostic"`
			} `json:"textDocument"`
			Window struct {
				WorkDoneProgress bool `json:"workDoneProgress"`
			} `json:"window"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "initialize: " + err.Error()}
	}
	c := p.Capabilities
	if root, err := fileURIPath(p.RootURI); err == nil {
		s.root = root
	}
	s.pullDiags = len(c.TextDocument.Diagnostic) > 0 && string(c.TextDocument.Diagnostic) != "null"
	s.clientCaps = clientCapabilities{
		watchedFilesDynamic: c.Workspace.DidChangeWatchedFiles.DynamicRegistration,
		workDoneProgress:    c.Window.WorkDoneProgress,
		hierarchicalSymbols: c.TextDocument.DocumentSymbol.HierarchicalDocumentSymbolSupport,
	}
	for _, prop := range c.TextDocument.CodeAction.ResolveSupport.Properties {
		if prop == "edit" {
			s.clientCaps.codeActionResolve = true
		}
	}
	s.logf("initialize: client capabilities %+v", s.clientCaps)
	caps := map[string]any{
		"positionEncoding": "utf-16",
		"textDocumentSync": map[string]any{
			"openClose": true, "change": 2, "save": map[string]any{"includeText": false},
		},
		"definitionProvider":      true,
		"referencesProvider":      true,
		"implementationProvider":  true,
		"documentSymbolProvider":  true,
		"workspaceSymbolProvider": true,
		"hoverProvider":           true,
		"renameProvider":          map[string]any{"prepareProvider": true},
		"codeActionProvider": map[string]any{
			"codeActionKinds": []string{"quickfix", "refactor", "source.organizeImports"},
			"resolveProvider": true,
		},
		"documentFormattingProvider": true,
		"diagnosticProvider": map[string]any{
			"interFileDependencies": true, "workspaceDiagnostics": true,
		},
	}
	if s.cfg.hierarchy {
		caps["typeHierarchyProvider"] = true
		caps["callHierarchyProvider"] = true
	}
	if s.cfg.flavor == flavorCSharpLS {
		// csharp-ls pushes diagnostics to clients that cannot pull them.
		if !s.pullDiags {
			delete(caps, "diagnosticProvider")
		}
		s.check(s.out.notify("window/logMessage", map[string]any{"type": 3, "message": "csharp-ls: initializing, version " + fakeVersion}))
		return map[string]any{
			"capabilities": caps,
			"serverInfo":   map[string]any{"name": "csharp-ls", "version": fakeVersion},
		}, nil
	}
	return map[string]any{
		"capabilities": caps,
		"serverInfo":   map[string]any{"name": "fakeroslyn", "version": "5.0.0-fake"},
	}, nil
}

func (s *server) notification(m *message) {
	if !s.initializeSeen && m.Method != "exit" {
		s.logf("ignoring %s before initialize", m.Method)
		return
	}
	switch m.Method {
	case "initialized":
		s.initialized = true
		s.afterInitialized()
	case "solution/open", "project/open":
		if s.cfg.flavor == flavorCSharpLS {
			s.problem(fmt.Sprintf("csharp-ls does not know %s: it finds and loads the solution itself", m.Method))
			return
		}
		s.openNotification(m)
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave",
		"workspace/didChangeWatchedFiles":
		s.documentSync(m.Method, m.Params)
		s.pushDiagnostics(m.Method, m.Params)
	case "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration":
		// Requests are answered synchronously, so there is nothing to cancel.
	default:
		s.logf("unhandled notification %s", m.Method)
	}
}

// openNotification handles Roslyn's solution/open and project/open.
func (s *server) openNotification(m *message) {
	switch m.Method {
	case "solution/open":
		var p struct {
			Solution string `json:"solution"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || p.Solution == "" {
			s.problem("solution/open: params must be {\"solution\": \"<uri>\"}")
			return
		}
		s.open(&OpenedWorkspace{Solution: p.Solution})
	case "project/open":
		var p struct {
			Projects []string `json:"projects"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil || len(p.Projects) == 0 {
			s.problem("project/open: params must be {\"projects\": [\"<uri>\", ...]}")
			return
		}
		s.open(&OpenedWorkspace{Projects: p.Projects})
	}
}

func (s *server) problem(msg string) {
	s.problems = append(s.problems, msg)
	s.logf("%s", msg)
	s.check(s.out.notify("window/logMessage", map[string]any{"type": 1, "message": msg}))
}

// configurationSections are the settings Roslyn asks the client for.
var configurationSections = []string{
	"csharp|code_lens.dotnet_enable_references_code_lens",
	"csharp|code_lens.dotnet_enable_tests_code_lens",
	"csharp|background_analysis.dotnet_analyzer_diagnostics_scope",
	"csharp|background_analysis.dotnet_compiler_diagnostics_scope",
	"csharp|completion.dotnet_show_completion_items_from_unimported_namespaces",
	"csharp|symbol_search.dotnet_search_reference_assemblies",
	"navigation.dotnet_navigate_to_decompiled_sources",
	"projects.dotnet_enable_automatic_restore",
}

// afterInitialized sends the server->client requests Roslyn sends once the
// client has said initialized.
func (s *server) afterInitialized() {
	if s.clientCaps.watchedFilesDynamic {
		s.sendRequest("client/registerCapability", map[string]any{
			"registrations": []any{map[string]any{
				"id":     "fakeroslyn-watched-files",
				"method": "workspace/didChangeWatchedFiles",
				"registerOptions": map[string]any{"watchers": []any{
					map[string]any{"globPattern": "**/*.{cs,csx,csproj,sln,slnx,props,targets,editorconfig,globalconfig}"},
				}},
			}},
		}, nil)
	} else {
		s.problem("client does not support dynamic registration of workspace/didChangeWatchedFiles; file watching disabled")
	}
	if s.cfg.flavor == flavorCSharpLS {
		s.afterInitializedCSharpLS()
		return
	}
	var items []any
	for _, sec := range configurationSections {
		items = append(items, map[string]any{"section": sec})
	}
	s.sendRequest("workspace/configuration", map[string]any{"items": items}, func(result json.RawMessage) {
		var values []json.RawMessage
		if err := json.Unmarshal(result, &values); err != nil || len(values) != len(configurationSections) {
			s.problem(fmt.Sprintf("workspace/configuration: want an array of %d values, got %s", len(configurationSections), result))
			return
		}
		for i, v := range values {
			s.config[configurationSections[i]] = v
		}
	})
	s.createProgress()
}

// createProgress asks the client for the work-done token of loading.
func (s *server) createProgress() {
	if s.clientCaps.workDoneProgress {
		token := "fakeroslyn-load-" + strconv.Itoa(os.Getpid())
		s.sendRequest("window/workDoneProgress/create", map[string]any{"token": token}, func(json.RawMessage) {
			s.progress = token
			// The token may arrive after loading finished; progress for
			// a finished load would never end, so it is skipped.
			if s.progressWait && s.loadState == "loading" {
				s.beginProgress()
			}
		})
	}
}

// afterInitializedCSharpLS is what csharp-ls does once the client said
// initialized: it asks for its "csharp" settings (which may name the
// solution) and starts loading shortly after.
func (s *server) afterInitializedCSharpLS() {
	s.sendRequest("workspace/configuration", map[string]any{"items": []any{map[string]any{"section": "csharp"}}}, func(result json.RawMessage) {
		var values []struct {
			Solution string `json:"solution"`
		}
		if err := json.Unmarshal(result, &values); err != nil || len(values) != 1 {
			s.problem(fmt.Sprintf("workspace/configuration: want an array of 1 value, got %s", result))
			return
		}
		s.config["csharp"] = result
		if s.cfg.solution == "" {
			s.cfg.solution = values[0].Solution
		}
	})
	s.createProgress()
	s.after(100*time.Millisecond, s.findAndLoad)
}

// findAndLoad loads what csharp-ls loads: the solution named by --solution
// or the csharp.solution setting, else the solution under the root with
// the most projects, else every project under the root.
func (s *server) findAndLoad() {
	root := s.root
	if root == "" {
		root, _ = os.Getwd()
	}
	sol := s.cfg.solution
	if sol != "" && !filepath.IsAbs(sol) {
		sol = filepath.Join(root, sol)
	}
	if sol == "" {
		sol = preferredSolution(findFiles(root, ".sln", ".slnx"))
	}
	if sol != "" {
		s.open(&OpenedWorkspace{Solution: pathToURI(sol)})
		return
	}
	var uris []string
	for _, p := range findFiles(root, ".csproj") {
		uris = append(uris, pathToURI(p))
	}
	if len(uris) == 0 {
		s.loadFailed("csharp-ls: no or .csproj/.fsproj or sln files found on " + root)
		return
	}
	s.open(&OpenedWorkspace{Projects: uris})
}

// loadFailed ends a csharp-ls load that found nothing to load: requests
// held for it get empty answers.
func (s *server) loadFailed(msg string) {
	s.logf("%s", msg)
	s.check(s.out.notify("window/showMessage", map[string]any{"type": 1, "message": msg}))
	s.loadState = "failed"
	s.release()
}

// release lets the held requests through.
func (s *server) release() {
	s.replay = append(s.replay, s.held...)
	s.held = nil
}

// findFiles lists the files under root with one of the extensions, in
// lexical order, skipping node_modules as csharp-ls does.
func findFiles(root string, exts ...string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && d.Name() == "node_modules":
			return filepath.SkipDir
		case d.Type().IsRegular() && slices.Contains(exts, filepath.Ext(p)):
			out = append(out, p)
		}
		return nil
	})
	return out
}

// preferredSolution is the solution with the most projects, the first of
// equals; "" when there is none that parses.
func preferredSolution(paths []string) string {
	best, most := "", -1
	for _, p := range paths {
		sol, err := dotnet.ParseSolution(filepath.Dir(p), p)
		if err == nil && len(sol.Projects) > most {
			best, most = p, len(sol.Projects)
		}
	}
	return best
}

// sendRequest sends a server->client request and records the answer.
func (s *server) sendRequest(method string, params any, onOK func(json.RawMessage)) {
	s.nextID++
	id := s.nextID
	req := &serverRequest{method: method, onOK: onOK}
	req.timer = s.after(s.cfg.replyTimeout, func() {
		if _, ok := s.pending[id]; !ok {
			return
		}
		delete(s.pending, id)
		s.replies = append(s.replies, ClientReply{Method: method, Outcome: "no reply"})
		s.logf("client did not answer %s (id %d) within %s", method, id, s.cfg.replyTimeout)
	})
	s.pending[id] = req
	s.check(s.out.request(id, method, params))
}

func (s *server) clientReply(m *message) {
	id, err := strconv.Atoi(string(m.ID))
	req, ok := s.pending[id]
	if err != nil || !ok {
		s.logf("response with unknown id %s", m.ID)
		return
	}
	delete(s.pending, id)
	req.timer.Stop()
	if m.Error != nil {
		s.replies = append(s.replies, ClientReply{Method: req.method, Outcome: "error", Code: m.Error.Code, Message: m.Error.Message})
		s.logf("client answered %s with error %d: %s", req.method, m.Error.Code, m.Error.Message)
		return
	}
	s.replies = append(s.replies, ClientReply{Method: req.method, Outcome: "ok"})
	if req.onOK != nil {
		req.onOK(m.Result)
	}
}

// open starts loading a solution or projects.
func (s *server) open(w *OpenedWorkspace) {
	if s.loadState != "none" {
		s.problem("a solution or project is already open; ignoring the second open")
		return
	}
	s.opened = w
	var files []string
	if w.Solution != "" {
		path, err := uriToPath(w.Solution)
		if err != nil {
			s.openFailed(fmt.Sprintf("solution/open: %v", err))
			return
		}
		s.logf("[LanguageServerProjectSystem] Loading %s...", path)
		if s.cfg.flavor == flavorCSharpLS {
			s.check(s.out.notify("window/logMessage", map[string]any{"type": 3, "message": fmt.Sprintf("csharp-ls: Loading solution %q...", path)}))
		}
		sol, err := dotnet.ParseSolution(filepath.Dir(path), path)
		if err != nil {
			s.openFailed(fmt.Sprintf("solution/open: failed to load %s: %v", path, err))
			return
		}
		for _, p := range sol.Projects {
			fs, err := projectSources(filepath.Dir(path), filepath.Join(filepath.Dir(path), filepath.FromSlash(p.Path)))
			if err != nil {
				s.problem(fmt.Sprintf("[LanguageServerProjectSystem] Failed to load project %s: %v", p.Path, err))
				continue
			}
			files = append(files, fs...)
		}
	} else {
		for _, u := range w.Projects {
			path, err := uriToPath(u)
			if err != nil {
				s.problem(fmt.Sprintf("project/open: %v", err))
				continue
			}
			s.logf("[LanguageServerProjectSystem] Loading %s...", path)
			fs, err := projectSources(filepath.Dir(path), path)
			if err != nil {
				s.problem(fmt.Sprintf("[LanguageServerProjectSystem] Failed to load project %s: %v", path, err))
				continue
			}
			files = append(files, fs...)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			s.problem(fmt.Sprintf("read %s: %v", f, err))
			continue
		}
		u := pathToURI(f)
		if old, ok := s.idx.files[u]; ok && old.Version != nil {
			continue // an open document keeps the client's text
		}
		s.idx.files[u] = parseFile(f, u, string(data))
	}
	s.loadState = "loading"
	start := time.Now()
	if s.progress != "" {
		s.beginProgress()
	} else {
		s.progressWait = true
	}
	if s.cfg.loadReport > 0 {
		s.reportLoading(1)
	}
	if s.cfg.neverReady {
		s.logf("FAKEROSLYN_NEVER_READY=1: project initialization will never complete")
		return
	}
	s.after(s.cfg.loadDelay, func() {
		s.loadState = "ready"
		s.loadedCount++
		if s.progressOn {
			s.check(s.out.notify("$/progress", map[string]any{"token": s.progress, "value": map[string]any{
				"kind": "end", "message": fmt.Sprintf("Loaded %d documents", len(s.idx.files)),
			}}))
		}
		if s.cfg.flavor == flavorCSharpLS {
			// csharp-ls says so in its log, answers what it held, and
			// pushes the diagnostics of open documents.
			s.check(s.out.notify("window/logMessage", map[string]any{"type": 3, "message": "csharp-ls: Finished loading solution"}))
			s.logf("solution loaded: %d documents", len(s.idx.files))
			s.release()
			for uri, f := range s.idx.files {
				if f.Version != nil {
					s.publishDiagnostics(uri)
				}
			}
			return
		}
		s.check(s.out.notify("window/logMessage", map[string]any{"type": 3,
			"message": fmt.Sprintf("[LanguageServerProjectSystem] Completed (re)load of all projects in %s", time.Since(start).Round(time.Millisecond))}))
		s.check(s.out.notify("workspace/projectInitializationComplete", map[string]any{}))
		s.logf("project initialization complete: %d documents", len(s.idx.files))
	})
}

// reportLoading reports the n-th step of loading, and schedules the next
// one while loading lasts (FAKEROSLYN_LOAD_REPORT).
func (s *server) reportLoading(n int) {
	if s.loadState != "loading" {
		return
	}
	msg := fmt.Sprintf("Loading project %d", n)
	if s.progressOn {
		s.check(s.out.notify("$/progress", map[string]any{"token": s.progress, "value": map[string]any{"kind": "report", "message": msg}}))
	} else {
		s.check(s.out.notify("window/logMessage", map[string]any{"type": 3, "message": msg}))
	}
	s.after(s.cfg.loadReport, func() { s.reportLoading(n + 1) })
}

// openFailed reports a solution that cannot be loaded; csharp-ls then
// answers what it held, emptily.
func (s *server) openFailed(msg string) {
	if s.cfg.flavor == flavorCSharpLS {
		s.loadFailed("csharp-ls: " + msg)
		return
	}
	s.problem(msg)
}

// pushDiagnostics publishes the diagnostics of a document the client
// opened or changed, when the fake is csharp-ls, the solution has loaded
// and the client cannot pull them.
func (s *server) pushDiagnostics(method string, params json.RawMessage) {
	if method != "textDocument/didOpen" && method != "textDocument/didChange" {
		return
	}
	var p struct {
		TextDocument textDocumentIdentifier `json:"textDocument"`
	}
	if json.Unmarshal(params, &p) == nil && s.loadState == "ready" {
		s.publishDiagnostics(p.TextDocument.URI)
	}
}

func (s *server) publishDiagnostics(uri string) {
	f := s.idx.files[uri]
	if s.cfg.flavor != flavorCSharpLS || s.pullDiags || f == nil {
		return
	}
	params := map[string]any{"uri": uri, "diagnostics": missingSemicolons(f)}
	if f.Version != nil {
		params["version"] = *f.Version
	}
	s.check(s.out.notify("textDocument/publishDiagnostics", params))
}

func (s *server) beginProgress() {
	s.progressWait = false
	s.progressOn = true
	s.check(s.out.notify("$/progress", map[string]any{"token": s.progress, "value": map[string]any{
		"kind": "begin", "title": "Loading projects", "cancellable": false, "percentage": 0,
	}}))
	s.check(s.out.notify("$/progress", map[string]any{"token": s.progress, "value": map[string]any{
		"kind": "report", "message": fmt.Sprintf("Indexed %d documents", len(s.idx.files)), "percentage": 50,
	}}))
}

// projectSources returns the absolute paths of a project's compile items.
func projectSources(root, project string) ([]string, error) {
	p, err := dotnet.EvaluateProject(context.Background(), root, project, dotnet.Options{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range p.SourceFiles {
		out = append(out, filepath.Join(root, filepath.FromSlash(f)))
	}
	return out, nil
}

// State is the answer to the fakeroslyn/state request, for test assertions.
type State struct {
	Initialized   bool                       `json:"initialized"`
	LoadState     string                     `json:"loadState"`
	Opened        *OpenedWorkspace           `json:"opened,omitempty"`
	Documents     int                        `json:"documents"`
	Requests      int                        `json:"requests"`
	Failed30099   int                        `json:"failed30099"`
	ClientReplies []ClientReply              `json:"clientReplies"`
	PendingServer []string                   `json:"pendingServerRequests"`
	Configuration map[string]json.RawMessage `json:"configuration"`
	Problems      []string                   `json:"problems"`
	Progress      bool                       `json:"progress"`
	Flavor        string                     `json:"flavor"`
	Held          int                        `json:"held"` // csharp-ls: requests waiting for the solution
}

func (s *server) state() *State {
	st := &State{
		Initialized: s.initialized, LoadState: s.loadState, Opened: s.opened, Documents: len(s.idx.files),
		Requests: s.requests, Failed30099: s.failed, ClientReplies: append([]ClientReply{}, s.replies...),
		PendingServer: []string{}, Configuration: s.config, Problems: append([]string{}, s.problems...), Progress: s.progressOn,
		Flavor: s.cfg.flavor, Held: len(s.held),
	}
	for _, r := range s.pending {
		st.PendingServer = append(st.PendingServer, r.method)
	}
	sort.Strings(st.PendingServer)
	return st
}

// uriToPath converts an existing file's URI to its path.
func uriToPath(u string) (string, error) {
	p, err := fileURIPath(u)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s does not exist", p)
	}
	return p, nil
}

func fileURIPath(u string) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" {
		return "", fmt.Errorf("%q is not a file:// URI", u)
	}
	return filepath.FromSlash(parsed.Path), nil
}

func pathToURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
