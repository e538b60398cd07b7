package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

type toolsDescribeOptions struct {
	f  *factory
	id string
}

func newToolsDescribeCmd(f *factory) *cobra.Command {
	opts := &toolsDescribeOptions{f: f}
	return &cobra.Command{
		Use:   "describe <tool-id>",
		Short: "Show a tool's input and output schemas, side effects and failure codes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			return toolsDescribeRun(cmd, opts)
		},
	}
}

func toolsDescribeRun(cmd *cobra.Command, opts *toolsDescribeOptions) error {
	_, t, err := opts.f.toolHost(cmd.Context(), opts.id)
	if err != nil {
		return err
	}
	return printer{opts.f}.result(commandPath(cmd), t, nil, func(w io.Writer) error {
		fmt.Fprintf(w, "%s  (%s, %s)\n", t.ID, t.Kind, t.Language)
		if t.Description != "" {
			fmt.Fprintf(w, "  %s\n", t.Description)
		}
		if len(t.Command) > 0 {
			fmt.Fprintf(w, "command:       %s\n", strings.Join(t.Command, " "))
		}
		fmt.Fprintf(w, "side effects:  %s\n", t.SideEffects)
		fmt.Fprintf(w, "confirmation:  %v\n", t.RequiresConfirmation)
		fmt.Fprintf(w, "failure codes: %s\n", strings.Join(t.FailureCodes, ", "))
		fmt.Fprintf(w, "source:        %s\n", t.Source)
		in, _ := json.MarshalIndent(t.InputSchema, "", "  ")
		fmt.Fprintf(w, "input schema:\n%s\n", in)
		return nil
	})
}
