package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client sends every tool definition to its model before the first
// question, so definitions are kept lean: the first sentence of each
// description, input schemas without what a model does not need, and no
// output schemas unless asked for (Options.OutputSchemas). Results carry
// structuredContent either way; the SDK checks it against an output schema
// only when the tool declares one.

// maxPropertyDescription caps an input property's description.
const maxPropertyDescription = 160

// mcpTool describes t to MCP clients of a workspace the user trusts or not.
func mcpTool(t *registry.Tool, withOutput, trusted bool) (*mcp.Tool, error) {
	name := toolname.Name(t.ID)
	if !toolname.Valid(name) {
		return nil, fmt.Errorf("MCP name %q is not valid", name)
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
	lean, err := leanSchema(withDetail(t, withMCPDefaults(t, in)))
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	desc := sentence(firstSentence(t.Description))
	if desc == "" && len(t.Command) > 0 {
		desc = "Runs `" + strings.Join(t.Command, " ") + "`."
	}
	openWorld := strings.Contains(t.SideEffects, "external")
	// A client asks its user before a destructive call (MCP conventions
	// in DESIGN.md): every tool that changes the workspace's files says so.
	destructive := !t.ReadOnly && (t.RequiresConfirmation || transactional(t))
	readOnly := t.ReadOnly
	if t.WorkspaceCode != "" && !trusted {
		// Calling it runs the workspace's code, so the client's approval
		// is the user's consent (SECURITY.md): no client may take it for
		// read-only and call it unasked, and the model and the user read
		// what will run.
		readOnly = false
		desc = strings.TrimSpace(desc + " " + WorkspaceCodeClause(t))
	}
	mt := &mcp.Tool{
		Name:        name,
		Description: desc,
		InputSchema: lean,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    readOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
	if withOutput {
		mt.Title = t.Name
		mt.Annotations.Title = t.Name
		mt.OutputSchema = outputSchema(t)
	}
	return mt, nil
}

// WorkspaceCodeClause is the sentence a tool's description gets in an
// untrusted workspace when the tool runs the workspace's code.
func WorkspaceCodeClause(t *registry.Tool) string {
	return "Runs code this untrusted workspace controls: " + strings.TrimSuffix(t.WorkspaceCode, ".") + "."
}

// sentence ends s with a full stop, so a clause appended to it reads as
// a sentence of its own.
func sentence(s string) string {
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// firstSentence returns the first sentence of a description: up to the
// first ". " (or ".\n") that ends a sentence, not an abbreviation such as
// "e.g. ".
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '.' || s[i+1] != ' ' {
			continue
		}
		word := s[strings.LastIndexByte(s[:i], ' ')+1 : i+1]
		switch strings.ToLower(word) {
		case "e.g.", "i.e.", "etc.", "vs.", "cf.":
			continue
		}
		if i+2 < len(s) && !unicode.IsUpper(rune(s[i+2])) && s[i+2] != '`' {
			continue
		}
		return s[:i+1]
	}
	return s
}

// leanSchema returns a copy of in, as generic JSON, without titles,
// "$schema"/"$id", "additionalProperties": false (the server refuses
// unknown keys with an error naming them anyway) and with each property's
// description cut to its first sentence.
func leanSchema(in *jsonschema.Schema) (map[string]any, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	trim(m)
	return m, nil
}

func trim(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "$schema")
		delete(v, "$id")
		if b, ok := v["additionalProperties"].(bool); ok && !b {
			delete(v, "additionalProperties")
		}
		if d, ok := v["description"].(string); ok {
			d = firstSentence(d)
			if len(d) > maxPropertyDescription {
				d = d[:maxPropertyDescription-3] + "..."
			}
			v["description"] = d
		}
		if props, ok := v["properties"].(map[string]any); ok {
			for _, p := range props {
				if pm, ok := p.(map[string]any); ok {
					delete(pm, "title")
				}
				trim(p)
			}
		}
		for _, k := range []string{"items", "$defs", "anyOf", "oneOf", "allOf"} {
			switch sub := v[k].(type) {
			case map[string]any:
				if k == "$defs" {
					for _, d := range sub {
						trim(d)
					}
				} else {
					trim(sub)
				}
			case []any:
				for _, e := range sub {
					trim(e)
				}
			}
		}
	}
}

// sameTool reports whether two definitions are the same to a client.
func sameTool(a, b *mcp.Tool) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
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
// error object on failure and, for edit previews, preview_id. Every
// registered tool's OutputSchema describes the whole result; a tool
// without one gets the generic result schema.
func outputSchema(t *registry.Tool) *jsonschema.Schema {
	s := *genericResultSchema()
	if t.OutputSchema != nil && t.OutputSchema.Type == "object" {
		s = *t.OutputSchema
	}
	props := make(map[string]*jsonschema.Schema, len(s.Properties)+2)
	for k, v := range s.Properties {
		props[k] = v
	}
	props["error"] = errorSchema
	if offersPreview(t) {
		props[previewIDKey] = &jsonschema.Schema{Type: "string", Description: "id of this preview for langhost_apply"}
	}
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
			"exit_code":   {Type: "integer"},
			"duration_ms": {Type: "number"},
			"command":     {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
			"stdout":      {Type: "string"},
			"stderr":      {Type: "string"},
			"outputs":     {Type: "object"},
			"diagnostics": {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
			"data":        {Description: "the operation's result"},
		},
	}
}
