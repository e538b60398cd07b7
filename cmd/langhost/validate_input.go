package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

type validateInputOptions struct {
	f     *factory
	id    string
	input string
	pairs []string
}

func newValidateInputCmd(f *factory) *cobra.Command {
	opts := &validateInputOptions{f: f}
	cmd := &cobra.Command{
		Use:   "validate-input <tool-id> [key=value...]",
		Short: "Check a tool input against the tool's schema without running it",
		Example: `  langhost validate-input go.test packages=./... count=1
  langhost validate-input go.build --input '{"packages": "./cmd/..."}'`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: toolArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id, opts.pairs = args[0], args[1:]
			return validateInputRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.input, "input", "", "input as JSON, @file or - for stdin")
	return cmd
}

func validateInputRun(cmd *cobra.Command, opts *validateInputOptions) error {
	_, t, err := opts.f.toolHost(cmd.Context(), opts.id)
	if err != nil {
		return err
	}
	input, err := readInput(t, opts.input, opts.pairs, opts.f.io.In)
	if err != nil {
		return err
	}
	if err := t.ValidateInput(input); err != nil {
		return err
	}
	data := map[string]any{"tool": t.ID, "input": input, "valid": true}
	return printer{opts.f}.result(t.ID, data, nil, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "input is valid for %s\n", t.ID)
		return err
	})
}
