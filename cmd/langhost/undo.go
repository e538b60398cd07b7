package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/spf13/cobra"
)

// undoResult is the data of `langhost undo` and `langhost redo`.
type undoResult struct {
	Undone string         `json:"undone"` // id of the transaction undone (for redo: the undo undone)
	Undo   *txnlog.Record `json:"undo"`   // the record of the undo (or redo) itself
}

func newUndoCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "undo [ID]",
		Short: "Restore the files of an applied edit transaction (the newest not undone by default)",
		Long: "Restore the content the files of a transaction had before it, if every file still holds\n" +
			"what the transaction wrote; otherwise nothing is written and the files that changed are\n" +
			"named (exit 4). Without ID, repeated undos walk back through the edits; when every edit\n" +
			"is undone, undo writes nothing and says what `langhost redo` would redo (exit 3).\n" +
			"The undo is itself a transaction: `langhost redo` (or undo with its ID) redoes the edit.\n" +
			"`langhost transactions list` shows the ids. Records are this user's, kept in the state\n" +
			"directory ($XDG_STATE_HOME/langhost/transactions); records found in the workspace's\n" +
			".langhost/transactions are never undone.",
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
	return printUndo(cmd, f, rec)
}

// printUndo prints the record of an undo or redo.
func printUndo(cmd *cobra.Command, f *factory, rec *txnlog.Record) error {
	res := undoResult{Undone: rec.Undoes, Undo: rec}
	return printer{f}.result(commandPath(cmd), res, nil, func(w io.Writer) error {
		paths := make([]string, len(rec.Files))
		for i, file := range rec.Files {
			paths[i] = file.Path
		}
		verb, next := "undid", "langhost redo (or langhost undo "+rec.ID+") redoes it"
		if rec.Operation == txnlog.RedoOperation {
			verb, next = "redid the edit undone by", "langhost undo undoes it again"
		}
		_, err := fmt.Fprintf(w, "%s %s (%s): restored %s\nrecorded as %s (%s)\n",
			verb, res.Undone, oneLine(rec.Tool), oneLine(strings.Join(paths, ", ")), rec.ID, next)
		return err
	})
}
