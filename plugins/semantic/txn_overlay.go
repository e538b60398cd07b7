package semantic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// inMemory shows the server the changes as overlays (didOpen/didChange;
// nothing on disk) and returns how the diagnostics of the changed files,
// and of the other files the server publishes diagnostics for meanwhile,
// differ from before, and the overlay document of each changed file the
// server checks, by path. finish ends the overlays: with keep false the server
// is given the disk text back; with keep true (the changes were written)
// the modified documents stay as they are. Files created only in memory
// are closed either way. finish must be called even when err is not nil.
func (c *call) inMemory(ctx context.Context, changes []fileChange) (delta diagnostic.Delta, overlays map[string]*document, finish func(keep bool), err error) {
	pull := c.s.supports("diagnosticProvider", "textDocument/diagnostic")
	docs := make([]*document, len(changes))
	var created []*document
	finish = func(keep bool) {
		ctx := context.WithoutCancel(ctx)
		var restored []*document
		if !keep {
			for i, d := range docs {
				if d != nil && !changes[i].create {
					if err := c.s.overlay(ctx, d, changes[i].old); err != nil {
						c.e.log.Debug("restoring an overlay", "file", d.path, "error", err)
					}
					restored = append(restored, d)
				}
			}
		}
		for _, d := range created {
			if err := c.s.srv.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: d.uri}}); err != nil {
				c.e.log.Debug("closing an overlay", "file", d.path, "error", err)
			}
		}
		// The next transaction's "before" waits for publications of the
		// restored state, not of one between two restores or closes.
		if len(created) == 0 {
			restored = c.s.sentBefore(restored)
		}
		if err := c.s.settle(ctx, restored); err != nil {
			c.e.log.Debug("settling restored overlays", "error", err)
		}
	}

	// Before: the files as they are on disk.
	for i, ch := range changes {
		if ch.create || !c.s.checks(ch.path) {
			continue
		}
		d, err := c.s.document(ctx, ch.path)
		if err != nil {
			return delta, nil, finish, err
		}
		if string(d.content()) != string(ch.old) {
			return delta, nil, finish, fieldErr(failure.Precondition, "file", "%s changed on disk since the edit was computed; nothing was written", ch.rel)
		}
		docs[i] = d
	}
	// Opening or syncing the files one after another has the same hazard
	// as applying the changes: see settle.
	if !pull {
		if err := c.s.settle(ctx, c.s.sentBefore(docs)); err != nil {
			return delta, nil, finish, err
		}
	}
	before, err := c.diagnosticsOf(ctx, docs, pull)
	if err == nil {
		err = c.unchecked(before, "the files on disk")
	}
	if err != nil {
		return delta, nil, finish, err
	}
	seq := c.s.srv.DiagnosticsSeq()

	// Apply in memory.
	for i, ch := range changes {
		if !c.s.checks(ch.path) {
			continue
		}
		if !ch.create {
			if err := c.s.overlay(ctx, docs[i], ch.new); err != nil {
				return delta, nil, finish, err
			}
			continue
		}
		d, err := c.s.openOverlay(ctx, ch.path, ch.new)
		if err != nil {
			return delta, nil, finish, err
		}
		docs[i] = d
		created = append(created, d)
	}

	// After: publications computed from the state with every change
	// applied, not from one in between.
	if !pull {
		if err := c.s.settle(ctx, c.s.sentBefore(docs)); err != nil {
			return delta, nil, finish, err
		}
	}
	after, err := c.diagnosticsOf(ctx, docs, pull)
	if err == nil {
		err = c.unchecked(after, "the edited text")
	}
	if err != nil {
		return delta, nil, finish, err
	}
	if !pull {
		// Dependents: files in the workspace whose diagnostics the server
		// published again since the overlays, before and after.
		for uri, ds := range after.others {
			if e, ok := c.s.srv.Diagnostics(uri); !ok || e.Seq <= seq {
				delete(after.others, uri)
				continue
			}
			if b, ok := before.others[uri]; ok {
				before.files = append(before.files, b...)
			}
			after.files = append(after.files, ds...)
		}
	}
	overlays = map[string]*document{}
	for i, d := range docs {
		if d != nil {
			overlays[changes[i].path] = d
		}
	}
	return diagnostic.Diff(before.files, after.files), overlays, finish, nil
}

