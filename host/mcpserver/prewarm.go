package mcpserver

import (
	"context"
	"slices"
	"time"

	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/host/registry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prewarm starts, in the background, what the served tools need before
// their first call (registry.Warmer): the plugin and language server of
// every served language with semantic tools, now and after every reload,
// as an editor starts its language servers when a workspace opens. A
// language server takes seconds to load a workspace; the first call then
// finds it ready or loading. Unless languages were named (--language),
// only the languages the workspace is a project of are warmed (see
// primary): the others' servers would load little or nothing.
//
// The first warm waits until a client's first tools/list is answered (or
// a second passed): starting a plugin process (the executable's
// start-up, go-plugin's handshake with its certificates) competes for
// the CPU with the listing, and a client lists its tools before it calls
// one.
//
// A warm that fails (server not installed, start error) is logged and
// otherwise ignored: the first call starts the plugin again and reports
// the failure. Close stops the warms in progress with the plugins.
func (srv *Server) Prewarm() {
	srv.prewarm.Store(true)
	srv.genMu.RLock()
	g := srv.gen
	srv.genMu.RUnlock()
	if g == nil {
		return
	}
	srv.warmMu.Lock()
	defer srv.warmMu.Unlock()
	if srv.ctx.Err() != nil {
		return
	}
	srv.warming.Go(func() {
		t := time.NewTimer(srv.prewarmDelay)
		defer t.Stop()
		select {
		case <-srv.listed:
		case <-t.C:
		case <-srv.ctx.Done():
			return
		}
		srv.warm(g)
	})
}

// defaultPrewarmDelay is how long the first warm waits for a first
// tools/list.
const defaultPrewarmDelay = time.Second

// noteListed is a receiving middleware that closes srv.listed once a
// tools/list has been answered.
func (srv *Server) noteListed(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/list" {
			srv.listedOnce.Do(func() { close(srv.listed) })
		}
		return res, err
	}
}

// warm warms the languages of g, each once and in its own goroutine: the
// tools of one language share one plugin.
func (srv *Server) warm(g *generation) {
	srv.warmMu.Lock()
	defer srv.warmMu.Unlock()
	if srv.ctx.Err() != nil {
		return // closed: a warm now would start a plugin nobody stops
	}
	var langs []string
	warmers := map[string]registry.Warmer{}
	runsCode := map[string]bool{}
	for _, t := range g.tools {
		w, ok := t.Handler.(registry.Warmer)
		if !ok {
			continue
		}
		runsCode[t.Language] = runsCode[t.Language] || t.WorkspaceCode != ""
		if warmers[t.Language] == nil {
			warmers[t.Language] = w
			langs = append(langs, t.Language)
		}
	}
	if !trusted(g.h) {
		// A server that would run the workspace's code (csharp-ls's
		// design-time build) starts only when a call the client approved
		// needs it.
		langs = slices.DeleteFunc(langs, func(l string) bool {
			if runsCode[l] {
				srv.log.Debug("not prewarmed: its server runs the code of this untrusted workspace", "language", l)
			}
			return runsCode[l]
		})
	}
	if len(langs) == 0 {
		return
	}
	srv.warming.Go(func() {
		if len(srv.opts.Languages) == 0 {
			langs = srv.primary(g, langs)
		}
		for _, lang := range langs {
			// The count is held by this goroutine, so Close's Wait
			// covers these too.
			srv.warming.Go(func() { srv.warmOne(g, lang, warmers[lang]) })
		}
	})
}

// primary keeps the languages the workspace is a project of (a project
// file at its root or one directory below) or, when it is a project of
// none, the languages detected in it: the C and JavaScript files of a Go
// module's test data must not start clangd and a TypeScript server.
func (srv *Server) primary(g *generation, langs []string) []string {
	found := g.detected
	if found == nil {
		res, err := detect.Detect(srv.ctx, g.h.Workspace.Dir(), g.h.Specs.Languages, srv.opts.Detect)
		if err != nil {
			srv.log.Debug("prewarm: no language detected", "error", err)
			return nil
		}
		found = res.Languages
	}
	var detected, projects []string
	for _, l := range found {
		detected = append(detected, l.ID)
		if l.Project {
			projects = append(projects, l.ID)
		}
	}
	if len(projects) > 0 {
		detected = projects
	}
	return slices.DeleteFunc(langs, func(l string) bool { return !slices.Contains(detected, l) })
}

func (srv *Server) warmOne(g *generation, lang string, w registry.Warmer) {
	if srv.ctx.Err() != nil || !srv.serving(g) {
		return
	}
	start := time.Now()
	srv.log.Debug("prewarming", "language", lang)
	err := w.Warm(srv.ctx)
	switch {
	case err == nil:
		srv.log.Info("prewarmed", "language", lang, "took", time.Since(start).Round(time.Millisecond))
	case srv.ctx.Err() != nil || !srv.serving(g):
		// Stopping, or a reload replaced g and closes its plugins.
		srv.log.Debug("prewarm stopped", "language", lang, "error", err)
	default:
		srv.log.Warn("prewarm failed; the first call will start it again", "language", lang, "error", err)
	}
}

// serving reports whether g is the served generation.
func (srv *Server) serving(g *generation) bool {
	srv.genMu.RLock()
	defer srv.genMu.RUnlock()
	return srv.gen == g
}
