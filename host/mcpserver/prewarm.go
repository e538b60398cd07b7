package mcpserver

import (
	"slices"
	"time"

	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/host/registry"
)

// Prewarm starts, in the background, what the served tools need before
// their first call (registry.Warmer): the plugin and language server of
// every served language with semantic tools, now and after every reload,
// as an editor starts its language servers when a workspace opens. A
// language server takes seconds to load a workspace; the first call then
// finds it ready or loading. When every language is served (profile all,
// --tools), only the languages detected in the workspace are warmed: the
// others' servers would load nothing.
//
// A warm that fails (server not installed, start error) is logged and
// otherwise ignored: the first call starts the plugin again and reports
// the failure. Close stops the warms in progress with the plugins.
func (S *Server) Prewarm() {
	S.prewarm.Store(true)
	S.genMu.RLock()
	g := S.gen
	S.genMu.RUnlock()
	if g != nil {
		S.warm(g)
	}
}

// warm warms the languages of g, each once and in its own goroutine: the
// tools of one language share one plugin.
func (S *Server) warm(g *generation) {
	S.warmMu.Lock()
	defer S.warmMu.Unlock()
	if S.ctx.Err() != nil {
		return // closed: a warm now would start a plugin nobody stops
	}
	var langs []string
	warmers := map[string]registry.Warmer{}
	for _, t := range g.tools {
		if w, ok := t.Handler.(registry.Warmer); ok && warmers[t.Language] == nil {
			warmers[t.Language] = w
			langs = append(langs, t.Language)
		}
	}
	if len(langs) == 0 {
		return
	}
	S.warming.Go(func() {
		if g.langs == nil {
			langs = S.used(g, langs)
		}
		for _, lang := range langs {
			// The count is held by this goroutine, so Close's Wait
			// covers these too.
			S.warming.Go(func() { S.warmOne(g, lang, warmers[lang]) })
		}
	})
}

// used keeps the languages detected in g's workspace.
func (S *Server) used(g *generation, langs []string) []string {
	res, err := detect.Detect(S.ctx, g.h.Workspace.Dir(), g.h.Specs.Languages, S.opts.Detect)
	if err != nil {
		S.log.Debug("prewarm: no language detected", "error", err)
		return nil
	}
	found := res.IDs()
	return slices.DeleteFunc(langs, func(l string) bool { return !slices.Contains(found, l) })
}

func (S *Server) warmOne(g *generation, lang string, w registry.Warmer) {
	if S.ctx.Err() != nil || !S.serving(g) {
		return
	}
	start := time.Now()
	S.log.Debug("prewarming", "language", lang)
	err := w.Warm(S.ctx)
	switch {
	case err == nil:
		S.log.Info("prewarmed", "language", lang, "took", time.Since(start).Round(time.Millisecond))
	case S.ctx.Err() != nil || !S.serving(g):
		// Stopping, or a reload replaced g and closes its plugins.
		S.log.Debug("prewarm stopped", "language", lang, "error", err)
	default:
		S.log.Warn("prewarm failed; the first call will start it again", "language", lang, "error", err)
	}
}

// serving reports whether g is the served generation.
func (S *Server) serving(g *generation) bool {
	S.genMu.RLock()
	defer S.genMu.RUnlock()
	return S.gen == g
}
