package main

import (
	"encoding/json"
	"io"

	"github.com/langhost/langhost/host/spec"
	"github.com/spf13/cobra"
)

type schemaOptions struct {
	f *factory
}

func newSchemaCmd(f *factory) *cobra.Command {
	opts := &schemaOptions{f: f}
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of language spec files (for editor validation)",
		Long: `Print the JSON Schema of language spec files. Save it and point your editor's
YAML language server at it, e.g. with a modeline in each spec:
  # yaml-language-server: $schema=./langhost.schema.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return schemaRun(cmd, opts) },
	}
}

func schemaRun(cmd *cobra.Command, opts *schemaOptions) error {
	s, err := spec.JSONSchema()
	if err != nil {
		return err
	}
	return printer{opts.f}.result(commandPath(cmd), s, nil, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	})
}
