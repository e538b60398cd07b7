package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/prompts"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RolePromptName is the MCP prompt of a role: the system prompt an agent
// in that role gets. One prompt per role, with the language an argument,
// keeps the prompt list as long as the role list whatever the number of
// served languages.
func RolePromptName(role string) string { return "role-" + role }

// maxArgEcho bounds how much of a bad argument an error repeats.
const maxArgEcho = 64

// addRolePrompts serves a prompt per role. The language argument is
// required only when more than one language is served: with one, a
// client can run the prompt without asking the user anything.
func (s *server) addRolePrompts(srv *mcp.Server) {
	if s.opts.Roles == nil {
		return
	}
	langs := s.languages()
	ids := make([]string, len(langs))
	for i, f := range langs {
		ids[i] = f.Language.ID
	}
	taken := map[string]bool{}
	for _, f := range langs {
		taken[PromptName(f.Language.ID)] = true
	}
	for _, r := range s.opts.Roles.List() {
		name := RolePromptName(r.Name)
		if taken[name] {
			s.log.Warn("role prompt not served: a language prompt has its name", "role", r.Name, "prompt", name)
			continue
		}
		desc := "Language: one of " + strings.Join(ids, ", ") + "."
		switch len(ids) {
		case 0:
			desc = "No language is served: the prompt has no language layer."
		case 1:
			desc = "Language: " + ids[0] + " (the only one served; the default)."
		}
		srv.AddPrompt(&mcp.Prompt{
			Name:  name,
			Title: "Role " + r.Name,
			Description: fmt.Sprintf("System prompt of the %s role (%s): its rules and constraints, and the tools it may call.",
				r.Name, r.Description),
			Arguments: []*mcp.PromptArgument{
				{Name: "language", Title: "Language", Description: desc, Required: len(ids) > 1},
				{Name: "task", Title: "Task", Description: "what to do; inserted as the objective"},
			},
		}, s.rolePromptHandler(r))
	}
}

func (s *server) rolePromptHandler(r *roles.Role) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		f, err := s.promptLanguage(req.Params.Arguments["language"])
		if err != nil {
			return nil, err
		}
		opts := prompts.Options{Role: r, Task: req.Params.Arguments["task"], Workspace: s.h.Workspace, UserDir: s.opts.PromptsDir}
		lang := "no language"
		if f != nil {
			lang = f.Language.ID
			opts.Language, opts.Tools = f, s.toolsOf(f.Language.ID)
		}
		text, err := prompts.System(opts)
		if err != nil {
			return nil, fmt.Errorf("role prompt %s: %w", r.Name, err)
		}
		return &mcp.GetPromptResult{
			Description: fmt.Sprintf("System prompt of the %s role for %s", r.Name, lang),
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: mcpNames(text, opts.Tools)}}},
		}, nil
	}
}

// promptLanguage returns the served language a prompt asks for: the
// argument, or the only served language when it is empty. Nil when no
// language is served and none was asked for.
func (s *server) promptLanguage(id string) (*spec.File, error) {
	langs := s.languages()
	ids := make([]string, len(langs))
	for i, f := range langs {
		if f.Language.ID == id {
			return f, nil
		}
		ids[i] = f.Language.ID
	}
	switch {
	case id == "" && len(langs) == 1:
		return langs[0], nil
	case id == "" && len(langs) == 0:
		return nil, nil
	case id == "":
		return nil, invalidParams("argument language is required: one of %s", strings.Join(ids, ", "))
	}
	shown := id
	if len(shown) > maxArgEcho {
		shown = shown[:maxArgEcho] + "..."
	}
	msg := fmt.Sprintf("argument language: %q is not served (served: %s)", shown, strings.Join(ids, ", "))
	if len(ids) == 0 {
		msg = fmt.Sprintf("argument language: %q is not served (no language is)", shown)
	}
	if c := textdist.Ranked(id, ids, 3); len(c) > 0 {
		msg += "; did you mean " + strings.Join(c, ", ") + "?"
	}
	return nil, invalidParams("%s", msg)
}

// invalidParams is the JSON-RPC error for a bad prompt argument, so that
// clients show it as the caller's mistake, not the server's.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// mcpNames rewrites the tool ids quoted in a prompt to their MCP names:
// the client knows the tools by those.
func mcpNames(text string, tools []*registry.Tool) string {
	pairs := make([]string, 0, 2*len(tools))
	for _, t := range tools {
		pairs = append(pairs, "`"+t.ID+"`", "`"+toolname.Name(t.ID)+"`")
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// complete offers the served languages for a prompt's language argument
// (completion/complete), so that a client can show the choices.
func (srv *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/prompt" || p.Argument.Name != "language" {
		return res, nil
	}
	srv.genMu.RLock()
	g := srv.gen
	srv.genMu.RUnlock()
	if g == nil {
		return res, nil
	}
	for _, f := range g.languages() {
		if strings.HasPrefix(f.Language.ID, p.Argument.Value) {
			res.Completion.Values = append(res.Completion.Values, f.Language.ID)
		}
	}
	res.Completion.Total = len(res.Completion.Values)
	return res, nil
}
