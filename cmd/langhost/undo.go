package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/spf13/cobra"
)

// undoResult is the data of `langhost undo`.
type undoResult struct {
	Undone string         `json:"undone"` // id of the transaction undone
	Undo   *txnlog.Record `json:"undo"`   // the record of the undo itself
}

func newUndoCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "undo [ID]",
		Short: "Restore the files of an applied edit transaction (the newest not undone by default)",
		Long: "Restore the content the files of a transaction had before it, if every file still holds\n" +
			"what the transaction wrote; otherwise nothing is written and the files that changed are\n" +
			"named (exit 4). The undo is itself a transaction: undoing it redoes the edit.\n" +
			"`langhost transactions list` shows the ids.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			return undoRun(cmd, f, id)
		},
	}
}

func undoRun(cmd *cobra.Command, f *factory, id string) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	rec, err := txnlog.Undo(cmd.Context(), cfg.Workspace, id)
	if err != nil {
		return printer{f}.result(commandPath(cmd), nil, err, nil)
	}
	res := undoResult{Undone: id, Undo: rec}
	if len(rec.Trace) > 0 {
		res.Undone = strings.TrimPrefix(rec.Trace[0], "undo ")
	}
	return printer{f}.result(commandPath(cmd), res, nil, func(w io.Writer) error {
		paths := make([]string, len(rec.Files))
		for i, file := range rec.Files {
			paths[i] = file.Path
		}
		_, err := fmt.Fprintf(w, "undid %s (%s): restored %s\nrecorded as %s (langhost undo %s redoes it)\n",
			res.Undone, rec.Tool, strings.Join(paths, ", "), rec.ID, rec.ID)
		return err
	})
}
