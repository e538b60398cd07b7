package mcpserver

import (
	"time"

	"github.com/langhost/langhost/host/registry"
)

// Prewarm starts, in the background, what the served tools need before
// their first call (registry.Warmer): the plugin and language server of
// every served language with semantic tools, now and after every reload,
// as an editor starts its language servers when a workspace opens. A
// language server takes seconds to load a workspace; the first call then
// finds it ready or loading.
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

// warm warms each language of g once, each in its own goroutine: the
// tools of one language share one plugin.
func (S *Server) warm(g *generation) {
	S.warmMu.Lock()
	defer S.warmMu.Unlock()
	if S.ctx.Err() != nil {
		return // closed: a warm now would start a plugin nobody stops
	}
	seen := map[string]bool{}
	for _, t := range g.tools {
		w, ok := t.Handler.(registry.Warmer)
		if !ok || seen[t.Language] {
			continue
		}
		seen[t.Language] = true
		lang := t.Language
		S.warming.Go(func() {
			start := time.Now()
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
		})
	}
}

// serving reports whether g is the served generation.
func (S *Server) serving(g *generation) bool {
	S.genMu.RLock()
	defer S.genMu.RUnlock()
	return S.gen == g
}
