package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type schemaOptions struct {
	f    *factory
	kind string
}

// schemaKinds are the schemas generated from Go types; any other kind is
// a tool id, whose output schema is printed.
var schemaKinds = []string{"spec", "envelope", "result"}

func newSchemaCmd(f *factory) *cobra.Command {
	opts := &schemaOptions{f: f}
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Print a JSON Schema: of language spec files (default), of the JSON envelope, of results",
		Long: `Print a JSON Schema, the schema document itself (not wrapped in the JSON
envelope unless --format json or --jq is given), so that it can be saved:

  langhost schema > langhost.schema.json

--kind spec (the default) is the schema of language spec files: point your
editor's YAML language server at it, e.g. with a modeline in each spec:
  # yaml-language-server: $schema=./langhost.schema.json
--kind envelope is the JSON envelope every command prints in JSON mode,
--kind result the data of "langhost run" (the result of every tool), and
--kind <tool-id> the output schema of one tool (for a semantic operation, the
fields its answer adds to the result).`,
		Example: `  langhost schema > langhost.schema.json
  langhost schema --kind envelope
  langhost schema --kind go.find_references`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return schemaRun(cmd, opts) },
	}
	cmd.Flags().StringVar(&opts.kind, "kind", "spec", "spec, envelope, result or a tool id")
	_ = cmd.RegisterFlagCompletionFunc("kind", func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		ids, _ := completeToolIDs(f, cmd, toComplete)
		return append(slices.Clone(schemaKinds), ids...), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func schemaRun(cmd *cobra.Command, opts *schemaOptions) error {
	s, err := opts.schema(cmd)
	if err != nil {
		return err
	}
	return printer{opts.f}.document(commandPath(cmd), s, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	})
}

func (opts *schemaOptions) schema(cmd *cobra.Command) (*jsonschema.Schema, error) {
	switch opts.kind {
	case "spec", "":
		return spec.JSONSchema()
	case "envelope":
		return typeSchema[envelope]("langhost JSON envelope",
			"What every command prints in JSON mode; data is the command's result (for run, see --kind result).")
	case "result":
		return resultSchema()
	}
	_, t, err := opts.f.toolHost(cmd.Context(), opts.kind)
	if err != nil {
		if failure.CodeOf(err) == failure.NotFound && !isToolIDLike(opts.kind) {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "--kind",
				Message: fmt.Sprintf("%q is not spec, envelope, result or a tool id", opts.kind)}
		}
		return nil, err
	}
	if t.OutputSchema == nil {
		return resultSchema()
	}
	return t.OutputSchema, nil
}

// resultSchema is the schema of registry.Result: what run prints as data
// and MCP as structured content.
func resultSchema() (*jsonschema.Schema, error) {
	s, err := typeSchema[registry.Result]("langhost tool result",
		"The result of any tool. A semantic operation's own fields (see langhost schema --kind <tool-id>) appear beside these.")
	if err != nil {
		return nil, err
	}
	delete(s.Properties, "data") // merged into the object, never nested
	s.AdditionalProperties = nil
	return s, nil
}

// typeSchema generates the JSON Schema of T.
func typeSchema[T any](title, description string) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[json.RawMessage](): {},
			reflect.TypeFor[any]():             {},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", reflect.TypeFor[T](), err)
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title, s.Description = title, description
	return s, nil
}

// isToolIDLike reports whether s could be a tool id (lang.name or
// lang_name), so that an unknown one is "not found" with suggestions
// rather than a bad --kind.
func isToolIDLike(s string) bool {
	for _, r := range s {
		if r == '.' || r == '_' {
			return true
		}
	}
	return false
}
