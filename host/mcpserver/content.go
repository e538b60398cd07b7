package mcpserver

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/langhost/langhost/host/prereqs"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/prompts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PrerequisitesURI is the resource holding the prerequisites document.
const PrerequisitesURI = "langhost://prerequisites.md"

// PromptName is the MCP prompt of a language's coding prompt.
func PromptName(lang string) string { return lang + "-coding" }

// LanguageURI is the resource summarising a language's spec.
func LanguageURI(lang string) string { return "langhost://languages/" + url.PathEscape(lang) + ".md" }

// LanguagePromptURI is the resource holding a language's coding prompt.
func LanguagePromptURI(lang string) string {
	return "langhost://prompts/" + url.PathEscape(PromptName(lang)) + ".md"
}

// languages are the specs the server covers: the served languages
// (named, or detected in the workspace), or all.
func (s *server) languages() []*spec.File {
	var out []*spec.File
	for _, f := range s.h.Specs.Languages {
		if s.langs == nil || slices.Contains(s.langs, f.Language.ID) {
			out = append(out, f)
		}
	}
	return out
}

// setPromptsAndResources serves g's prompts and resources, removing those
// of old that g lacks.
func (srv *Server) setPromptsAndResources(old, g *generation) {
	if old != nil {
		keep := map[string]bool{}
		for _, f := range g.languages() {
			keep[f.Language.ID] = true
		}
		var prompts, uris []string
		for _, f := range old.languages() {
			if !keep[f.Language.ID] {
				prompts = append(prompts, PromptName(f.Language.ID))
				uris = append(uris, LanguageURI(f.Language.ID), LanguagePromptURI(f.Language.ID))
			}
		}
		if len(prompts) > 0 {
			srv.mcp.RemovePrompts(prompts...)
			srv.mcp.RemoveResources(uris...)
		}
	}
	g.addPrompts(srv.mcp)
	g.addRolePrompts(srv.mcp)
	g.addResources(srv.mcp)
}

// toolsOf returns the served tools of a language.
func (s *server) toolsOf(lang string) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range s.tools {
		if t.Language == lang {
			out = append(out, t)
		}
	}
	return out
}

func (s *server) addPrompts(srv *mcp.Server) {
	for _, f := range s.languages() {
		name := f.Language.Name
		if name == "" {
			name = f.Language.ID
		}
		srv.AddPrompt(&mcp.Prompt{
			Name:        PromptName(f.Language.ID),
			Title:       name + " coding",
			Description: fmt.Sprintf("Work on %s code with langhost's %s tools: workflow, tools, best practices, syntax reminders, project structure.", name, f.Language.ID),
			Arguments: []*mcp.PromptArgument{{
				Name: "task", Title: "Task", Description: "what to do; inserted as the objective",
			}},
		}, s.promptHandler(f))
	}
}

func (s *server) promptHandler(f *spec.File) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text, err := s.codingPrompt(f, req.Params.Arguments["task"])
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{
			Description: "Coding prompt for " + f.Language.ID,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
		}, nil
	}
}

// codingPrompt is a language's coding prompt with the served tools,
// named as the client knows them.
func (s *server) codingPrompt(f *spec.File, task string) (string, error) {
	tools := s.toolsOf(f.Language.ID)
	text, err := prompts.Compose(f, tools, task)
	if err != nil {
		return "", fmt.Errorf("prompt %s: %w", PromptName(f.Language.ID), err)
	}
	return mcpNames(text, tools), nil
}

func (s *server) addResources(srv *mcp.Server) {
	langs := s.languages()
	srv.AddResource(&mcp.Resource{
		URI:         PrerequisitesURI,
		Name:        "prerequisites.md",
		Title:       "Tool prerequisites",
		Description: "Which executables each language's tools run, with their command lines and install hints.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		ids := make([]string, len(langs))
		for i, f := range langs {
			ids[i] = f.Language.ID
		}
		collected, err := prereqs.Collect(s.h.Specs, ids)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		if err := prereqs.Markdown(&b, collected); err != nil {
			return nil, err
		}
		return markdown(req.Params.URI, b.String()), nil
	})
	for _, f := range langs {
		srv.AddResource(&mcp.Resource{
			URI:         LanguageURI(f.Language.ID),
			Name:        f.Language.ID + ".md",
			Title:       "Language " + f.Language.ID,
			Description: "Summary of the " + f.Language.ID + " language spec: files, tools and their command lines.",
			MIMEType:    "text/markdown",
		}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return markdown(req.Params.URI, s.languageSummary(f)), nil
		})
		srv.AddResource(&mcp.Resource{
			URI:         LanguagePromptURI(f.Language.ID),
			Name:        PromptName(f.Language.ID) + ".md",
			Title:       "Prompt " + PromptName(f.Language.ID),
			Description: "The " + f.Language.ID + " coding prompt (prompt " + PromptName(f.Language.ID) + " without a task): workflow, tools, best practices.",
			MIMEType:    "text/markdown",
		}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := s.codingPrompt(f, "")
			if err != nil {
				return nil, err
			}
			return markdown(req.Params.URI, text), nil
		})
	}
}

func markdown(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}
}

// languageSummary renders what an agent needs to know about a spec
// without reading the YAML.
func (s *server) languageSummary(f *spec.File) string {
	var b strings.Builder
	name := f.Language.Name
	if name == "" {
		name = f.Language.ID
	}
	fmt.Fprintf(&b, "# %s (`%s`)\n\nSpec: `%s`\n\n", name, f.Language.ID, f.Source)
	if len(f.Language.Extensions) > 0 {
		fmt.Fprintf(&b, "- Extensions: %s\n", strings.Join(f.Language.Extensions, ", "))
	}
	if len(f.Language.ProjectFiles) > 0 {
		fmt.Fprintf(&b, "- Project files: %s\n", strings.Join(f.Language.ProjectFiles, ", "))
	}
	if f.Semantic != nil {
		fmt.Fprintf(&b, "- Language server: `%s`\n", strings.Join(append([]string{f.Semantic.Preferred().Command}, f.Semantic.Preferred().Args...), " "))
	}
	b.WriteString("\n## Tools\n\n| Tool | Served | Command | Description |\n|---|---|---|---|\n")
	served := s.toolsOf(f.Language.ID)
	for _, t := range s.h.Registry.List() {
		if t.Language != f.Language.ID {
			continue
		}
		status := "yes"
		if !slices.Contains(served, t) {
			status = "no (filtered"
			if t.RequiresConfirmation {
				status += " or needs --allow"
			}
			status += ")"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", toolname.Name(t.ID), status,
			strings.ReplaceAll(strings.Join(t.Command, " "), "|", `\|`), strings.ReplaceAll(t.Description, "|", `\|`))
	}
	return b.String()
}
