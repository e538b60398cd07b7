package plugins

import (
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi"
)

// described holds the descriptions one manager has validated or decoded,
// so that the languages served by the same plugin pay for one: every
// language of the built-in semantic agent has the same ~100 KB
// description, and validating it (decoding each operation's schemas) or
// decoding it from the cache was most of a first `tools/list`. The
// descriptions are shared, so callers must not change them.
type described struct {
	mu sync.Mutex
	// bySum maps the SHA-256 of a description's JSON to the description.
	bySum map[string]*pluginapi.Description
	// byBuiltin maps a built-in plugin's name to its description, which
	// does not depend on the language (the agent is not told it).
	byBuiltin map[string]*pluginapi.Description
}

// builtin returns the description of the built-in plugin name, if it was
// described or read from the cache before.
func (c *described) builtin(name string) (*pluginapi.Description, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.byBuiltin[name]
	return d, ok
}

// add records d, checked, and body, its JSON; builtin names its
// built-in plugin, "" for a plugin process (whose description may depend
// on its arguments and environment, so is shared by checksum only).
func (c *described) add(builtin string, body []byte, d *pluginapi.Description) {
	sum := checksum(body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bySum == nil {
		c.bySum = map[string]*pluginapi.Description{}
	}
	c.bySum[sum] = d
	if builtin != "" {
		if c.byBuiltin == nil {
			c.byBuiltin = map[string]*pluginapi.Description{}
		}
		c.byBuiltin[builtin] = d
	}
}

// decoded returns the description whose JSON, body, has the checksum sum:
// the one decoded or validated before, else body decoded now.
func (c *described) decoded(sum string, body []byte) (*pluginapi.Description, error) {
	c.mu.Lock()
	d := c.bySum[sum]
	c.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := decodeBody(body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bySum == nil {
		c.bySum = map[string]*pluginapi.Description{}
	}
	c.bySum[sum] = d
	return d, nil
}