// unchecked fails a transaction whose diagnostics of what state names
// are missing: a check that did not happen must not pass as one that
// found nothing (a server still loading publishes late).
func (c *call) unchecked(d txnDiagnostics, state string) error {
	if len(d.unpublished) == 0 {
		return nil
	}
	return failure.New(failure.Timeout, "%s published no diagnostics for %s of %s within %s, so the edit could not be checked and nothing was written; retry once the server has loaded (load_status)",
		c.s.serverName(), state, strings.Join(d.unpublished, ", "), pushWait)
}

// txnQuiet is how long a server that pushes diagnostics must send nothing
// before a transaction takes what it published as complete: it publishes
// the edited files first and their dependents after (gopls after its
// diagnosticsDelay), and some servers publish a file twice (syntax, then
// types).
const txnQuiet = 100 * time.Millisecond

// txnDiagnostics are the diagnostics of a transaction's files (files)
// and, from a server that pushes them, of every other workspace file by
// URI (others).
type txnDiagnostics struct {
	files  []diagnostic.Diagnostic
	others map[lsp.DocumentURI][]diagnostic.Diagnostic
	// unpublished are the files whose diagnostics for their current text
	// the server did not publish within pushWait: what it published last
	// is of an older text, or there is none.
	unpublished []string
}

// diagnosticsOf returns the diagnostics of docs (nil entries skipped) as
// the server sees them now: pulled, or the publications for their current
// versions once the server has fallen quiet.
func (c *call) diagnosticsOf(ctx context.Context, docs []*document, pull bool) (txnDiagnostics, error) {
	var out txnDiagnostics
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	quiet := c.silence(sctx, pull)
	mine := map[lsp.DocumentURI]bool{}
	for _, d := range docs {
		if d == nil {
			continue
		}
		mine[d.uri] = true
		if pull {
			ds, err := c.fileDiagnostics(ctx, d, true)
			if err != nil {
				return out, err
			}
			out.files = append(out.files, c.toDiagnostics(d.uri, d.mapper, ds)...)
			continue
		}
		c.s.docMu.Lock()
		version, since := d.version, d.syncSeq
		c.s.docMu.Unlock()
		wctx, cancel := context.WithTimeout(ctx, pushWait)
		if quiet != nil {
			go func() {
				select {
				case <-quiet:
					cancel() // silent: what it published last stands
				case <-wctx.Done():
				}
			}()
		}
		_, err := c.s.srv.WaitDiagnostics(wctx, d.uri, func(e lsp.DiagnosticsEntry) bool {
			if e.Version != nil {
				return *e.Version >= version
			}
			return e.Seq > since
		})
		timedOut := errors.Is(wctx.Err(), context.DeadlineExceeded)
		cancel()
		if err != nil && ctx.Err() != nil {
			return out, err
		}
		if err != nil && timedOut {
			out.unpublished = append(out.unpublished, c.e.relPath(d.uri))
		}
	}
	if pull {
		return out, nil
	}
	if ok, err := c.diagnoseAll(ctx, docs); err != nil {
		return out, err
	} else if !ok {
		wctx, cancel := context.WithTimeout(ctx, pushWait)
		err := c.s.srv.WaitIdle(wctx, txnQuiet)
		cancel()
		if err != nil && ctx.Err() != nil {
			return out, err
		}
	}
	out.others = map[lsp.DocumentURI][]diagnostic.Diagnostic{}
	for _, e := range c.s.srv.AllDiagnostics() {
		if mine[e.URI] {
			continue
		}
		if strings.HasPrefix(c.e.relPath(e.URI), "/") {
			continue // outside the workspace: the module cache, the standard library
		}
		m, _ := c.peekURI(e.URI)
		out.others[e.URI] = c.toDiagnostics(e.URI, m, e.Diagnostics)
	}
	for _, d := range docs {
		if d == nil {
			continue
		}
		c.s.docMu.Lock()
		m := d.mapper
		c.s.docMu.Unlock()
		if e, ok := c.s.srv.Diagnostics(d.uri); ok {
			out.files = append(out.files, c.toDiagnostics(d.uri, m, e.Diagnostics)...)
		}
	}
	return out, nil
}

