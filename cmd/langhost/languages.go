package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

type languagesOptions struct {
	f *factory
}

type languageInfo struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Extensions []string `json:"extensions"`
	Tools      []string `json:"tools"`
	Semantic   string   `json:"semantic,omitempty"` // language server command
	Source     string   `json:"source"`
	Replaced   []string `json:"replaced,omitempty"` // earlier specs this one replaced
}

func newLanguagesCmd(f *factory) *cobra.Command {
	opts := &languagesOptions{f: f}
	return &cobra.Command{
		Use:   "languages",
		Short: "List the loaded language specs and where each came from",
		Example: `  langhost languages
  langhost languages --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return languagesRun(cmd, opts) },
	}
}

func languagesRun(cmd *cobra.Command, opts *languagesOptions) error {
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	var list []languageInfo
	for _, l := range h.Specs.Languages {
		info := languageInfo{ID: l.Language.ID, Name: l.Language.Name, Extensions: l.Language.Extensions,
			Source: l.Source, Replaced: h.Specs.Replaced[l.Language.ID], Tools: []string{}}
		for _, key := range l.ToolOrder {
			info.Tools = append(info.Tools, l.Tools[key].ID)
		}
		if l.Semantic != nil {
			info.Semantic = l.Semantic.Preferred().Command
		}
		list = append(list, info)
	}
	warnProblems(opts.f, h.Specs.Problems)
	return printer{opts.f}.result(commandPath(cmd), list, nil, func(w io.Writer) error {
		rows := [][]string{{"ID", "NAME", "TOOLS", "SERVER", "SOURCE"}}
		for _, l := range list {
			rows = append(rows, []string{l.ID, l.Name, fmt.Sprint(len(l.Tools)), dash(l.Semantic), l.Source})
		}
		return opts.f.table(w, rows)
	})
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func joinOrDash(list []string) string {
	if len(list) == 0 {
		return "-"
	}
	return strings.Join(list, ",")
}
