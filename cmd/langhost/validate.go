package main

import (
	"fmt"
	"io"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type validateOptions struct {
	f     *factory
	paths []string
}

type validateReport struct {
	Valid    []validSpec      `json:"valid"`
	Problems []spec.Problem   `json:"problems"`
	Files    []spec.FileError `json:"-"`
}

type validSpec struct {
	Language string `json:"language"`
	File     string `json:"file"`
	Tools    int    `json:"tools"`
}

func newValidateCmd(f *factory) *cobra.Command {
	opts := &validateOptions{f: f}
	return &cobra.Command{
		Use:   "validate [FILE|DIR...]",
		Short: "Validate language spec files (default: every spec on the search path)",
		Long: `Validate language specs and report every problem as file:line:col: field: message.
With no arguments, validates every spec langhost would load. Exits 2 when any
spec is invalid.`,
		Example: `  langhost validate
  langhost validate languages/go.yaml languages/python.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return validateRun(cmd, opts)
		},
	}
}

func validateRun(cmd *cobra.Command, opts *validateOptions) error {
	ctx := cmd.Context()
	cfg, err := opts.f.config()
	if err != nil {
		return err
	}
	var sources []spec.Source
	if len(opts.paths) > 0 {
		src, err := spec.PathsSource("args", opts.paths)
		if err != nil {
			return failure.Wrap(failure.NotFound, err, "validate")
		}
		sources = []spec.Source{src}
	} else {
		// The search path, without loading a host: its problems are what
		// this command reports, not warnings.
		ws, err := workspace.New(cfg.Workspace)
		if err != nil {
			return err
		}
		if sources, err = host.Sources(cfg, ws); err != nil {
			return err
		}
	}
	set, err := spec.LoadLanguages(ctx, sources, nil, spec.Limits{MaxSize: cfg.SpecMaxSize})
	if err != nil {
		return failure.Wrap(failure.CodeOf(err), err, "validate")
	}
	rep := validateReport{Valid: []validSpec{}, Problems: []spec.Problem{}}
	for _, l := range set.Languages {
		rep.Valid = append(rep.Valid, validSpec{Language: l.Language.ID, File: l.Source, Tools: len(l.Tools)})
	}
	for _, fe := range set.Problems {
		rep.Problems = append(rep.Problems, fe.Problems...)
	}
	if len(rep.Problems) > 0 {
		err = failure.New(failure.InvalidInput, "%d problem(s) in %d spec file(s)", len(rep.Problems), len(set.Problems))
	}
	return printer{opts.f}.result(commandPath(cmd), rep, err, func(w io.Writer) error {
		for _, p := range rep.Problems {
			fmt.Fprintln(w, p.String())
		}
		for _, v := range rep.Valid {
			fmt.Fprintf(w, "ok  %s (%d tools)  %s\n", v.Language, v.Tools, v.File)
		}
		return nil
	})
}
