package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/host/agent"
	"github.com/spf13/cobra"
)

// newAgentsCmd is the old spelling of `agent list`, kept for scripts and
// hidden: commands are named by their singular noun, as gh's are.
func newAgentsCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "agents",
		Short:  "List the Language Specialist agents (now `langhost agent list`)",
		Hidden: true,
	}
	cmd.AddCommand(newAgentListCmd(f))
	return cmd
}

func newAgentListCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List agents: id, capabilities, priority, provider/model, tools",
		Example: `  langhost agent list
  langhost agent list --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := f.loadHost(cmd.Context())
			if err != nil {
				return err
			}
			warnProblems(f, h.Specs.Problems)
			list := agent.Specialists(h.Specs, h.Registry)
			return printer{f}.result(commandPath(cmd), list, nil, func(w io.Writer) error {
				rows := [][]string{{"ID", "PRIORITY", "PROVIDER/MODEL", "MAX STEPS", "TOOLS", "CAPABILITIES"}}
				for _, a := range list {
					rows = append(rows, []string{a.ID, fmt.Sprint(a.Priority), a.Settings.Provider + "/" + a.Settings.Model,
						fmt.Sprint(a.Settings.MaxSteps), fmt.Sprint(len(a.Tools)), strings.Join(a.Capabilities, ",")})
				}
				return f.table(w, rows)
			})
		},
	}
}