// silence returns a channel closed once a server configured with
// diagnosticsQuiet has sent nothing for that long since now (the changes
// were sent), or nil for other servers. Its watch ends with ctx.
func (c *call) silence(ctx context.Context, pull bool) <-chan struct{} {
	q := c.e.cfg.diagnosticsQuiet()
	if q == 0 || pull {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		// First q from now, then until the server's last message is q
		// old: q of silence after the changes.
		select {
		case <-time.After(q):
		case <-ctx.Done():
			return
		}
		if c.s.srv.WaitIdle(ctx, q) == nil {
			close(ch)
		}
	}()
	return ch
}

// checks reports whether the server checks path: a file of one of the
// languages the configuration names (all files when it names none). Other
// files (a README, go.mod for some servers) get no diagnostics to wait for.
func (s *session) checks(path string) bool {
	if len(s.e.cfg.LanguageIDs) == 0 {
		return true
	}
	_, ok := s.e.cfg.LanguageIDs[filepath.Ext(path)]
	return ok
}

// goplsDiagnoseFiles is gopls's command that diagnoses the whole snapshot
// of the given files (their dependents included) and answers once every
// diagnostic is published: a barrier instead of a quiet time. From
// gopls v0.23.0's source (server/command.go DiagnoseFiles,
// server/diagnostics.go): it runs after every earlier didChange was
// applied (notifications are handled in order), diagnoses the view's
// latest snapshot synchronously and publishes before it answers; a pass
// over an older snapshot is cancelled by the next change and never
// replaces diagnostics stored for a newer one. A publication is sent only
// when a file's diagnostics differ from the last one sent (or the file
// just changed), tagged with the file's version in the diagnosed snapshot.
const goplsDiagnoseFiles = "gopls.diagnose_files"

// diagnoseAll asks a server that offers a diagnosis barrier to publish
// every diagnostic of the current state of docs and their dependents. It
// reports false when the server has none.
func (c *call) diagnoseAll(ctx context.Context, docs []*document) (bool, error) {
	if !c.s.hasCommand(goplsDiagnoseFiles) {
		return false, nil
	}
	var files []lsp.DocumentURI
	for _, d := range docs {
		if d != nil {
			files = append(files, d.uri)
		}
	}
	if len(files) == 0 {
		return true, nil
	}
	err := c.s.call(ctx, "workspace/executeCommand", map[string]any{
		"command": goplsDiagnoseFiles, "arguments": []any{map[string]any{"Files": files}}}, nil)
	if err != nil && ctx.Err() == nil && failure.CodeOf(err) != failure.Timeout {
		// The command is an optimisation: fall back to the quiet time.
		c.e.log.Debug("diagnose_files failed", "error", err)
		return false, nil
	}
	return err == nil, err
}

// hasCommand reports whether the server lists command among those
// workspace/executeCommand runs.
func (s *session) hasCommand(command string) bool {
	var opts struct {
		Commands []string `json:"commands"`
	}
	_ = json.Unmarshal(s.caps["executeCommandProvider"], &opts)
	return slices.Contains(opts.Commands, command)
}

