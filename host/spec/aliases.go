package spec

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// maxAliasNodes bounds how many nodes aliases may add to a spec when they
// are expanded. Every later step (the structure walk, decoding) expands
// them, so a few kilobytes of nested aliases ("billion laughs") would
// otherwise cost minutes and gigabytes. A spec reusing a block of settings
// through an anchor adds tens of nodes per alias.
const maxAliasNodes = 10_000

// checkAliases returns the alias at which the expansion of doc's aliases
// exceeds maxAliasNodes, or an alias whose anchor contains it (a cycle that
// no expansion can finish), with a message saying which; nil if neither.
// It visits every node once.
func checkAliases(doc *yaml.Node) (*yaml.Node, string) {
	c := aliasCheck{sizes: map[*yaml.Node]int{}, active: map[*yaml.Node]bool{}}
	total := 0
	var bad *yaml.Node
	var msg string
	var walk func(n *yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		if n.Kind == yaml.AliasNode {
			size, cyclic := c.size(n.Alias)
			if cyclic {
				bad, msg = n, fmt.Sprintf("alias *%s refers to an anchor that contains it", n.Value)
				return false
			}
			if total += size; total > maxAliasNodes {
				bad, msg = n, fmt.Sprintf("aliases expand to more than %d nodes (at alias *%s); a spec needs no large aliases: write the values out", maxAliasNodes, n.Value)
				return false
			}
			return true
		}
		for _, child := range n.Content {
			if !walk(child) {
				return false
			}
		}
		return true
	}
	walk(doc)
	return bad, msg
}

type aliasCheck struct {
	sizes  map[*yaml.Node]int  // expanded size of a node, at most maxAliasNodes+1
	active map[*yaml.Node]bool // nodes being sized, to find cycles
}

// size returns the number of nodes n stands for once its aliases are
// expanded, capped just above the budget so that sums cannot overflow.
func (c *aliasCheck) size(n *yaml.Node) (size int, cyclic bool) {
	if n == nil {
		return 0, false // an alias yaml.v3 could not resolve fails parsing
	}
	if s, ok := c.sizes[n]; ok {
		return s, false
	}
	if c.active[n] {
		return 0, true
	}
	c.active[n] = true
	defer delete(c.active, n)
	size = 1
	for _, child := range n.Content {
		if child.Kind == yaml.AliasNode {
			child = child.Alias
		}
		s, cyclic := c.size(child)
		if cyclic {
			return 0, true
		}
		size = min(size+s, maxAliasNodes+1)
	}
	c.sizes[n] = size
	return size, false
}
