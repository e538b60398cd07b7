package main

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// The CLI accepts a tool id in both spellings: go.find_references and the
// MCP name go_find_references (MCP clients allow only [a-zA-Z0-9_-] in
// names). The MCP name is the id with its first dot, the one after the
// language id, replaced by "_"; since both language ids and tool keys may
// hold "_", the split is found by asking the registry.

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

// lookupTool finds id in reg in either spelling. found is false when
// nothing matched; an MCP name that matches several tools is ambiguous.
func lookupTool(reg *registry.Registry, id string) (t *registry.Tool, found bool, err error) {
	if reg.Has(id) {
		t, err := reg.Tool(id)
		return t, true, err
	}
	var matches []string
	for _, c := range mcpCandidates(id) {
		if reg.Has(c) {
			matches = append(matches, c)
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
