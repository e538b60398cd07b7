package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"

	"github.com/langhost/langhost/host/registry"
	"github.com/spf13/cobra"
)

type toolsListOptions struct {
	f        *factory
	language string
	category string
}

type toolSummary struct {
	ID                   string   `json:"id"`
	Language             string   `json:"language"`
	Kind                 string   `json:"kind"`
	Description          string   `json:"description"`
	Categories           []string `json:"categories"`
	RequiresConfirmation bool     `json:"requiresConfirmation"`
}

func newToolsListCmd(f *factory) *cobra.Command {
	opts := &toolsListOptions{f: f}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List registered tools",
		Example: `  langhost tools list --language go
  langhost tools list --category linting
  langhost tools list --jq '.data[].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return toolsListRun(cmd, opts) },
	}
	cmd.Flags().StringVar(&opts.language, "language", "", "only tools of this language id")
	cmd.Flags().StringVar(&opts.category, "category", "", "only tools in this category")
	_ = cmd.RegisterFlagCompletionFunc("language", languageArgs(f))
	return cmd
}

func toolsListRun(cmd *cobra.Command, opts *toolsListOptions) error {
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	warnProblems(opts.f, h.Specs.Problems)
	if err := knownLanguage(h.Registry, opts.language); err != nil {
		return err
	}
	list := []toolSummary{}
	for _, t := range h.Registry.List() {
		if !matches(t, opts.language, opts.category) {
			continue
		}
		list = append(list, toolSummary{ID: t.ID, Language: t.Language, Kind: t.Kind, Description: t.Description,
			Categories: t.Categories, RequiresConfirmation: t.RequiresConfirmation})
	}
	return printer{opts.f}.result(commandPath(cmd), list, nil, func(w io.Writer) error {
		rows := [][]string{{"ID", "KIND", "CATEGORIES", "CONFIRM", "DESCRIPTION"}}
		for _, t := range list {
			confirm := ""
			if t.RequiresConfirmation {
				confirm = "yes"
			}
			rows = append(rows, []string{t.ID, t.Kind, joinOrDash(t.Categories), confirm, summary(t.Description)})
		}
		return opts.f.table(w, rows)
	})
}

func matches(t *registry.Tool, language, category string) bool {
	return (language == "" || t.Language == language) && (category == "" || slices.Contains(t.Categories, category))
}

// knownLanguage checks a --language filter: an unknown language is not
// found, with suggestions, rather than an empty list.
func knownLanguage(reg *registry.Registry, language string) error {
	if language == "" {
		return nil
	}
	var known []string
	for _, t := range reg.List() {
		if t.Language == language {
			return nil
		}
		if !slices.Contains(known, t.Language) {
			known = append(known, t.Language)
		}
	}
	msg := fmt.Sprintf("unknown language %q", language)
	if s := textdist.Ranked(language, known, 3); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
	}
	return &failure.Error{Code: failure.NotFound, Field: "--language", Message: msg}
}

// summary is the first sentence of a description, whole: the table wraps
// it to the terminal's width rather than cut it mid-sentence; tools
// describe shows the whole text.
func summary(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return desc
}
