package main

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// The CLI accepts a tool id in both spellings: go.find_references and the
// MCP name go_find_references (package toolname: MCP clients allow only
// [a-zA-Z0-9_-]). Since language ids and tool keys may hold "_" too, the
// language of an MCP name is not known before the registry is: the
// prefixes it may have are loaded first, then everything.

// toolLanguages lists the language ids an id may belong to: the part
// before the dot, or, for an MCP name, every prefix ending before a "_".
func toolLanguages(id string) []string {
	if lang, _, ok := strings.Cut(id, "."); ok {
		return []string{lang}
	}
	var langs []string
	for i := range len(id) {
		if id[i] == '_' && i > 0 {
			langs = append(langs, id[:i])
		}
	}
	if langs == nil {
		return []string{id}
	}
	return langs
}

// mcpCandidates are the dotted ids an MCP name may stand for.
func mcpCandidates(id string) []string {
	if strings.Contains(id, ".") {
		return nil
	}
	var out []string
	for i := range len(id) {
		if id[i] == '_' && i > 0 && i < len(id)-1 {
			out = append(out, id[:i]+"."+id[i+1:])
		}
	}
	return out
}

// dotted is the first reading of an MCP name as a dotted id, for "did you
// mean" when nothing matched.
func dotted(id string) string {
	if c := mcpCandidates(id); len(c) > 0 {
		return c[0]
	}
	return id
}

// lookupTool finds id in reg in either spelling (the MCP name is
// toolname.Name of the id). found is false when nothing matched; an MCP
// name that several ids map to ("a_b_c": a.b_c and a_b.c) is ambiguous.
func lookupTool(reg *registry.Registry, id string) (t *registry.Tool, found bool, err error) {
	if reg.Has(id) {
		t, err := reg.Tool(id)
		return t, true, err
	}
	var matches []string
	for _, known := range reg.IDs() {
		if toolname.Name(known) == id {
			matches = append(matches, known)
		}
	}
	switch len(matches) {
	case 0:
		return nil, false, nil
	case 1:
		t, err := reg.Tool(matches[0])
		return t, true, err
	}
	return nil, true, &failure.Error{Code: failure.Ambiguous,
		Message: fmt.Sprintf("tool name %q matches several tools (%s): use the dotted id", id, strings.Join(matches, ", ")),
		Details: map[string]any{"candidates": matches}}
}
