package main

import (
	"fmt"

	"github.com/langhost/langhost/host/semantictool"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/semantic"
	"github.com/spf13/cobra"
)

// newPluginCmd is the hidden entry point of built-in plugins: the plugin
// manager re-executes langhost as `langhost plugin serve <name>`, so one
// binary carries everything.
func newPluginCmd(_ *factory) *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Hidden: true, Short: "Run a built-in plugin (started by langhost itself)"}
	cmd.AddCommand(&cobra.Command{
		Use:  "serve <name>",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if args[0] != semantictool.BuiltinPlugin {
				return failure.New(failure.NotFound, "no built-in plugin %q (have: %s)", args[0], semantictool.BuiltinPlugin)
			}
			logger := pluginapi.NewLogger(fmt.Sprintf("plugin.%s", args[0]))
			pluginapi.Serve(semantic.New(logger), logger)
			return nil
		},
	})
	return cmd
}
