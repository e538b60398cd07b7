package main

import (
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/spf13/cobra"
)

// newPluginCmd is the hidden entry point of built-in plugins: the plugin
// manager re-executes langhost as `langhost plugin serve <name>`, so one
// binary carries everything. The same table (builtin.Agents) describes
// them to the host in-process.
func newPluginCmd(_ *factory) *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Hidden: true, Short: "Run a built-in plugin (started by langhost itself)"}
	cmd.AddCommand(&cobra.Command{
		Use:  "serve <name>",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return builtin.Serve(args[0])
		},
	})
	return cmd
}
