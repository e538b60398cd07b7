package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/host/detect"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type languagesOptions struct {
	f        *factory
	detected bool
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
	cmd := &cobra.Command{
		Use:   "languages",
		Short: "List the loaded language specs and where each came from",
		Long: `List the loaded language specs and where each came from.

With --detected, list the languages the workspace uses, ranked by their
source files, and why each was chosen (or, for a language with a project
file that was not chosen, why not): the languages langhost mcp serves by
default and whose servers it prewarms (those marked as projects).`,
		Example: `  langhost languages
  langhost languages --detected
  langhost languages --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.detected {
				return languagesDetectedRun(cmd, opts)
			}
			return languagesRun(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.detected, "detected", false, "list the languages the workspace uses and why each was chosen")
	return cmd
}

// languagesDetectedRun prints what detection found in the workspace. It
// writes nothing on stderr: spec problems are `langhost languages`'s to
// report.
func languagesDetectedRun(cmd *cobra.Command, opts *languagesOptions) error {
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	res, err := detect.Detect(cmd.Context(), h.Workspace.Dir(), h.Specs.Languages, detect.Limits{})
	if err != nil {
		err = failure.Wrap(failure.Precondition, err, "detect the workspace's languages")
	}
	return printer{opts.f}.result(commandPath(cmd), res, err, func(w io.Writer) error {
		rows := [][]string{{"LANGUAGE", "FILES", "PROJECT", "WHY"}}
		for _, l := range res.Languages {
			rows = append(rows, []string{l.ID, fmt.Sprint(l.Files), yesNo(l.Project), strings.Join(l.Reasons, "; ")})
		}
		for _, l := range res.Ignored {
			rows = append(rows, []string{l.ID, fmt.Sprint(l.Files), "ignored", strings.Join(l.Reasons, "; ")})
		}
		if len(rows) == 1 {
			_, err := fmt.Fprintf(w, "no language detected in %s\n", h.Workspace.Dir())
			return err
		}
		if err := opts.f.table(w, rows); err != nil {
			return err
		}
		if res.Truncated {
			_, err := fmt.Fprintf(w, "(the walk stopped after %d entries; deeper files were not counted)\n", res.Entries)
			return err
		}
		return nil
	})
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
