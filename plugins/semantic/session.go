package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// session is one running language server.
type session struct {
	e       *Engine
	srv     *lsp.Server
	dialect dialect
	name    string // serverInfo name, else the executable's base name
	version string
	caps    map[string]json.RawMessage

	// calls is held for reading by every call using the session, so that
	// a restart for a changed project file waits for the calls in flight.
	calls sync.RWMutex

	readyMu   sync.Mutex
	ready     bool
	startedAt time.Time // when the server was started
	readyAt   time.Time // when it became ready (load_status)
	// lastSign is when the server last showed a sign of progress (a
	// $/progress notification or a log message), in Unix nanoseconds:
	// readyTimeout counts from it.
	lastSign atomic.Int64
	// loadProblem says why the server's answers miss code of the
	// workspace although it started (checkLoad), or is "". It lasts as
	// long as the session: a project file's change restarts the server.
	loadProblem string

	// docs are the documents open in the server. A call opens a document
	// only when it needs the server to see exactly langhost's copy (an
	// edit, push diagnostics) or when the server answers only about open
	// files; the document is closed when the last call holding it ends.
	// Servers keep open documents in memory and re-check them on every
	// change, so documents left open make a server grow with every query.
	docMu       sync.Mutex
	docs        map[string]*document
	lastVersion int32 // of any document: a reopened one never reuses a version

	files *fileCache // content and outlines of files read from disk
	watch *watcher   // nil when the workspace cannot be watched

	txnLocks keyedLock // serialises transactions per file (txn.go)
	// beforePersist, when set (by tests), runs after a transaction is
	// accepted and before it is written.
	beforePersist func()
}

// document is a file the server has been told about with didOpen, or a
// detached view of a file on disk that the server was not given (see view).
type document struct {
	path    string // real path inside the workspace
	uri     lsp.DocumentURI
	version int32
	info    os.FileInfo // of the content last sent, to notice changes on disk
	syncSeq uint64      // diagnostics sequence number when last synced
	mapper  *lsp.Mapper
	// users counts the calls holding the document open; pinned documents
	// (opened by a dialect at start-up, outside any call) stay open.
	users  int
	pinned bool
}

// lease records the documents one call opened, to close them when it ends.
type lease struct {
	mu   sync.Mutex
	held map[string]*document
}

type leaseKey struct{}

// withLease returns a context whose documents are released by release.
// The lease travels in the context because documents are opened deep in
// the operations, through the same calls that start-up uses.
func withLease(ctx context.Context) (context.Context, *lease) {
	l := &lease{held: map[string]*document{}}
	return context.WithValue(ctx, leaseKey{}, l), l
}

// hold records d in l and reports whether it is new to l.
func (l *lease) hold(d *document) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[d.path] == d {
		return false
	}
	l.held[d.path] = d
	return true
}

func (l *lease) holds(path string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[path] != nil
}

// stale reports whether the file on disk may differ from the content last
// sent.
func (d *document) stale(fi os.FileInfo) bool { return fileChanged(d.info, fi) }

// fileChanged reports whether a file may have changed between two stats:
// another inode (an editor that writes by rename), size or mtime.
func fileChanged(was, now os.FileInfo) bool {
	return !os.SameFile(was, now) || was.Size() != now.Size() || !was.ModTime().Equal(now.ModTime())
}

func (d *document) content() []byte { return d.mapper.Content() }

