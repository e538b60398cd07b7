package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/spf13/cobra"
)

func newTransactionsCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "transactions",
		Aliases: []string{"txn"},
		Short:   "List and show the edit transactions applied to the workspace (see langhost undo)",
		Args:    cobra.NoArgs,
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List the transactions, newest first",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, _ []string) error { return transactionsList(cmd, f) },
		},
		&cobra.Command{
			Use:   "show ID",
			Short: "Show one transaction: its files with their hashes, trace and diagnostics delta (ID may be abbreviated, as in the list)",
			Args:  cobra.ExactArgs(1),
			RunE:  func(cmd *cobra.Command, args []string) error { return transactionsShow(cmd, f, args[0]) },
		},
	)
	return cmd
}

func transactionsList(cmd *cobra.Command, f *factory) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	recs, err := txnlog.List(cfg.Workspace)
	if err != nil {
		return printer{f}.result(commandPath(cmd), nil, err, nil)
	}
	warnWorkspaceRecords(f, cfg.Workspace)
	return printer{f}.result(commandPath(cmd), recs, nil, func(w io.Writer) error {
		if len(recs) == 0 {
			_, err := fmt.Fprintln(w, "no transactions recorded for this workspace")
			return err
		}
		rows := [][]string{{"ID", "TIME", "TOOL", "OPERATION", "FILES", "DELTA", "UNDONE BY"}}
		// IDs are shown by their random part, which every command that
		// takes an ID accepts, as it does a unique prefix.
		for _, r := range recs {
			rows = append(rows, []string{txnlog.ShortID(r.ID), r.Time.Local().Format("2006-01-02 15:04:05"), dash(r.Tool), dash(r.Operation),
				filesSummary(r.Files), deltaSummary(r.Delta), dash(shortIDOrEmpty(r.UndoneBy))})
		}
		return f.table(w, rows)
	})
}

func transactionsShow(cmd *cobra.Command, f *factory, id string) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	rec, err := txnlog.Load(cfg.Workspace, id)
	if err != nil {
		return printer{f}.result(commandPath(cmd), nil, err, nil)
	}
	return printer{f}.result(commandPath(cmd), rec, nil, func(w io.Writer) error {
		var b strings.Builder
		fmt.Fprintf(&b, "id:         %s\nseq:        %d\ntime:       %s\ntool:       %s\noperation:  %s\n",
			rec.ID, rec.Seq, rec.Time.Local().Format("2006-01-02 15:04:05"), oneLine(dash(rec.Tool)), oneLine(dash(rec.Operation)))
		if rec.Undoes != "" {
			fmt.Fprintf(&b, "undoes:     %s\n", rec.Undoes)
		}
		if rec.UndoneBy != "" {
			fmt.Fprintf(&b, "undone by:  %s\n", rec.UndoneBy)
		}
		b.WriteString("files:\n")
		for _, file := range rec.Files {
			fmt.Fprintf(&b, "  %s  %s -> %s\n", oneLine(file.Path), hashOrNone(file.Before, "(created)"), hashOrNone(file.After, "(deleted)"))
		}
		if len(rec.Trace) > 0 {
			b.WriteString("trace:\n")
			for _, t := range rec.Trace {
				fmt.Fprintf(&b, "  %s\n", oneLine(t))
			}
		}
		if d := rec.Delta; d != nil {
			fmt.Fprintf(&b, "delta:      %s\n", deltaSummary(d))
			for _, x := range d.New {
				fmt.Fprintf(&b, "  new:   %s\n", oneLine(fmt.Sprint(x)))
			}
			for _, x := range d.Fixed {
				fmt.Fprintf(&b, "  fixed: %s\n", oneLine(fmt.Sprint(x)))
			}
		}
		// Records hold paths, traces and diagnostics that came from a
		// model or a language server: no escape sequence reaches the
		// terminal.
		_, err := io.WriteString(w, printable(b.String()))
		return err
	})
}

// oneLine renders a value of a record on one line of the terminal: a
// newline in a path or a trace must not forge the next field.
func oneLine(s string) string {
	return printable(strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ").Replace(s))
}

// warnWorkspaceRecords tells the user on stderr that the workspace holds
// transaction records of its own, which langhost ignores.
func warnWorkspaceRecords(f *factory, root string) {
	if note := txnlog.WorkspaceRecordsNote(root); note != "" {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", printable(note))
	}
}

func filesSummary(files []txnlog.File) string {
	if len(files) == 0 {
		return "-"
	}
	s := files[0].Path
	if len(files) > 1 {
		s += fmt.Sprintf(" (+%d)", len(files)-1)
	}
	return s
}

func deltaSummary(d *diagnostic.Delta) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("+%d -%d", len(d.New), len(d.Fixed))
}

// hashOrNone shortens a "sha256:<hex>" hash for reading.
func hashOrNone(h, none string) string {
	if h == "" {
		return none
	}
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}

func shortIDOrEmpty(id string) string {
	if id == "" {
		return ""
	}
	return txnlog.ShortID(id)
}
