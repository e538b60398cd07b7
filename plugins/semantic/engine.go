// Package semantic answers semantic code operations (find references, type
// hierarchy, rename previews, ...) by driving a language server over LSP.
// Engine implements pluginapi.Agent for one workspace and one server.
package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/internal/slnroot"
	"github.com/langhost/langhost/internal/toolpath"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Name and Version identify the engine in Describe.
const (
	Name    = "semantic"
	Version = "0.1.0"
)

// Engine serves semantic operations for one workspace. It starts the
// language server lazily on Open and restarts it on the next call after a
// crash or a change to a project file (structureFiles). It is safe for
// concurrent use.
type Engine struct {
	log hclog.Logger

	mu      sync.Mutex // guards the fields below; held while (re)starting
	opened  bool
	ws      *workspace.Root // confines every file read or written
	root    string          // ws.Dir(): outputs are relative to it
	lspRoot string          // directory the server is rooted at
	lang    string
	cfg     Config
	sess    *session

	// narrow says why the server sees less than the project it serves
	// (one project of a solution outside the workspace); "" when it
	// sees it all. Answers carry it as a warning, writes are refused.
	narrow string

	progMu   sync.Mutex
	progress pluginapi.ProgressFunc
}

var _ pluginapi.Agent = (*Engine)(nil)

// New returns an engine logging to logger (nil discards logs).
func New(logger hclog.Logger) *Engine {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Engine{log: logger}
}

// Describe implements pluginapi.Agent.
func (e *Engine) Describe(ctx context.Context) (*pluginapi.Description, error) {
	return &pluginapi.Description{Name: Name, Version: Version, Operations: Operations()}, nil
}

// Open implements pluginapi.Agent: it parses req.Config, picks the first
// installed server, starts it and waits until it is ready, reporting
// progress.
func (e *Engine) Open(ctx context.Context, req pluginapi.OpenRequest, progress pluginapi.ProgressFunc) error {
	cfg, err := selectServer(req.Config, req.Language)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(req.Root) {
		e := failure.New(failure.InvalidInput, "workspace root %q is not absolute", req.Root)
		e.Field = "root"
		return e
	}
	ws, err := workspace.New(req.Root)
	if err != nil {
		return &failure.Error{Code: failure.CodeOf(err), Field: "root", Message: "opening the workspace", Err: err}
	}
	root := ws.Dir()
	if cfg, err = cfg.forWorkspace(ws); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		e.sess.close(ctx)
		e.sess = nil
	}
	e.opened, e.ws, e.root, e.lang, e.cfg = true, ws, root, req.Language, cfg
	e.lspRoot = findRoot(root, cfg.RootMarkers)
	e.narrow = narrowScope(root, e.lspRoot)
	_, err = e.startLocked(ctx, progress)
	return err
}

// Invoke implements pluginapi.Agent.
func (e *Engine) Invoke(ctx context.Context, req pluginapi.InvokeRequest, progress pluginapi.ProgressFunc) (json.RawMessage, error) {
	op, ok := opsByName[req.Operation]
	if !ok {
		err := failure.New(failure.NotFound, "unknown operation %q", req.Operation)
		err.Field = "operation"
		return nil, err
	}
	input := req.Input
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	s, err := e.session(ctx, progress)
	if err != nil {
		return nil, err
	}
	defer s.calls.RUnlock()
	ctx, cancel := context.WithTimeout(ctx, e.cfg.requestTimeout())
	defer cancel()
	// Documents the operation opens are closed when it ends, so that the
	// server holds no more than the calls in flight need.
	ctx, docs := withLease(ctx)
	defer func() {
		if err := s.release(ctx, docs); err != nil {
			e.log.Debug("closing documents", "error", err)
		}
	}()
	err = s.refresh(ctx)
	var out any
	if err == nil {
		out, err = op.run(ctx, &call{e: e, s: s, confirmed: req.Confirmed}, input)
	}
	if err != nil {
		return nil, s.withLoadProblem(s.explain(err, req.Operation, e.cfg.requestTimeout()))
	}
	// What the server cannot see is said once: in a list answer's
	// coverage, else as a warning.
	var warnings []string
	if cv, ok := out.(coverer); ok {
		cv.coverage().settle(s.loadProblem, e.narrow)
	} else {
		warnings = []string{s.loadProblem, e.narrow}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, failure.Wrap(failure.Internal, err, "encoding %s output", req.Operation)
	}
	for _, w := range warnings {
		if w != "" {
			raw = withWarning(raw, w)
		}
	}
	return raw, nil
}