func startSession(ctx context.Context, e *Engine, argv []string) (*session, error) {
	s := &session{e: e, name: filepath.Base(argv[0]), docs: map[string]*document{},
		files: newFileCache(maxCachedFiles, maxCacheBytes), startedAt: time.Now()}
	s.dialect = newDialect(e.cfg)
	// Watching starts before the server so that no change made while it
	// loads is missed. Without it, calls still work; they only miss
	// changes to files no call has open.
	if w, err := newWatcher(e.root, e.log.Named("watch")); err != nil {
		e.log.Warn("not watching the workspace for changes made outside langhost", "error", err)
	} else {
		s.watch = w
	}
	srv, err := lsp.Start(argv, e.lspRoot, nil, lsp.Options{
		Logger:           e.log.Named(s.name),
		Settings:         e.cfg.Settings,
		WorkspaceFolders: []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(e.lspRoot), Name: filepath.Base(e.lspRoot)}},
		OnLog: func(_ int, msg string) {
			s.lastSign.Store(time.Now().UnixNano())
			if d, ok := s.dialect.(interface{ onLog(string) }); ok {
				d.onLog(msg)
			}
		},
		OnProgress: func(ev lsp.ProgressEvent) {
			s.lastSign.Store(time.Now().UnixNano())
			if d, ok := s.dialect.(interface{ onProgress(lsp.ProgressEvent) }); ok {
				d.onProgress(ev)
			}
			msg := strings.TrimSpace(ev.Title + ": " + ev.Message)
			msg = strings.Trim(msg, ": ")
			if ev.Kind == "end" && msg == "" {
				msg = "done"
			}
			e.report(msg, ev.Percentage)
		},
	})
	if err != nil {
		if s.watch != nil {
			s.watch.close()
		}
		return nil, failure.Wrap(failure.Precondition, err, "starting language server")
	}
	s.srv = srv
	s.dialect.prepare(s)

	// readyTimeout counts from the server's last sign of progress: a large
	// solution may load for minutes, reporting as it goes, while a hung
	// server falls silent. The whole start-up is bounded as well.
	timeout := e.cfg.readyTimeout()
	limit := readyLimitFactor * timeout
	lctx, cancelLimit := context.WithTimeout(ctx, limit)
	defer cancelLimit()
	s.lastSign.Store(time.Now().UnixNano())
	rctx, stopWatch := watchProgress(lctx, timeout, func() time.Time { return time.Unix(0, s.lastSign.Load()) })
	defer stopWatch()
	err = s.handshake(rctx)
	if err == nil {
		err = s.dialect.waitReady(rctx, s)
	}
	if err != nil {
		defer s.close(context.Background())
		switch {
		case s.exited() || errors.Is(err, lsp.ErrClosed):
			return nil, failure.Wrap(failure.Internal, err, "language server %s exited during start-up: %s", s.name, s.exitReason())
		case errors.Is(context.Cause(rctx), errNoProgress) && ctx.Err() == nil && lctx.Err() == nil:
			return nil, failure.Wrap(failure.Timeout, errNoProgress,
				"language server %s did not become ready: it showed no sign of progress (a progress report or log message) for %s (semantic.readyTimeout); stopped %s after its start",
				s.name, timeout, time.Since(s.startedAt).Round(100*time.Millisecond))
		case errors.Is(err, context.DeadlineExceeded) || failure.CodeOf(err) == failure.Timeout:
			if ctx.Err() == nil {
				return nil, failure.Wrap(failure.Timeout, err, "language server %s did not become ready within %s (%d × semantic.readyTimeout), although it kept showing progress", s.name, limit, readyLimitFactor)
			}
			return nil, failure.Wrap(failure.Timeout, err, "waiting for language server %s to become ready", s.name)
		case errors.Is(err, context.Canceled):
			return nil, failure.Wrap(failure.Canceled, err, "starting language server %s", s.name)
		}
		// Keep a dialect's own class, e.g. precondition_failed for a
		// workspace without a project to open.
		var fe *failure.Error
		if errors.As(err, &fe) {
			return nil, failure.Wrap(fe.Code, err, "initializing language server %s", s.name)
		}
		return nil, failure.Wrap(failure.Internal, err, "initializing language server %s", s.name)
	}
	s.loadProblem = s.checkLoad(rctx)
	s.readyMu.Lock()
	s.ready, s.readyAt = true, time.Now()
	s.readyMu.Unlock()
	return s, nil
}

func (s *session) handshake(ctx context.Context) error {
	root := s.e.lspRoot
	params := map[string]any{
		"processId":             os.Getpid(),
		"clientInfo":            map[string]string{"name": "langhost", "version": Version},
		"rootUri":               lsp.URIFromPath(root),
		"rootPath":              root,
		"workspaceFolders":      []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(root), Name: filepath.Base(root)}},
		"capabilities":          ClientCapabilities(),
		"initializationOptions": s.e.cfg.InitializationOptions,
		"trace":                 "off",
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	if err := s.srv.Call(ctx, "initialize", params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.caps = res.Capabilities
	if res.ServerInfo != nil && res.ServerInfo.Name != "" {
		s.name, s.version = res.ServerInfo.Name, res.ServerInfo.Version
	}
	if err := s.srv.Notify(ctx, "initialized", struct{}{}); err != nil {
		return err
	}
	return s.dialect.afterInitialized(ctx, s)
}

