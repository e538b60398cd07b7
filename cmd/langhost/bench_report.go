package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/bench/reporthtml"
	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type benchReportOptions struct {
	f       *factory
	html    string
	compare string
}

// benchReportResult is what `bench report` prints: the report, and the
// page it wrote.
type benchReportResult struct {
	*bench.Report
	HTML string `json:"html,omitempty"`
}

func newBenchReportCmd(f *factory) *cobra.Command {
	opts := &benchReportOptions{f: f}
	cmd := &cobra.Command{
		Use:   "report [flags] DIR...",
		Short: "Compare the runs of results directories (--format text, markdown or json; --html FILE)",
		Long: `Merge the runs of one or more results directories (local and Slurm runs
alike) and compare them per config: success rate with its 95% Wilson
interval, successes per scenario and config, the distributions of tokens,
wall time and tool calls, and a paired comparison of two configs on the
same scenarios and repeats (wins, losses, ties and the exact McNemar
p-value). --compare names the two configs; by default the first two.

--html FILE also writes the report as one self-contained HTML page with
SVG charts; it loads nothing from the network.`,
		Example: `  langhost bench report .langhost/bench/<id>
  langhost bench report --format markdown /tmp/b >> RESULTS.md
  langhost bench report --html report.html --compare own-compact,own-raw /tmp/local /shared/slurm-results`,
		Args:        cobra.MinimumNArgs(1),
		Annotations: map[string]string{"markdown": "true"},
		RunE:        func(cmd *cobra.Command, args []string) error { return benchReport(cmd, opts, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.html, "html", "", "also write the report as a self-contained HTML page to FILE")
	fl.StringVar(&opts.compare, "compare", "", "the two configs of the paired comparison, as A,B (default the first two)")
	return cmd
}

func benchReport(cmd *cobra.Command, opts *benchReportOptions, args []string) error {
	// markdown is a format of this command only: take it off the flag
	// before the config, which knows json and text, reads it.
	markdown := false
	if fl := cmd.Flags().Lookup("format"); fl != nil && fl.Value.String() == "markdown" {
		markdown = true
		_ = fl.Value.Set("text")
	}
	var a, b string
	if opts.compare != "" {
		var ok bool
		if a, b, ok = strings.Cut(opts.compare, ","); !ok || a == "" || b == "" || strings.Contains(b, ",") {
			return &failure.Error{Code: failure.InvalidInput, Field: "--compare",
				Message: fmt.Sprintf("--compare %q: want two config names as A,B", opts.compare)}
		}
	}
	rep, err := bench.LoadReport(args...)
	if err != nil {
		return err
	}
	if opts.compare != "" {
		if err := rep.Compare(a, b); err != nil {
			return err
		}
	}
	res := &benchReportResult{Report: rep}
	if opts.html != "" {
		var page bytes.Buffer
		if err := reporthtml.Write(&page, rep); err != nil {
			return fmt.Errorf("render the HTML report: %w", err)
		}
		// All of the page or none of it: a reader never sees half.
		if err := atomicfile.WriteFile(opts.html, page.Bytes(), 0o644); err != nil {
			return &failure.Error{Code: failure.Precondition, Field: "--html", Message: fmt.Sprintf("--html: %v", err)}
		}
		res.HTML = opts.html
	}
	return printer{opts.f}.result(commandPath(cmd), res, nil, func(w io.Writer) error {
		var err error
		if markdown {
			err = rep.WriteMarkdown(w)
		} else {
			err = rep.WriteText(w)
		}
		if err == nil && res.HTML != "" {
			_, err = fmt.Fprintf(w, "\nhtml: %s\n", res.HTML)
		}
		return err
	})
}