// narrowScope says why a server rooted at lspRoot for the workspace root
// sees less than the code the workspace belongs to: the root holds .NET
// projects and no solution, and a solution above the workspace lists
// them (langhost was pointed at one project's directory). It returns ""
// otherwise.
func narrowScope(root, lspRoot string) string {
	projects := slnroot.Projects(lspRoot)
	if len(projects) == 0 || len(slnroot.Solutions(lspRoot)) > 0 {
		return ""
	}
	home, _ := os.UserHomeDir()
	sln := slnroot.Containing(projects, func(dir string) bool { return home == "" || dir != filepath.Clean(home) })
	if sln == "" {
		return ""
	}
	if rel, err := filepath.Rel(sln, root); err == nil && !strings.HasPrefix(rel, "..") {
		return "" // the workspace holds the solution
	}
	return fmt.Sprintf("the workspace %s is one project of the solution %s, which is outside it: the server loads only this project, so references, implementations and callers in the solution's other projects are missing, and writes are refused (start langhost in %s)",
		root, sln, filepath.Dir(sln))
}

// withWarning adds warning to the "warnings" list of a JSON object
// output; other outputs are returned as they are.
func withWarning(raw json.RawMessage, warning string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return raw
	}
	var warnings []string
	_ = json.Unmarshal(obj["warnings"], &warnings)
	w, _ := json.Marshal(append(warnings, warning))
	obj["warnings"] = w
	if out, err := json.Marshal(obj); err == nil {
		return out
	}
	return raw
}

// Status implements pluginapi.Agent.
func (e *Engine) Status(ctx context.Context) (*pluginapi.Status, error) {
	e.mu.Lock()
	s := e.sess
	opened := e.opened
	e.mu.Unlock()
	switch {
	case !opened:
		return &pluginapi.Status{Message: "no workspace open"}, nil
	case s == nil || s.exited():
		return &pluginapi.Status{Message: "language server not running; it starts on the next call"}, nil
	}
	return &pluginapi.Status{Ready: s.isReady(), Server: s.serverName(), ServerPID: s.srv.PID(), Message: s.statusMessage()}, nil
}

// Shutdown implements pluginapi.Agent.
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess != nil {
		e.sess.close(ctx)
		e.sess = nil
	}
	e.opened = false
	return nil
}

// ServerPID returns the running server's process id, or 0.
func (e *Engine) ServerPID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil || e.sess.exited() {
		return 0
	}
	return e.sess.srv.PID()
}

// session returns the running session, starting one if the server is not
// running (never started, or crashed since the last call), for one call:
// the caller holds s.calls for reading until the call ends.
func (e *Engine) session(ctx context.Context, progress pluginapi.ProgressFunc) (*session, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.opened {
		return nil, failure.New(failure.Precondition, "no workspace is open: call Open first")
	}
	if e.sess != nil && !e.sess.exited() {
		changed := ""
		if e.sess.watch != nil {
			changed = e.sess.watch.structureChanged(ctx)
		}
		if changed == "" {
			e.sess.calls.RLock()
			return e.sess, nil
		}
		// The server would go on answering from the projects it
		// loaded (structureFiles): the next answer must be a cold one.
		// The calls in flight finish on it first; new ones wait on e.mu.
		e.log.Info("a project file changed on disk; restarting the language server", "file", changed)
		e.sess.calls.Lock()
		e.sess.close(ctx)
		e.sess.calls.Unlock()
		e.sess = nil
		return e.startForCall(ctx, progress)
	}
	if e.sess != nil {
		e.log.Warn("language server exited; restarting", "error", e.sess.srv.ExitError())
		e.sess.close(ctx)
		e.sess = nil
	}
	return e.startForCall(ctx, progress)
}

// startForCall starts a session for the call that asked for it.
func (e *Engine) startForCall(ctx context.Context, progress pluginapi.ProgressFunc) (*session, error) {
	s, err := e.startLocked(ctx, progress)
	if err != nil {
		return nil, err
	}
	s.calls.RLock()
	return s, nil
}