// ClientCapabilities returns, freshly built, the client capabilities the
// plugin declares in initialize: what the operations use. Benchmarks send
// them to a bare server so that it answers as it answers the plugin.
func ClientCapabilities() map[string]any {
	return map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"window":  map[string]any{"workDoneProgress": true, "showMessage": map[string]any{}},
		"workspace": map[string]any{
			"configuration":          true,
			"workspaceFolders":       true,
			"applyEdit":              true,
			"workspaceEdit":          map[string]any{"documentChanges": true, "resourceOperations": []string{}},
			"symbol":                 map[string]any{"dynamicRegistration": false, "resolveSupport": map[string]any{"properties": []string{"location.range"}}},
			"didChangeWatchedFiles":  map[string]any{"dynamicRegistration": true, "relativePatternSupport": true},
			"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			"executeCommand":         map[string]any{},
			"diagnostics":            map[string]any{"refreshSupport": false},
		},
		"textDocument": map[string]any{
			"synchronization": map[string]any{"didSave": true, "dynamicRegistration": false},
			"documentSymbol":  map[string]any{"hierarchicalDocumentSymbolSupport": true},
			"hover":           map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"definition":      map[string]any{"linkSupport": true},
			"implementation":  map[string]any{"linkSupport": true},
			"references":      map[string]any{},
			"typeHierarchy":   map[string]any{},
			"callHierarchy":   map[string]any{},
			"rename":          map[string]any{"prepareSupport": true},
			"formatting":      map[string]any{},
			"codeAction": map[string]any{
				"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{
					"", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
					"source", "source.organizeImports", "source.fixAll"}}},
				"resolveSupport": map[string]any{"properties": []string{"edit"}},
				"dataSupport":    true,
			},
			"diagnostic":         map[string]any{"relatedDocumentSupport": false},
			"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
		},
	}
}

func (s *session) serverName() string { return s.name }

// exited reports whether the server is gone: its process ended, or its
// connection did (it closed stdout or sent malformed output), which leaves
// a live process of no use. The engine replaces it on the next call.
// await waits for ch to be closed, the context to end or the server
// connection to fail.
func (s *session) await(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.srv.Done():
		return s.srv.Err()
	}
}

func (s *session) exited() bool {
	select {
	case <-s.srv.Exited():
		return true
	case <-s.srv.Done():
		return true
	default:
		return false
	}
}

// exitReason describes why the server is gone, waiting briefly for its
// process to be reaped.
func (s *session) exitReason() string {
	if err := s.srv.Err(); errors.Is(err, lsp.ErrMalformed) {
		return fmt.Sprintf("%s sent malformed output, so the connection was closed", s.name)
	}
	select {
	case <-s.srv.Exited():
		return fmt.Sprintf("%s: %v", s.name, s.srv.ExitError())
	case <-time.After(2 * time.Second):
		return fmt.Sprintf("%s closed its connection", s.name)
	}
}

func (s *session) isReady() bool {
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	return s.ready
}

func (s *session) statusMessage() string {
	if active := s.srv.ActiveProgress(); len(active) > 0 {
		return strings.TrimSpace(active[0].Title + " " + active[0].Message)
	}
	return "ready"
}

func (s *session) close(ctx context.Context) {
	if s.watch != nil {
		s.watch.close()
	}
	if err := s.srv.Close(ctx); err != nil {
		s.e.log.Warn("stopping language server", "error", err)
	}
}

// supports reports whether the server offers a capability (statically in
// its initialize result, or by dynamic registration of method).
func (s *session) supports(capability, method string) bool {
	if raw, ok := s.caps[capability]; ok {
		v := strings.TrimSpace(string(raw))
		if v != "false" && v != "null" {
			return true
		}
	}
	return method != "" && s.srv.Registered(method)
}

// require fails with failure.Unsupported when the server lacks a capability.
func (s *session) require(capability, method string) error {
	if s.supports(capability, method) {
		return nil
	}
	return s.unsupported(method)
}

