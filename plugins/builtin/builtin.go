// Package builtin lists the agent plugins compiled into langhost. The
// langhost binary serves each as `langhost plugin serve <name>`, and gives
// the host this table so that it can describe them in-process: the host
// itself imports no agent.
package builtin

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/roslynagent"
	"github.com/langhost/langhost/plugins/semantic"
)

// Agents returns the built-in agents by plugin name: "semantic", the
// language-server bridge of every language, and "roslyn", the
// RoslynCodingAgent of C# (the bridge plus .sln/.csproj operations).
func Agents() map[string]func(hclog.Logger) pluginapi.Agent {
	return map[string]func(hclog.Logger) pluginapi.Agent{
		semantic.Name:    func(l hclog.Logger) pluginapi.Agent { return semantic.New(l) },
		roslynagent.Name: func(l hclog.Logger) pluginapi.Agent { return roslynagent.New(l) },
	}
}

// Serve serves the built-in agent name as a plugin process until the host
// stops it (see pluginapi.Serve). An unknown name is a failure.NotFound
// error.
func Serve(name string) error {
	agents := Agents()
	agent, ok := agents[name]
	if !ok {
		return failure.New(failure.NotFound, "no built-in plugin %q (have: %s)", name,
			strings.Join(slices.Sorted(maps.Keys(agents)), ", "))
	}
	logger := pluginapi.NewLogger(fmt.Sprintf("plugin.%s", name))
	pluginapi.Serve(agent(logger), logger)
	return nil
}
