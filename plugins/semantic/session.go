package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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

	readyMu sync.Mutex
	ready   bool

	docMu sync.Mutex
	docs  map[string]*document
}

// document is a file the server has been told about with didOpen.
type document struct {
	path    string // real path inside the workspace
	uri     lsp.DocumentURI
	version int32
	info    os.FileInfo // of the content last sent, to notice changes on disk
	syncSeq uint64      // diagnostics sequence number when last synced
	mapper  *lsp.Mapper
}

// stale reports whether the file on disk may differ from the content last
// sent: another inode (an editor that writes by rename), size or mtime.
func (d *document) stale(fi os.FileInfo) bool {
	return !os.SameFile(d.info, fi) || d.info.Size() != fi.Size() || !d.info.ModTime().Equal(fi.ModTime())
}

func (d *document) content() []byte { return d.mapper.Content() }

func startSession(ctx context.Context, e *Engine, argv []string) (*session, error) {
	s := &session{e: e, name: filepath.Base(argv[0]), docs: map[string]*document{}}
	s.dialect = newDialect(e.cfg)
	srv, err := lsp.Start(argv, e.lspRoot, nil, lsp.Options{
		Logger:           e.log.Named(s.name),
		Settings:         e.cfg.Settings,
		WorkspaceFolders: []lsp.WorkspaceFolder{{URI: lsp.URIFromPath(e.lspRoot), Name: filepath.Base(e.lspRoot)}},
		OnLog: func(_ int, msg string) {
			if d, ok := s.dialect.(*standardDialect); ok {
				d.onLog(msg)
			}
		},
		OnProgress: func(ev lsp.ProgressEvent) {
			msg := strings.TrimSpace(ev.Title + ": " + ev.Message)
			msg = strings.Trim(msg, ": ")
			if ev.Kind == "end" && msg == "" {
				msg = "done"
			}
			e.report(msg, ev.Percentage)
		},
	})
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "starting language server")
	}
	s.srv = srv
	s.dialect.prepare(s)

	timeout := e.cfg.readyTimeout()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = s.handshake(rctx)
	if err == nil {
		err = s.dialect.waitReady(rctx, s)
	}
	if err != nil {
		defer s.close(context.Background())
		switch {
		case s.exited() || errors.Is(err, lsp.ErrClosed):
			return nil, failure.Wrap(failure.Internal, err, "language server %s exited during start-up: %s", s.name, s.exitReason())
		case errors.Is(err, context.DeadlineExceeded) || failure.CodeOf(err) == failure.Timeout:
			if ctx.Err() == nil {
				return nil, failure.Wrap(failure.Timeout, err, "language server %s did not become ready within %s (semantic.readyTimeout)", s.name, timeout)
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
	s.readyMu.Lock()
	s.ready = true
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
		"capabilities":          clientCapabilities,
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

// clientCapabilities declares what the operations use.
var clientCapabilities = map[string]any{
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

func (s *session) serverName() string { return s.name }

// exited reports whether the server is gone: its process ended, or its
// connection did (it closed stdout or sent malformed output), which leaves
// a live process of no use. The engine replaces it on the next call.
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
// path of a file inside the workspace, as ResolveRead returns it.
func (s *session) document(ctx context.Context, path string) (*document, error) {
	// Checked again here, the one place files are read for the server: a
	// file may have been replaced by a symlink since it was resolved.
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
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d := s.docs[path]
	if d != nil && !d.stale(fi) {
		return d, nil
	}
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, failure.Wrap(failure.NotFound, err, "reading %s", path)
	}
	if d != nil && bytes.Equal(content, d.content()) {
		d.info = fi
		return d, nil
	}
	if d == nil {
		d = &document{path: path, uri: lsp.URIFromPath(path), version: 1, info: fi, mapper: lsp.NewMapper(content)}
		d.syncSeq = s.srv.DiagnosticsSeq()
		err = s.srv.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{
			URI: d.uri, LanguageID: s.languageID(path), Version: d.version, Text: string(content)}})
		if err != nil {
			return nil, err
		}
		s.docs[path] = d
		s.e.rememberDoc(path)
		return d, nil
	}
	if err := s.syncLocked(ctx, d, content, fi); err != nil {
		return nil, err
	}
	return d, s.srv.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{
		"changes": []lsp.FileEvent{{URI: d.uri, Type: lsp.FileChanged}}})
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
		_, err := s.document(ctx, p)
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
	return nil
}

// closeDoc tells the server a document is no longer open and forgets it.
func (s *session) closeDoc(ctx context.Context, path string) error {
	s.docMu.Lock()
	d := s.docs[path]
	delete(s.docs, path)
	s.docMu.Unlock()
	s.e.forgetDoc(path)
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

// syncLocked sends new full content of an open document.
func (s *session) syncLocked(ctx context.Context, d *document, content []byte, fi os.FileInfo) error {
	d.version++
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
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		content, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if err := s.syncLocked(ctx, d, content, fi); err != nil {
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
	if d := s.openDoc(path); d != nil {
		return d.mapper, nil
	}
	real, err := s.e.ws.ResolveRead("", path)
	if err != nil {
		return nil, err
	}
	content, err := os.ReadFile(real)
	if err != nil {
		return nil, err
	}
	return lsp.NewMapper(content), nil
}
