// Package mcpserver serves langhost's tool registry over the Model Context
// Protocol with the official Go SDK: every registered tool becomes an MCP
// tool, every language's composed coding prompt an MCP prompt, and the
// prerequisites document and language summaries MCP resources.
package mcpserver

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressInterval is how often a running tool call reports
// "running for Ns" when the client asked for progress.
const DefaultProgressInterval = 5 * time.Second

// Options select which tools are served and how calls behave. Filters
// combine with AND.
type Options struct {
	// Languages, if set, keeps only tools of these language ids.
	Languages []string
	// Categories, if set, keeps only tools having one of these categories
	// (case-insensitive).
	Categories []string
	// Tools, if set, keeps only tools whose id matches one of these
	// path.Match globs ("go.build", "go.*").
	Tools []string
	// Allow lists ids or globs of tools that need confirmation and may be
	// served anyway; they run as confirmed. The host config's tools.allow
	// is added to it. Other tools needing confirmation are hidden.
	Allow []string
	// ProgressInterval is the heartbeat period of progress notifications
	// (DefaultProgressInterval if 0).
	ProgressInterval time.Duration
	// Logger receives server and SDK logs; the host's logger if nil. It
	// must not write to stdout when serving stdio.
	Logger hclog.Logger
}

// server is the state behind the MCP handlers.
type server struct {
	h        *host.Host
	opts     Options
	log      hclog.Logger
	tools    []*registry.Tool // served, sorted by id
	interval time.Duration
}

// New builds the MCP server for h. It fails with failure.NotFound for an
// unknown language in opts.Languages and failure.InvalidInput for a bad
// glob; an empty selection is logged, not an error.
func New(h *host.Host, opts Options) (*mcp.Server, error) {
	s, err := newServer(h, opts)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "langhost", Title: "langhost", Version: host.Version},
		&mcp.ServerOptions{
			Instructions: instructions(h),
			Logger:       slogLogger(s.log),
			// No "logging" capability: logs go to stderr, never to the client.
			Capabilities: &mcp.ServerCapabilities{},
		})
	names := map[string]string{}
	for _, t := range s.tools {
		mt, err := mcpTool(t)
		if err != nil {
			s.log.Error("tool not served", "tool", t.ID, "error", err)
			continue
		}
		if other, dup := names[mt.Name]; dup {
			return nil, failure.New(failure.InvalidInput, "tools %s and %s have the same MCP name %q", other, t.ID, mt.Name)
		}
		names[mt.Name] = t.ID
		srv.AddTool(mt, s.handler(t, allowed(s.h, s.opts, t.ID)))
	}
	if len(names) == 0 {
		s.log.Warn("no tools match the filters; serving none", "languages", opts.Languages,
			"categories", opts.Categories, "tools", opts.Tools)
	}
	s.addPrompts(srv)
	s.addResources(srv)
	return srv, nil
}

func newServer(h *host.Host, opts Options) (*server, error) {
	s := &server{h: h, opts: opts, log: opts.Logger, interval: opts.ProgressInterval}
	if s.log == nil {
		s.log = h.Logger
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.interval <= 0 {
		s.interval = DefaultProgressInterval
	}
	tools, err := Select(h, opts)
	if err != nil {
		return nil, err
	}
	s.tools = tools
	return s, nil
}

// Select returns the registry tools New serves for opts, sorted by id.
func Select(h *host.Host, opts Options) ([]*registry.Tool, error) {
	for _, lang := range opts.Languages {
		if _, ok := h.Specs.Language(lang); ok {
			continue
		}
		var ids []string
		for _, f := range h.Specs.Languages {
			ids = append(ids, f.Language.ID)
		}
		e := &failure.Error{Code: failure.NotFound, Field: "language",
			Message: fmt.Sprintf("unknown language %q (loaded: %s)", lang, strings.Join(ids, ", "))}
		if c := textdist.Ranked(lang, ids, 3); len(c) > 0 {
			e.Message += fmt.Sprintf("; did you mean %s?", strings.Join(c, ", "))
			e.Details = map[string]any{"candidates": c}
		}
		return nil, e
	}
	for _, field := range []struct {
		name     string
		patterns []string
	}{{"tools", opts.Tools}, {"allow", opts.Allow}} {
		for _, p := range field.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return nil, &failure.Error{Code: failure.InvalidInput, Field: field.name,
					Message: fmt.Sprintf("bad glob %q", p), Err: err}
			}
		}
	}
	var out []*registry.Tool
	for _, t := range h.Registry.Tools() {
		switch {
		case len(opts.Languages) > 0 && !slices.Contains(opts.Languages, t.Language):
		case len(opts.Categories) > 0 && !hasCategory(t, opts.Categories):
		case len(opts.Tools) > 0 && !matchAny(opts.Tools, t.ID):
		case t.RequiresConfirmation && !allowed(h, opts, t.ID):
		default:
			out = append(out, t)
		}
	}
	return out, nil
}

