package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnableToolID is the built-in tool that serves the tools of one more
// language: a polyglot repository's main languages are served by default,
// the languages of its test data and examples on request.
const EnableToolID = "langhost.enable_language"

// serveEnable reports whether the server offers langhost_enable_language:
// when it serves a choice of languages (detected or named), not when a
// tool filter or profile all decides the tools whatever the language.
func serveEnable(opts Options) bool {
	// --tools and a user's own profile name their tools; "all" has
	// every language already.
	switch opts.Profile {
	case "", ProfileReadOnly, ProfileEdit:
		return len(opts.Tools) == 0
	}
	return false
}

// notServed returns the loaded languages g does not serve, sorted.
func (g *generation) notServed() []string {
	var out []string
	for _, f := range g.h.Specs.Languages {
		if !slices.Contains(g.langs, f.Language.ID) {
			out = append(out, f.Language.ID)
		}
	}
	slices.Sort(out)
	return out
}

// enableTool describes langhost_enable_language; its language input lists
// the languages it can add.
func enableTool(choices []string) *mcp.Tool {
	openWorld := false
	lang := map[string]any{"type": "string", "description": "language id"}
	if len(choices) > 0 {
		lang["enum"] = choices
	}
	return &mcp.Tool{
		Name: toolname.Name(EnableToolID),
		Description: "Serve the tools of another language (test data, examples or minor languages are not served by default); " +
			"the tool list changes (notifications/tools/list_changed).",
		InputSchema: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"language": lang},
			"required":             []string{"language"},
			"additionalProperties": false,
		},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &openWorld},
	}
}

// enableAnswer is the structured result of langhost_enable_language.
type enableAnswer struct {
	OK       bool     `json:"ok"`
	Language string   `json:"language"`
	Tools    []string `json:"tools"` // the MCP names it added
}

// enableHandler runs langhost_enable_language: the language joins the
// served ones and the served generation is rebuilt on the same host, which
// adds its tools and sends notifications/tools/list_changed.
func (srv *Server) enableHandler() mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Language string `json:"language"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Language == "" {
			return toolResult(EnableToolID, nil, &failure.Error{Code: failure.InvalidInput, Field: "language",
				Message: "language: a language id is required, e.g. {\"language\": \"rust\"}"}), nil
		}
		added, err := srv.enable(in.Language)
		if err != nil {
			return toolResult(EnableToolID, nil, err), nil
		}
		text := fmt.Sprintf("%s is served: %d tools", in.Language, len(added))
		if len(added) == 0 {
			text = in.Language + " was served already"
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: enableAnswer{OK: true, Language: in.Language, Tools: added},
		}, nil
	}
}

// enable adds lang to the served languages and returns the MCP names of
// the tools that are new.
func (srv *Server) enable(lang string) ([]string, error) {
	srv.reloadMu.Lock()
	defer srv.reloadMu.Unlock()
	srv.genMu.RLock()
	cur := srv.gen
	srv.genMu.RUnlock()
	if cur == nil {
		return nil, failure.New(failure.Precondition, "the server is shutting down")
	}
	if _, ok := cur.h.Specs.Language(lang); !ok {
		var ids []string
		for _, f := range cur.h.Specs.Languages {
			ids = append(ids, f.Language.ID)
		}
		e := &failure.Error{Code: failure.NotFound, Field: "language",
			Message: fmt.Sprintf("unknown language %q (loaded: %s)", lang, strings.Join(ids, ", "))}
		if c := textdist.Ranked(lang, ids, 3); len(c) > 0 {
			e.Message += fmt.Sprintf("; did you mean %s?", strings.Join(c, ", "))
		}
		return nil, e
	}
	if slices.Contains(cur.langs, lang) {
		return nil, nil
	}
	srv.enabledMu.Lock()
	srv.enabled = append(srv.enabled, lang)
	srv.enabledMu.Unlock()
	g, err := srv.generation(cur.h)
	if err != nil {
		srv.enabledMu.Lock()
		srv.enabled = slices.DeleteFunc(srv.enabled, func(l string) bool { return l == lang })
		srv.enabledMu.Unlock()
		return nil, err
	}
	var added []string
	for name := range g.defs {
		if _, ok := cur.defs[name]; !ok {
			added = append(added, name)
		}
	}
	slices.Sort(added)
	srv.swap(g)
	srv.log.Info("language enabled", "language", lang, "tools", len(added))
	return added, nil
}

// enabledLanguages returns the languages enabled by langhost_enable_language.
func (srv *Server) enabledLanguages() []string {
	srv.enabledMu.Lock()
	defer srv.enabledMu.Unlock()
	return slices.Clone(srv.enabled)
}

// explainUnknown is a receiving middleware: a call of a tool that is not
// served fails as the SDK's does (invalid params), but says why the tool
// is missing and what serves it, rather than only "unknown tool".
func (srv *Server) explainUnknown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		srv.genMu.RLock()
		g := srv.gen
		srv.genMu.RUnlock()
		if g == nil {
			return next(ctx, method, req)
		}
		if _, served := g.defs[call.Params.Name]; served {
			return next(ctx, method, req)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: g.whyNotServed(srv.opts, call.Params.Name)}
	}
}

// whyNotServed says why the tool called name is not served by g, and what
// would serve it.
func (g *generation) whyNotServed(opts Options, name string) string {
	var t *registry.Tool
	for _, c := range g.h.Registry.List() {
		if toolname.Name(c.ID) == name || c.ID == name {
			t = c
			break
		}
	}
	if t == nil {
		names := make([]string, 0, len(g.defs))
		for n := range g.defs {
			names = append(names, n)
		}
		msg := fmt.Sprintf("unknown tool %q", name)
		if c := textdist.Ranked(name, names, 3); len(c) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", strings.Join(c, ", "))
		}
		return msg
	}
	id, mcpName := t.ID, toolname.Name(t.ID)
	_, ofSpec := g.h.Specs.Language(t.Language)
	switch {
	case ofSpec && g.langs != nil && !slices.Contains(g.langs, t.Language):
		how := fmt.Sprintf("start langhost mcp with --language %s", strings.Join(append(slices.Clone(g.langs), t.Language), ","))
		if _, ok := g.defs[toolname.Name(EnableToolID)]; ok {
			how = fmt.Sprintf("call %s {\"language\": %q} first, or %s", toolname.Name(EnableToolID), t.Language, how)
		}
		return fmt.Sprintf("tool %q is not served: its language %s is not one this workspace is a project of; %s", mcpName, t.Language, how)
	case t.RequiresConfirmation && !confirmed(g.h, opts, t):
		return fmt.Sprintf("tool %q is not served: it writes files in place (no undo), so it is served only when allowed: start langhost mcp with --allow %s, or list %s in tools.allow of your config", mcpName, id, id)
	case opts.Profile != "":
		return fmt.Sprintf("tool %q is not served by profile %q (--profile or the config's mcp.profile); start langhost mcp without it or with --profile all", mcpName, opts.Profile)
	default:
		return fmt.Sprintf("tool %q is not served: --category or --tools leave it out", mcpName)
	}
}
