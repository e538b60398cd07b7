package main

import (
	"bytes"
	"io"

	"github.com/langhost/langhost/host/prereqs"
	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type prereqsOptions struct {
	f         *factory
	languages []string
	check     bool
	output    string
}

func newPrereqsCmd(f *factory) *cobra.Command {
	opts := &prereqsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "prereqs [LANGUAGE...]",
		Short: "Write the tool prerequisites document (markdown) for all or some languages",
		Long: `Write the prerequisites document: for each language, every tool with its full
command line, purpose, fallback and install hint. With --check, also probe this
machine (executable on PATH, version) and exit 4 when a required tool is missing.`,
		Example: `  langhost prereqs -o TOOL-PREREQUISITES.md
  langhost prereqs --check go python`,
		ValidArgsFunction: languageArgs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.languages = args
			return prereqsRun(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.check, "check", false, "probe this machine for each tool")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write the markdown to this file instead of stdout")
	return cmd
}

func prereqsRun(cmd *cobra.Command, opts *prereqsOptions) error {
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	warnProblems(opts.f, h.Specs.Problems)
	langs, err := prereqs.Collect(h.Specs, opts.languages)
	if err != nil {
		return failure.Wrap(failure.NotFound, err, "prereqs")
	}
	var checkErr error
	if opts.check && !(prereqs.Prober{}).Check(cmd.Context(), h.Specs, langs) {
		checkErr = failure.New(failure.Precondition, "some required tools are not installed")
	}
	var md bytes.Buffer
	if err := prereqs.Markdown(&md, langs); err != nil {
		return err
	}
	if opts.output != "" {
		if err := atomicfile.WriteFile(opts.output, md.Bytes(), 0o644); err != nil {
			return failure.Wrap(failure.Internal, err, "write %s", opts.output)
		}
	}
	data := map[string]any{"languages": langs, "markdown": md.String()}
	return printer{opts.f}.result(commandPath(cmd), data, checkErr, func(w io.Writer) error {
		if opts.output != "" {
			return nil
		}
		_, err := w.Write(md.Bytes())
		return err
	})
}
