package gate

import (
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

func registryCall(input map[string]any) registry.Call {
	return registry.Call{Input: input, Confirmed: true}
}

// diagnostics are the diagnostics of a gate run with paths relative to
// the copy's root, which compare with the workspace's.
func diagnostics(root string, res *registry.Result) []diagnostic.Diagnostic {
	out := make([]diagnostic.Diagnostic, len(res.Diagnostics))
	for i, d := range res.Diagnostics {
		d.Path = diagnostic.RelPath(root, d.Path)
		out[i] = d
	}
	return out
}
