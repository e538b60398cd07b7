package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

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
	markdown  bool
}

func newPrereqsCmd(f *factory) *cobra.Command {
	opts := &prereqsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "prereqs [LANGUAGE...]",
		Short: "Show which tools each language needs, whether this machine has them, and how to install them",
		Long: `Probe this machine for the executables the tools of all or some languages
need (on PATH, version) and show, for each missing one, the command that
installs it, derived from the package URL its spec gives (go install, npm i -g,
apt-get install, dotnet tool install, cargo install, pipx install, rustup
component add) or where to download it, then the list of commands to run.
With --check, exit 4 when a tool is missing.

--format markdown (or -o FILE) writes the prerequisites document instead:
every tool with its full command line, purpose, fallback and install command.`,
		Example: `  langhost prereqs go python
  langhost prereqs --check go
  langhost prereqs --format markdown > TOOL-PREREQUISITES.md
  langhost prereqs -o TOOL-PREREQUISITES.md`,
		ValidArgsFunction: languageArgs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.languages = args
			return prereqsRun(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.check, "check", false, "exit 4 when a tool is missing (and add the status to the markdown)")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write the markdown document to this file")
	return cmd
}

func prereqsRun(cmd *cobra.Command, opts *prereqsOptions) error {
	// markdown is a format of this command only: take it off the flag
	// before the config, which knows json and text, reads it.
	if fl := cmd.Flags().Lookup("format"); fl != nil && fl.Value.String() == "markdown" {
		opts.markdown = true
		_ = fl.Value.Set("")
	}
	h, err := opts.f.loadHost(cmd.Context())
	if err != nil {
		return err
	}
	warnProblems(opts.f, h.Specs.Problems)
	langs, err := prereqs.Collect(h.Specs, opts.languages)
	if err != nil {
		return failure.Wrap(failure.NotFound, err, "prereqs")
	}
	document := opts.markdown || opts.output != ""
	// The document describes the specs, not this machine, unless --check
	// asks for the status too; -o still reports how many tools this
	// machine has, so the probe runs and its status is dropped after.
	var checkErr error
	if !opts.markdown || opts.check {
		if !(prereqs.Prober{}).Check(cmd.Context(), h.Specs, langs) && opts.check {
			checkErr = failure.New(failure.Precondition, "some required tools are not installed")
		}
	}
	available, total := prereqs.Summary(langs)
	missing := prereqs.Missing(langs)
	if checkErr != nil {
		checkErr = &failure.Error{Code: failure.Precondition, Message: fmt.Sprintf("%d of %d tools are not installed", total-available, total),
			Details: map[string]any{"install": missing}}
	}
	if document && !opts.check {
		for i := range langs {
			for j := range langs[i].Tools {
				langs[i].Tools[j].Status = nil
			}
		}
	}
	if document {
		var md bytes.Buffer
		if err := prereqs.Markdown(&md, langs); err != nil {
			return err
		}
		if opts.output != "" {
			if err := atomicfile.WriteFile(opts.output, md.Bytes(), 0o644); err != nil {
				return failure.Wrap(failure.Internal, err, "write %s", opts.output)
			}
		}
		if opts.markdown {
			if _, err := opts.f.io.Out.Write(md.Bytes()); err != nil {
				return err
			}
			if checkErr != nil {
				printTextError(opts.f.io.ErrOut, checkErr)
				fmt.Fprintf(opts.f.io.ErrOut, "missing — run these:\n  %s\n", strings.Join(missing, "\n  "))
				return &reportedError{code: failure.CodeOf(checkErr)}
			}
			return nil
		}
	}
	data := map[string]any{"languages": langs, "available": available, "total": total}
	if len(missing) > 0 {
		data["install"] = missing
	}
	if opts.output != "" {
		data["written"] = opts.output
	}
	return printer{opts.f}.result(commandPath(cmd), data, checkErr, func(w io.Writer) error {
		if opts.output != "" {
			_, err := fmt.Fprintf(w, "wrote %s (%d of %d tools available on this machine)\n", opts.output, available, total)
			return err
		}
		return printPrereqs(w, opts.f.style(), langs, available, total, missing)
	})
}

// printPrereqs writes one row per tool: whether it is available, and for a
// missing one how to install it.
func printPrereqs(w io.Writer, st style, langs []prereqs.Language, available, total int, missing []string) error {
	rows := [][]string{{"LANGUAGE", "TOOL", "EXECUTABLE", "STATUS", "INSTALL"}}
	for _, l := range langs {
		for _, t := range l.Tools {
			status, install, executable := "-", "", t.Command
			if s := t.Status; s != nil {
				if s.Command != "" {
					// The executable that answers, not the one the
					// spec prefers: csharp-ls, not roslyn-language-server.
					executable = s.Command
				}
				switch {
				case !s.Available:
					status = "missing"
					install = installHint(t)
				case s.UsesFallback && !t.Server:
					status = "fallback"
				default:
					status = "ok"
				}
				if s.Version != "" {
					status += " " + s.Version
				}
			}
			rows = append(rows, []string{l.ID, t.ID, executable, status, install})
		}
	}
	err := st.table(w, rows, func(_, col int, cell string) string {
		if col != 3 {
			return cell
		}
		word, rest, found := strings.Cut(cell, " ")
		if found {
			rest = " " + rest
		}
		return st.severity(word) + rest
	})
	if err != nil {
		return err
	}
	if _, err = fmt.Fprintf(w, "\n%d of %d tools available\n", available, total); err != nil || len(missing) == 0 {
		return err
	}
	// One list to copy: the table's install column repeats a command for
	// every tool that needs it.
	_, err = fmt.Fprintf(w, "\nmissing — run these:\n  %s\n", strings.Join(missing, "\n  "))
	return err
}

// installHint is the install command of a missing tool, else what to do
// instead; the package URL is the document's (-o), not the table's.
func installHint(t prereqs.Tool) string {
	switch {
	case t.InstallCommand != "":
		return t.InstallCommand
	case t.InstallNote != "":
		return t.InstallNote
	}
	return "(the spec names no package)"
}
