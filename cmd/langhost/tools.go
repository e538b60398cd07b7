package main

import "github.com/spf13/cobra"

func newToolsCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List and describe registered tools",
	}
	cmd.AddCommand(newToolsListCmd(f), newToolsDescribeCmd(f))
	return cmd
}
