package main

import (
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/spf13/cobra"
)

func newRedoCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "redo",
		Short: "Apply again the edit the newest undo restored",
		Long: "Undo the newest `langhost undo` that is not redone already and whose files still hold\n" +
			"what it restored, which applies the edit it undid again; otherwise nothing is written\n" +
			"and the files that changed are named (exit 4). The redo is a transaction too:\n" +
			"`langhost undo` undoes it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return redoRun(cmd, f) },
	}
}

func redoRun(cmd *cobra.Command, f *factory) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	rec, err := txnlog.Redo(cmd.Context(), cfg.Workspace)
	if err != nil {
		return printer{f}.result(commandPath(cmd), nil, err, nil)
	}
	return printUndo(cmd, f, rec)
}