func (e *Engine) setProgress(p pluginapi.ProgressFunc) {
	e.progMu.Lock()
	e.progress = p
	e.progMu.Unlock()
}

func (e *Engine) report(msg string, percent float64) {
	e.progMu.Lock()
	p := e.progress
	e.progMu.Unlock()
	if p != nil {
		p(pluginapi.Progress{Message: msg, Percent: percent})
	}
}

// startLocked starts and initialises a server; e.mu is held.
func (e *Engine) startLocked(ctx context.Context, progress pluginapi.ProgressFunc) (*session, error) {
	e.setProgress(progress)
	defer e.setProgress(nil)
	argv, err := e.command()
	if err != nil {
		return nil, err
	}
	e.report(fmt.Sprintf("starting %s", filepath.Base(argv[0])), 0)
	s, err := startSession(ctx, e, argv)
	if err != nil {
		return nil, err
	}
	e.sess = s
	e.report(fmt.Sprintf("%s ready", s.serverName()), 100)
	return s, nil
}

// command resolves the argv of the server Open picked.
func (e *Engine) command() ([]string, error) {
	path, err := toolpath.LookPath(e.cfg.Command)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err,
			"language server %q (semantic.command) is not installed; `langhost prereqs --check %s` says how to install it", e.cfg.Command, e.lang)
	}
	return append([]string{path}, e.cfg.Args...), nil
}

// findRoot searches dir and its parents for a root marker.
func findRoot(dir string, markers []string) string {
	if len(markers) == 0 {
		return dir
	}
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range markers {
			if matches, _ := filepath.Glob(filepath.Join(d, m)); len(matches) > 0 {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// resolvePath turns an input path (relative to the root, or absolute
// inside it) into the real path of an existing file in the workspace.
// Symlinks are followed only as far as they stay inside the root.
func (e *Engine) resolvePath(key, p string) (string, error) {
	if p == "" {
		return "", fieldErr(failure.InvalidInput, key, "is required")
	}
	real, err := e.ws.ResolveRead(key, p)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fieldErr(failure.NotFound, key, "file %q does not exist in the workspace", p)
	}
	if fi.IsDir() {
		return "", fieldErr(failure.InvalidInput, key, "%q is a directory, not a file", p)
	}
	return real, nil
}

// relPath renders a URI for output: relative to the workspace root when
// inside it, absolute otherwise.
func (e *Engine) relPath(uri lsp.DocumentURI) string {
	p, err := uri.Path()
	if err != nil {
		return string(uri)
	}
	if rel, err := filepath.Rel(e.root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

func fieldErr(code failure.Code, field, format string, args ...any) *failure.Error {
	err := failure.New(code, format, args...)
	err.Field = field
	return err
}

// explain turns a low-level error into a classified failure.
// withLoadProblem adds to a failure why the server loaded less than the
// workspace, which is often why a query failed ("no package metadata").
func (s *session) withLoadProblem(err error) error {
	var fe *failure.Error
	if s.loadProblem == "" || !errors.As(err, &fe) || fe.Code == failure.InvalidInput || fe.Code == failure.Canceled {
		return err
	}
	fe.Message += "; " + s.loadProblem
	return err
}

func (s *session) explain(err error, op string, timeout time.Duration) error {
	var fe *failure.Error
	if errors.As(err, &fe) {
		if fe.Code == failure.Timeout && errors.Is(err, context.DeadlineExceeded) && !strings.Contains(fe.Message, "requestTimeout") {
			fe.Message = fmt.Sprintf("%s: %s did not answer within %s (requestTimeout)", fe.Message, s.serverName(), timeout)
		}
		return err
	}
	if errors.Is(err, lsp.ErrClosed) || s.exited() {
		return failure.Wrap(failure.Internal, err, "language server exited: %s", s.exitReason())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return failure.Wrap(failure.Timeout, err, "%s: %s did not answer within %s (requestTimeout)", op, s.serverName(), timeout)
	}
	if errors.Is(err, context.Canceled) {
		return failure.Wrap(failure.Canceled, err, "%s canceled", op)
	}
	return failure.Wrap(failure.Internal, err, "%s", op)
}