// toDiagnostics converts a server's diagnostics of uri, whose content m
// maps (nil: positions are taken as they are).
func (c *call) toDiagnostics(uri lsp.DocumentURI, m *lsp.Mapper, ds []lsp.Diagnostic) []diagnostic.Diagnostic {
	out := make([]diagnostic.Diagnostic, 0, len(ds))
	for _, d := range ds {
		l := c.locIn(m, uri, d.Range, detailFull)
		sev := d.Severity
		if sev == 0 {
			sev = 1 // LSP: the client decides; an unrated problem counts as an error
		}
		out = append(out, diagnostic.Diagnostic{
			Path: l.File, Line: l.Line, Column: l.Column, EndLine: l.EndLine, EndColumn: l.EndColumn,
			Severity: diagnostic.NormalizeSeverity(sev.String()), Code: d.CodeString(), Message: d.Message, Source: d.Source,
		})
	}
	return out
}

// overlay sends content as the text of an open document without touching
// the disk. The document keeps the FileInfo of the disk file, so that a
// change on disk is still noticed.
func (s *session) overlay(ctx context.Context, d *document, content []byte) error {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	if string(d.content()) == string(content) {
		return nil
	}
	return s.changeLocked(ctx, d, content, d.info)
}

// settle makes the server's next publication for each of docs one
// computed after every change sent so far. A server that pushes
// diagnostics publishes each file as it goes: after a two-file change the
// first file's latest publication, carrying that file's current version,
// may come from the state in which the second file had not changed yet,
// and a server need not publish it again once done (gopls publishes only
// what differs, and dependents after a delay). settle sends each document
// again, unchanged, under a new version: a publication carrying that
// version, which diagnosticsOf waits for, is computed from a state that
// includes everything sent before it.
func (s *session) settle(ctx context.Context, docs []*document) error {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	for _, d := range docs {
		if err := s.changeLocked(ctx, d, d.content(), d.info); err != nil {
			return err
		}
	}
	return nil
}

// sentBefore returns the documents of docs (nil entries skipped) but the
// one sent last, which has the highest version: those whose latest
// publication may predate a change sent after theirs. The last one needs
// no settle.
func (s *session) sentBefore(docs []*document) []*document {
	var out []*document
	for _, d := range docs {
		if d != nil {
			out = append(out, d)
		}
	}
	s.docMu.Lock()
	defer s.docMu.Unlock()
	slices.SortStableFunc(out, func(a, b *document) int { return cmp.Compare(a.version, b.version) })
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

// openOverlay opens a document for a file that does not exist on disk yet.
// It is not one of s.docs: the caller closes it.
func (s *session) openOverlay(ctx context.Context, path string, content []byte) (*document, error) {
	s.docMu.Lock()
	defer s.docMu.Unlock()
	d := &document{path: path, uri: lsp.URIFromPath(path), version: s.nextVersionLocked(), mapper: lsp.NewMapper(content)}
	d.syncSeq = s.srv.DiagnosticsSeq()
	err := s.srv.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": lsp.TextDocumentItem{
		URI: d.uri, LanguageID: s.languageID(path), Version: d.version, Text: string(content)}})
	return d, err
}

// keyedLock serialises transactions per file.
type keyedLock struct {
	mu sync.Mutex
	m  map[string]*keyEntry
}

type keyEntry struct {
	sem  chan struct{}
	refs int
}

// lock takes the locks of keys, in sorted order so that two transactions
// over the same files cannot deadlock, and returns their release.
func (k *keyedLock) lock(ctx context.Context, keys []string) (func(), error) {
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	var held []string
	unlock := func() {
		for _, key := range slices.Backward(held) {
			k.release(key, true)
		}
	}
	for _, key := range keys {
		k.mu.Lock()
		if k.m == nil {
			k.m = map[string]*keyEntry{}
		}
		e := k.m[key]
		if e == nil {
			e = &keyEntry{sem: make(chan struct{}, 1)}
			k.m[key] = e
		}
		e.refs++
		k.mu.Unlock()
		select {
		case e.sem <- struct{}{}:
			held = append(held, key)
		case <-ctx.Done():
			k.release(key, false)
			unlock()
			return nil, ctx.Err()
		}
	}
	return unlock, nil
}

func (k *keyedLock) release(key string, held bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.m[key]
	if held {
		<-e.sem
	}
	if e.refs--; e.refs == 0 {
		delete(k.m, key)
	}
}