func (s *session) unsupported(method string) error {
	return failure.New(failure.Unsupported, "%s does not support %s", s.name, method)
}

// call sends a request, retrying the errors a dialect calls transient and
// classifying the rest.
func (s *session) call(ctx context.Context, method string, params, result any) error {
	backoff := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := s.srv.Call(ctx, method, params, result)
		var re *lsp.ResponseError
		if !errors.As(err, &re) {
			return err
		}
		if re.Code == lsp.CodeMethodNotFound {
			return s.unsupported(method)
		}
		if attempt < 4 && s.dialect.retryable(re) {
			select {
			case <-time.After(backoff):
				backoff *= 2
				continue
			case <-ctx.Done():
				return err
			}
		}
		return failure.Wrap(failure.Internal, re, "%s %s failed", s.name, method)
	}
}

// document opens path in the server (reading it from disk) or, when the
// file changed on disk since, sends its new content. path must be the real
// path of a file inside the workspace, as ResolveRead returns it. The
// document stays open until the call whose context carries the lease ends;
// one opened outside any call (by a dialect at start-up) stays open.
func (s *session) document(ctx context.Context, path string) (*document, error) {
	fi, err := s.checkFile(path)
	if err != nil {
		return nil, err
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d, err := s.syncLocked(ctx, path, fi)
	if err != nil {
		return nil, err
	}
	if l, ok := ctx.Value(leaseKey{}).(*lease); ok {
		if l.hold(d) {
			d.users++
		}
	} else {
		d.pinned = true
	}
	return d, nil
}

// checkFile checks that path is still the real path of a regular file in
// the workspace. It is checked again here, in the one place files are read
// for the server: a file may have been replaced by a symlink since it was
// resolved.
func (s *session) checkFile(path string) (os.FileInfo, error) {
	if real, err := s.e.ws.ResolveRead("", path); err != nil {
		return nil, err
	} else if real != path {
		return nil, failure.New(failure.Precondition, "%s was replaced by a symlink to %s; langhost does not open it", path, real)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "reading %s", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, failure.New(failure.InvalidInput, "%s is not a regular file", path)
	}
	return fi, nil
}

// syncLocked opens path in the server, or sends its content again when it
// changed on disk since it was sent. s.docMu is held.
func (s *session) syncLocked(ctx context.Context, path string, fi os.FileInfo) (*document, error) {
	d := s.docs[path]
	if d != nil && !d.stale(fi) {
		return d, nil
	}
	content, _, err := readRegular(path, 0)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "reading %s", path)
	}
	if d != nil && bytes.Equal(content, d.content()) {
		d.info = fi
		return d, nil
	}
	if d == nil {
		d = &document{path: path, uri: lsp.URIFromPath(path), version: s.nextVersionLocked(), info: fi, mapper: lsp.NewMapper(content)}
		d.syncSeq = s.srv.DiagnosticsSeq()
		err = s.srv.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{
			URI: d.uri, LanguageID: s.languageID(path), Version: d.version, Text: string(content)}})
		if err != nil {
			return nil, err
		}
		s.docs[path] = d
		return d, nil
	}
	if err := s.changeLocked(ctx, d, content, fi); err != nil {
		return nil, err
	}
	return d, s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []lsp.FileEvent{{URI: d.uri, Type: lsp.FileChanged}}})
}

// nextVersionLocked returns a document version above every version sent
// in this session, so that diagnostics published for an earlier opening
// of a file are never taken for the current one. s.docMu is held.
func (s *session) nextVersionLocked() int32 {
	s.lastVersion++
	return s.lastVersion
}

// view returns the content of path as the server sees it, for a read-only
// request: the open document, else the file on disk without opening it
// (a detached document), unless the server answers only about open files.
func (s *session) view(ctx context.Context, path string) (*document, error) {
	if !s.readsDisk() {
		return s.document(ctx, path)
	}
	fi, err := s.checkFile(path)
	if err != nil {
		return nil, err
	}
	if d := s.openDoc(path); d != nil {
		if d.stale(fi) {
			if err := s.resync(ctx, path); err != nil {
				return nil, err
			}
		}
		if d := s.openDoc(path); d != nil {
			return d, nil
		}
	}
	f, err := s.readDisk(path, maxPeekSize)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "reading %s", path)
	}
	return &document{path: path, uri: lsp.URIFromPath(path), info: f.info, mapper: f.mapper}, nil
}

