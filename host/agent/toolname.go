package agent

import (
	"encoding/json"
	"fmt"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/toolname"
)

// modelName is the name a tool is offered to a model under, the same as
// over MCP (go.find_references -> go_find_references): both model APIs
// accept only ^[a-zA-Z0-9_-]{1,64}$.
func modelName(id string) string { return toolname.Name(id) }

// toolbox is the set of tools offered to a model in one loop, by the
// names the model calls them.
type toolbox struct {
	byName map[string]*registry.Tool
	defs   []model.ToolDef
	names  []string
}

// newToolbox maps tools to model names. A tool whose name does not fit the
// model APIs, or clashes with another's, is left out and reported in
// skipped: offering it would fail the whole request.
func newToolbox(tools []*registry.Tool) (tb *toolbox, skipped []string) {
	tb = &toolbox{byName: map[string]*registry.Tool{}}
	for _, t := range tools {
		name := modelName(t.ID)
		if !toolname.Valid(name) {
			skipped = append(skipped, fmt.Sprintf("%s: name %q is not a valid tool name", t.ID, name))
			continue
		}
		if other, dup := tb.byName[name]; dup {
			skipped = append(skipped, fmt.Sprintf("%s: name %q is taken by %s", t.ID, name, other.ID))
			continue
		}
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: input schema: %v", t.ID, err))
			continue
		}
		tb.byName[name] = t
		tb.names = append(tb.names, name)
		tb.defs = append(tb.defs, model.ToolDef{Name: name, Description: t.Description, InputSchema: schema})
	}
	return tb, skipped
}

// lookup returns the tool a model called by name. The registry id is
// accepted too: models copy ids from prompts.
func (tb *toolbox) lookup(name string) (*registry.Tool, bool) {
	if t, ok := tb.byName[name]; ok {
		return t, true
	}
	t, ok := tb.byName[modelName(name)]
	return t, ok
}
