package semantic

import (
	"context"
	"fmt"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const maxHierarchyDepth = 5

type typeHierarchyInput struct {
	Target
	Direction string `json:"direction,omitempty" jsonschema:"supertypes, subtypes or both (default both)"`
	Depth     int    `json:"depth,omitempty" jsonschema:"levels to follow, 1-5 (default 1)"`
	Detail    string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *typeHierarchyInput) validate() error {
	switch in.Direction {
	case "", "supertypes", "subtypes", "both":
	default:
		return fieldErr(failure.InvalidInput, "direction", "unknown direction %q (want supertypes, subtypes or both)", in.Direction)
	}
	if in.Depth < 0 || in.Depth > maxHierarchyDepth {
		return fieldErr(failure.InvalidInput, "depth", "must be within 1..%d", maxHierarchyDepth)
	}
	return checkDetail(in.Detail)
}

// HierarchyNode is a type or function in a hierarchy.
type HierarchyNode struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	Loc
	Supertypes hierarchyChildren `json:"supertypes,omitempty"`
	Subtypes   hierarchyChildren `json:"subtypes,omitempty"`
}

// hierarchyChildren and callerChildren are the recursive levels of a
// hierarchy; named types so the schema generator can describe them.
type (
	hierarchyChildren []HierarchyNode
	callerChildren    []Caller
)

type typeHierarchyOutput struct {
	Root HierarchyNode `json:"root"`
	Coverage
}

func (c *call) node(it lsp.HierarchyItem, detail string) HierarchyNode {
	n := HierarchyNode{Name: it.Name, Kind: it.Kind.String(), Loc: c.loc(it.URI, it.SelectionRange, detail)}
	if detail != detailCompact {
		n.Detail = it.Detail
	}
	return n
}

func itemKey(it lsp.HierarchyItem) string {
	return fmt.Sprintf("%s#%v", it.URI, it.SelectionRange)
}

func typeHierarchy(ctx context.Context, c *call, in *typeHierarchyInput) (*typeHierarchyOutput, error) {
	if err := c.s.require("typeHierarchyProvider", "textDocument/prepareTypeHierarchy"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	var items []lsp.HierarchyItem
	if err := c.s.call(ctx, "textDocument/prepareTypeHierarchy", c.docPos(r.doc, r.pos), &items); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fieldErr(failure.NotFound, "symbol", "no type at %s", c.where(r))
	}
	depth := max(in.Depth, 1)
	root := c.node(items[0], in.Detail)
	dir := in.Direction
	if dir == "" || dir == "both" || dir == "supertypes" {
		if root.Supertypes, err = c.typeLevel(ctx, "typeHierarchy/supertypes", items[0], depth, in.Detail, map[string]bool{itemKey(items[0]): true}); err != nil {
			return nil, err
		}
	}
	if dir == "" || dir == "both" || dir == "subtypes" {
		if root.Subtypes, err = c.typeLevel(ctx, "typeHierarchy/subtypes", items[0], depth, in.Detail, map[string]bool{itemKey(items[0]): true}); err != nil {
			return nil, err
		}
	}
	return &typeHierarchyOutput{Root: root}, nil
}

func (c *call) typeLevel(ctx context.Context, method string, it lsp.HierarchyItem, depth int, detail string, seen map[string]bool) (hierarchyChildren, error) {
	var items []lsp.HierarchyItem
	if err := c.s.call(ctx, method, map[string]any{"item": it}, &items); err != nil {
		return nil, err
	}
	nodes := hierarchyChildren{}
	for _, child := range items {
		n := c.node(child, detail)
		key := itemKey(child)
		if depth > 1 && !seen[key] {
			seen[key] = true
			kids, err := c.typeLevel(ctx, method, child, depth-1, detail, seen)
			if err != nil {
				return nil, err
			}
			if method == "typeHierarchy/supertypes" {
				n.Supertypes = kids
			} else {
				n.Subtypes = kids
			}
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// ---- find_callers

type findCallersInput struct {
	Target
	Depth  int    `json:"depth,omitempty" jsonschema:"levels of callers to follow, 1-5 (default 1)"`
	Detail string `json:"detail,omitempty" jsonschema:"output detail: compact, standard (default) or full"`
}

func (in *findCallersInput) validate() error {
	if in.Depth < 0 || in.Depth > maxHierarchyDepth {
		return fieldErr(failure.InvalidInput, "depth", "must be within 1..%d", maxHierarchyDepth)
	}
	return checkDetail(in.Detail)
}

// Caller is a function calling the target, with its call sites.
type Caller struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Detail string `json:"detail,omitempty"`
	Loc
	CallSites []Loc          `json:"call_sites,omitempty"`
	Callers   callerChildren `json:"callers,omitempty"`
}

type findCallersOutput struct {
	Target  HierarchyNode  `json:"target"`
	Callers callerChildren `json:"callers"`
	Coverage
}

func findCallers(ctx context.Context, c *call, in *findCallersInput) (*findCallersOutput, error) {
	if err := c.s.require("callHierarchyProvider", "textDocument/prepareCallHierarchy"); err != nil {
		return nil, err
	}
	r, err := c.resolveTarget(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	var items []lsp.HierarchyItem
	if err := c.s.call(ctx, "textDocument/prepareCallHierarchy", c.docPos(r.doc, r.pos), &items); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fieldErr(failure.NotFound, "symbol", "no function at %s", c.where(r))
	}
	callers, err := c.callers(ctx, items[0], max(in.Depth, 1), in.Detail, map[string]bool{itemKey(items[0]): true})
	if err != nil {
		return nil, err
	}
	return &findCallersOutput{Target: c.node(items[0], in.Detail), Callers: callers}, nil
}

func (c *call) callers(ctx context.Context, it lsp.HierarchyItem, depth int, detail string, seen map[string]bool) (callerChildren, error) {
	var calls []lsp.CallHierarchyIncomingCall
	if err := c.s.call(ctx, "callHierarchy/incomingCalls", map[string]any{"item": it}, &calls); err != nil {
		return nil, err
	}
	out := callerChildren{}
	for _, in := range calls {
		n := c.node(in.From, detail)
		caller := Caller{Name: n.Name, Kind: n.Kind, Detail: n.Detail, Loc: n.Loc}
		if detail != detailCompact {
			for _, r := range in.FromRanges {
				caller.CallSites = append(caller.CallSites, c.loc(in.From.URI, r, detail))
			}
		}
		key := itemKey(in.From)
		if depth > 1 && !seen[key] {
			seen[key] = true
			more, err := c.callers(ctx, in.From, depth-1, detail, seen)
			if err != nil {
				return nil, err
			}
			caller.Callers = more
		}
		out = append(out, caller)
	}
	return out, nil
}
