package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// maxParseInput bounds the saved output parse reads: far more than any
// tool run keeps (max_output), far less than what would hurt.
const maxParseInput = 64 << 20

type parseOptions struct {
	f        *factory
	id       string
	file     string
	stream   string
	exitCode int
}

func newParseCmd(f *factory) *cobra.Command {
	opts := &parseOptions{f: f}
	cmd := &cobra.Command{
		Use:   "parse <tool-id> [FILE|-]",
		Short: "Run a tool's output parsers on saved output, without running the tool",
		Long: `Run the output parsers a tool's spec declares on saved output (FILE, or
stdin when FILE is - or missing) and print the diagnostics and outputs as
"langhost run" would: to test a parser while writing a spec.

The output is fed to the parsers as the tool's stdout unless --stream stderr;
--exit-code is the exit code the parsers see (exitCode parsers, and the ok
of the result).`,
		Example: `  go vet ./... 2> vet.txt; langhost parse go.vet vet.txt --stream stderr --exit-code 1
  go test -json ./... | langhost parse go.test`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: toolArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			if len(args) > 1 {
				opts.file = args[1]
			}
			return parseRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.stream, "stream", "stdout", "the stream the output came from: stdout or stderr")
	cmd.Flags().IntVar(&opts.exitCode, "exit-code", 0, "the exit code the tool ended with")
	return cmd
}

func parseRun(cmd *cobra.Command, opts *parseOptions) error {
	var stream parsers.Stream
	switch opts.stream {
	case "stdout":
		stream = parsers.Stdout
	case "stderr":
		stream = parsers.Stderr
	default:
		return &failure.Error{Code: failure.InvalidInput, Field: "--stream",
			Message: fmt.Sprintf("%q is not stdout or stderr", opts.stream)}
	}
	h, t, err := opts.f.toolHost(cmd.Context(), opts.id)
	if opts.f.host != nil {
		warnProblems(opts.f, opts.f.host.Specs.Problems)
	}
	if err != nil {
		return err
	}
	st := specTool(h.Specs, t)
	if st == nil {
		return &failure.Error{Code: failure.InvalidInput,
			Message: fmt.Sprintf("%s is a %s tool: only the tools of language specs have output parsers", t.ID, t.Kind)}
	}
	if len(st.Parsers) == 0 {
		return &failure.Error{Code: failure.InvalidInput,
			Message: fmt.Sprintf("%s declares no outputParsers (in %s)", t.ID, t.Source)}
	}
	output, err := readSaved(opts.file, opts.f.io.In)
	if err != nil {
		return err
	}

	run := parsers.NewSet(st.Parsers).Start()
	w := run.Writer(stream)
	if _, err := w.Write(output); err != nil {
		return failure.Wrap(failure.Internal, err, "parse")
	}
	outputs, diags, parseErr := run.Finish(opts.exitCode)
	success := []int{0}
	if len(st.SuccessCodes) > 0 {
		success = st.SuccessCodes
	}
	res := &registry.Result{OK: slices.Contains(success, opts.exitCode), ExitCode: opts.exitCode,
		Outputs: outputs, Diagnostics: diags}
	root := h.Config.Workspace
	exectool.Shape(res, root, root)
	if parseErr != nil {
		// A parser that failed is what the author wants to see; the
		// outputs of the others are still printed.
		parseErr = failure.Wrap(failure.ToolFailed, parseErr, "%s: parse output", t.ID)
	}
	return printer{opts.f}.result(t.ID, res, parseErr, func(w io.Writer) error {
		return printResult(w, opts.f.style(), res, res.OK && parseErr == nil)
	})
}

// specTool finds the spec of a CLI tool.
func specTool(set *spec.Set, t *registry.Tool) *spec.Tool {
	if t.Kind != registry.KindCLI {
		return nil
	}
	f, ok := set.Language(t.Language)
	if !ok {
		return nil
	}
	for _, key := range f.ToolOrder {
		if st := f.Tools[key]; st.ID == t.ID {
			return st
		}
	}
	return nil
}

// readSaved reads saved output from file, or from in for "" and "-",
// bounded by maxParseInput; only a regular file is read (not a FIFO or a
// device that never ends).
func readSaved(file string, in io.Reader) ([]byte, error) {
	var data []byte
	var err error
	name := file
	if file == "" || file == "-" {
		name = "stdin"
		data, err = safefile.ReadAll(in, maxParseInput)
	} else {
		data, err = safefile.ReadRegular(file, maxParseInput)
	}
	var tooLarge *safefile.TooLargeError
	var notRegular *safefile.NotRegularError
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &failure.Error{Code: failure.NotFound, Field: "FILE", Message: fmt.Sprintf("%s does not exist", name), Err: err}
	case errors.As(err, &tooLarge):
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "FILE",
			Message: fmt.Sprintf("%s is larger than %d MiB", name, maxParseInput>>20)}
	case errors.As(err, &notRegular):
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "FILE", Message: name, Err: err}
	}
	return nil, &failure.Error{Code: failure.InvalidInput, Field: "FILE", Message: "read " + name, Err: err}
}
