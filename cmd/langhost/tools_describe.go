package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/langhost/langhost/host/registry"

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
		Example: `  langhost tools describe go.test
  langhost tools describe go_find_references --format json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: toolArg(f),
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
	deprecated := t.DeprecatedInputs()
	out := describedTool{Tool: t, Confirmation: t.Confirmation(), DeprecatedInputs: deprecated}
	return printer{opts.f}.result(commandPath(cmd), out, nil, func(w io.Writer) error {
		fmt.Fprintf(w, "%s  (%s, %s)\n", t.ID, t.Kind, t.Language)
		if t.Description != "" {
			fmt.Fprintf(w, "  %s\n", t.Description)
		}
		if len(t.Command) > 0 {
			fmt.Fprintf(w, "command:       %s\n", strings.Join(t.Command, " "))
		}
		fmt.Fprintf(w, "side effects:  %s\n", t.SideEffects)
		fmt.Fprintf(w, "confirmation:  %s\n", out.Confirmation)
		fmt.Fprintf(w, "workspace code: %s\n", cmp.Or(t.WorkspaceCode, "none"))
		fmt.Fprintf(w, "failure codes: %s\n", strings.Join(t.FailureCodes, ", "))
		fmt.Fprintf(w, "source:        %s\n", t.Source)
		fmt.Fprintln(w, "inputs:")
		var b strings.Builder
		if err := opts.f.table(&b, inputRows(t.InputSchema)); err != nil {
			return err
		}
		for line := range strings.Lines(b.String()) {
			fmt.Fprint(w, "  "+line)
		}
		for _, old := range slices.Sorted(maps.Keys(deprecated)) {
			fmt.Fprintf(w, "  %s: deprecated spelling of %s, still accepted\n", old, deprecated[old])
		}
		fmt.Fprintf(w, "output schema: langhost schema --kind %s\n", t.ID)
		return nil
	})
}

// describedTool is a tool as tools describe shows it: with the deprecated
// spellings of its inputs (newName for new_name), which it still accepts.
type describedTool struct {
	*registry.Tool
	// Confirmation says when a call needs confirmation (registry's
	// Tool.Confirmation): requiresConfirmation alone is false for an edit
	// tool whose transaction asks for it only to write.
	Confirmation     string            `json:"confirmation"`
	DeprecatedInputs map[string]string `json:"deprecated_inputs,omitempty"`
}

// inputRows lists a tool's inputs, required ones first.
func inputRows(s *jsonschema.Schema) [][]string {
	rows := [][]string{{"NAME", "TYPE", "REQUIRED", "DEFAULT", "DESCRIPTION"}}
	if s == nil {
		return rows
	}
	names := slices.Sorted(maps.Keys(s.Properties))
	slices.SortStableFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	for _, name := range names {
		p := s.Properties[name]
		typ := p.Type
		if typ == "" {
			typ = strings.Join(p.Types, "|")
		}
		if typ == "array" && p.Items != nil && p.Items.Type != "" {
			typ = "array of " + p.Items.Type
		}
		if len(p.Enum) > 0 {
			// A long enum would make the column unreadable; all
			// values are in --format json.
			var vals []string
			for i, e := range p.Enum {
				if i == 5 && len(p.Enum) > 6 {
					vals = append(vals, fmt.Sprintf("… %d more", len(p.Enum)-5))
					break
				}
				vals = append(vals, fmt.Sprint(e))
			}
			typ += " (" + strings.Join(vals, "|") + ")"
		}
		required := ""
		if slices.Contains(s.Required, name) {
			required = "yes"
		}
		def := ""
		if len(p.Default) > 0 {
			def = string(p.Default)
		}
		rows = append(rows, []string{name, dash(typ), required, def, strings.ReplaceAll(p.Description, "\n", " ")})
	}
	return rows
}