// readsDisk reports whether the server answers requests about files it was
// not given, reading them from disk (gopls, pyright, Roslyn). A server that
// must be given a file to know its project (openFileOnStart, as
// typescript-language-server) also answers only about open files.
func (s *session) readsDisk() bool { return !s.e.cfg.OpenFileOnStart }

// withDocument runs f on path's view for a read-only request: open in the
// server only if the server needs it, and then closed again at once unless
// the call held it open already.
func (s *session) withDocument(ctx context.Context, path string, f func(*document) error) error {
	l, _ := ctx.Value(leaseKey{}).(*lease)
	if s.readsDisk() || l == nil || l.holds(path) {
		d, err := s.view(ctx, path)
		if err != nil {
			return err
		}
		return f(d)
	}
	d, err := s.document(ctx, path)
	if err != nil {
		return err
	}
	ferr := f(d)
	l.mu.Lock()
	delete(l.held, path)
	l.mu.Unlock()
	if err := s.closeLeased(ctx, []*document{d}); err != nil && ferr == nil {
		return err
	}
	return ferr
}

// release ends a call's hold on the documents it opened, closing those no
// other call holds. It runs after the call's context may have ended.
func (s *session) release(ctx context.Context, l *lease) error {
	l.mu.Lock()
	docs := make([]*document, 0, len(l.held))
	for _, d := range l.held {
		docs = append(docs, d)
	}
	clear(l.held)
	l.mu.Unlock()
	return s.closeLeased(ctx, docs)
}

// closeLeased drops one hold on each of docs, closing those no call holds
// any more.
func (s *session) closeLeased(ctx context.Context, docs []*document) error {
	ctx = context.WithoutCancel(ctx)
	s.docMu.Lock()
	defer s.docMu.Unlock()
	var first error
	for _, d := range docs {
		if s.docs[d.path] != d {
			continue // closed meanwhile because its file went away
		}
		if d.users--; d.users > 0 || d.pinned {
			continue
		}
		// Under docMu, so that a call opening the file again sends its
		// didOpen after this didClose.
		delete(s.docs, d.path)
		err := s.srv.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: d.uri}})
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// openCount returns the number of documents open in the server.
func (s *session) openCount() int {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	return len(s.docs)
}

// refresh brings the open documents in line with the disk before a
// request, so that positions, previews and edits are computed on the files
// as they are now, not as they were when langhost last read them. A
// document that is gone, or no longer a regular file inside the workspace
// under the same real path, is closed.
func (s *session) refresh(ctx context.Context) error {
	s.docMu.Lock()
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		paths = append(paths, p)
	}
	s.docMu.Unlock()
	for _, p := range paths {
		err := s.resync(ctx, p)
		if err == nil {
			continue
		}
		var fe *failure.Error
		if !errors.As(err, &fe) {
			return err // the server connection failed
		}
		if err := s.closeDoc(ctx, p); err != nil {
			return err
		}
	}
	// Then the files no call has open that changed on disk.
	return s.flushWatched(ctx)
}

// resync sends the content of an open document again if it changed on disk.
func (s *session) resync(ctx context.Context, path string) error {
	fi, err := s.checkFile(path)
	if err != nil {
		return err
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if s.docs[path] == nil {
		return nil // closed meanwhile
	}
	_, err = s.syncLocked(ctx, path, fi)
	return err
}

// closeDoc tells the server a document is no longer open and forgets it.
func (s *session) closeDoc(ctx context.Context, path string) error {
	s.docMu.Lock()
	d := s.docs[path]
	delete(s.docs, path)
	s.docMu.Unlock()
	if d == nil {
		return nil
	}
	if err := s.srv.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: d.uri}}); err != nil {
		return err
	}
	return s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []lsp.FileEvent{{URI: d.uri, Type: lsp.FileDeleted}}})
}

// openDoc returns the open document of path, or nil.
func (s *session) openDoc(path string) *document {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	return s.docs[path]
}

