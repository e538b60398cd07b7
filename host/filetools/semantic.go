package filetools

import (
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/toolpath"
)

// SemanticTool returns the semantic tool (<lang>.edit_file) that a call of
// tool id with input is forwarded to, or "" when it runs through none: a
// tool that reads, undo, input without a valid path, or a file no installed
// language server serves (which a gate tool checks, running a command).
// Callers that run calls elsewhere, like the workspace's daemon, use it to
// send there only the calls that need a warm language server and run
// nothing else.
func SemanticTool(specs *spec.Set, reg *registry.Registry, id string, input map[string]any) string {
	if id != Namespace+".write_file" && id != Namespace+".replace_in_file" {
		return ""
	}
	p, _ := input["path"].(string)
	rel, err := relPath("path", p)
	if err != nil || rel == "." || private(rel) {
		return ""
	}
	ts := &tools{opts: Options{Specs: specs, Registry: reg, LookPath: toolpath.LookPath}}
	return ts.editTool(rel)
}

// editTool returns the semantic tool that checks a write of rel, or "".
func (ts *tools) editTool(rel string) string {
	lang := ts.language(rel)
	if lang == nil {
		return ""
	}
	id := lang.Language.ID + ".edit_file"
	t, err := ts.opts.Registry.Tool(id)
	if err != nil || t.Kind != registry.KindSemantic || !ts.serverInstalled(lang) {
		return ""
	}
	return id
}