func hasCategory(t *registry.Tool, want []string) bool {
	for _, c := range t.Categories {
		for _, w := range want {
			if strings.EqualFold(c, w) {
				return true
			}
		}
	}
	return false
}

// matchAny reports whether id matches one of the globs (validated by Select).
// allowed reports whether a tool that needs confirmation may run: --allow
// or the config's tools.allow names it.
func allowed(h *host.Host, opts Options, id string) bool {
	return matchAny(opts.Allow, id) || h.Config.Allows(id)
}

func matchAny(patterns []string, id string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

func instructions(h *host.Host) string {
	return fmt.Sprintf("langhost runs language tools (build, lint, test, format, semantic navigation) "+
		"in the workspace %s. Paths in tool inputs are relative to that root. Results carry "+
		"normalised diagnostics, parsed outputs and the exit code in structuredContent; a failed "+
		"call has isError set and structuredContent.error.code names the failure class. "+
		"Prompts <language>-coding give a language's workflow and conventions.", h.Workspace.Dir())
}

// mcpTool describes t to MCP clients.
func mcpTool(t *registry.Tool) (*mcp.Tool, error) {
	name := ToolName(t.ID)
	if !validName(name) {
		return nil, fmt.Errorf("MCP name %q is longer than 128 characters", name)
	}
	in := t.InputSchema
	if in == nil {
		in = &jsonschema.Schema{Type: "object"}
	}
	if in.Type != "object" {
		if in.Type != "" || len(in.Types) > 0 {
			return nil, fmt.Errorf("input schema has type %q, MCP needs an object", in.Type)
		}
		c := *in
		c.Type = "object"
		in = &c
	}
	in = withMCPDefaults(t, in)
	title := t.Name
	if title == "" {
		title = t.ID
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" && len(t.Command) > 0 {
		desc = "Runs `" + strings.Join(t.Command, " ") + "`."
	}
	openWorld := strings.Contains(t.SideEffects, "external")
	destructive := t.RequiresConfirmation
	return &mcp.Tool{
		Name:         name,
		Title:        title,
		Description:  desc,
		InputSchema:  in,
		OutputSchema: outputSchema(t),
		Annotations: &mcp.ToolAnnotations{
			Title:           title,
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}, nil
}

var errorSchema = &jsonschema.Schema{
	Type:        "object",
	Description: "why the call failed; present only when it did",
	Properties: map[string]*jsonschema.Schema{
		"code":    {Type: "string", Description: "failure class: tool_failed, invalid_input, not_found, precondition_failed, timeout, canceled, internal, ..."},
		"message": {Type: "string"},
		"field":   {Type: "string", Description: "the input key the failure is about, if any"},
		"details": {Type: "object"},
	},
	Required: []string{"code", "message"},
}

// outputSchema describes the structuredContent of t's results: the
// registry result (ok, exitCode, diagnostics, outputs, data, ...) plus an
// error object on failure. Every registered tool's OutputSchema describes
// the whole result; a tool without one gets the generic result schema.
func outputSchema(t *registry.Tool) *jsonschema.Schema {
	s := *genericResultSchema()
	if t.OutputSchema != nil && t.OutputSchema.Type == "object" {
		s = *t.OutputSchema
	}
	props := make(map[string]*jsonschema.Schema, len(s.Properties)+1)
	for k, v := range s.Properties {
		props[k] = v
	}
	props["error"] = errorSchema
	s.Properties = props
	// A failed call may have no exit code or diagnostics (invalid input).
	s.Required = []string{"ok"}
	return &s
}

func genericResultSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"ok":          {Type: "boolean"},
			"exitCode":    {Type: "integer"},
			"durationMs":  {Type: "number"},
			"command":     {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			"stdout":      {Type: "string"},
			"stderr":      {Type: "string"},
			"outputs":     {Type: "object"},
			"diagnostics": {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
			"data":        {Description: "the operation's result"},
		},
	}
}