// changeLocked sends new full content of an open document.
func (s *session) changeLocked(ctx context.Context, d *document, content []byte, fi os.FileInfo) error {
	d.version = s.nextVersionLocked()
	d.mapper = lsp.NewMapper(content)
	d.info = fi
	d.syncSeq = s.srv.DiagnosticsSeq()
	return s.srv.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": d.uri, "version": d.version},
		"contentChanges": []map[string]string{{"text": string(content)}},
	})
}

// filesWritten tells the server about files langhost wrote.
func (s *session) filesWritten(ctx context.Context, paths []string) error {
	events := make([]lsp.FileEvent, 0, len(paths))
	s.docMu.Lock()
	for _, p := range paths {
		uri := lsp.URIFromPath(p)
		events = append(events, lsp.FileEvent{URI: uri, Type: lsp.FileChanged})
		d := s.docs[p]
		if d == nil {
			continue
		}
		content, fi, err := readRegular(p, 0)
		if err != nil {
			continue
		}
		if err := s.changeLocked(ctx, d, content, fi); err != nil {
			s.docMu.Unlock()
			return err
		}
		if err := s.srv.Notify(ctx, "textDocument/didSave", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: uri}}); err != nil {
			s.docMu.Unlock()
			return err
		}
	}
	s.docMu.Unlock()
	return s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": events})
}

func (s *session) languageID(path string) string {
	ext := filepath.Ext(path)
	if id, ok := s.e.cfg.LanguageIDs[ext]; ok {
		return id
	}
	return strings.TrimPrefix(ext, ".")
}

// peek returns a mapper over a file's content as the server sees it: the
// open document's content, else the file on disk. It does not open the
// file in the server, and reads nothing outside the workspace (a server may
// point anywhere, and a symlink inside may lead out).
func (s *session) peek(path string) (*lsp.Mapper, error) {
	f, err := s.read(path)
	if err != nil {
		return nil, err
	}
	return f.mapper, nil
}

// fileContent is a file's content as the server sees it.
type fileContent struct {
	path     string      // real path inside the workspace
	info     os.FileInfo // of the file on disk
	mapper   *lsp.Mapper
	fromDisk bool // the content was read from disk, not an open document's
}

// read is peek that also returns the file's real path and state.
func (s *session) read(path string) (fileContent, error) {
	if d := s.openDoc(path); d != nil {
		return fileContent{path: d.path, info: d.info, mapper: d.mapper}, nil
	}
	real, err := s.e.ws.ResolveRead("", path)
	if err != nil {
		return fileContent{}, err
	}
	return s.readDisk(real, maxPeekSize)
}

// readDisk reads the regular file at path, a real path inside the
// workspace, of at most limit bytes (0: no limit), through the file cache:
// a file unchanged since it was last read costs one stat.
func (s *session) readDisk(path string, limit int64) (fileContent, error) {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && (limit <= 0 || fi.Size() <= limit) {
		if m, ok := s.files.content(path, fi); ok {
			return fileContent{path: path, info: fi, mapper: m, fromDisk: true}, nil
		}
	}
	content, fi, err := readRegular(path, limit)
	if err != nil {
		return fileContent{}, err
	}
	f := fileContent{path: path, info: fi, mapper: lsp.NewMapper(content), fromDisk: true}
	if time.Since(fi.ModTime()) > racyWindow {
		s.files.putContent(path, fi, f.mapper)
	}
	return f, nil
}

// racyWindow is how recently a file may have been modified and still be
// cached. File systems keep modification times at a clock tick's
// granularity, so a file written twice within one tick with the same size
// looks unchanged; one modified this recently may still be being written
// (as git treats "racily clean" index entries).
const racyWindow = 2 * time.Second

// maxPeekSize bounds the files read for output (line text, containing
// members) of locations a server reports; the server's positions are kept
// for larger ones.
const maxPeekSize = 64 << 20

// readRegular reads a regular file of at most limit bytes (0: no limit)
// and its FileInfo, without blocking on a named pipe (internal/safefile).
func readRegular(path string, limit int64) ([]byte, os.FileInfo, error) {
	if limit <= 0 {
		limit = math.MaxInt64
	}
	return safefile.ReadRegularStat(path, limit)
}
