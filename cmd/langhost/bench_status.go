package main

import (
	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/bench/slurm"
	"github.com/spf13/cobra"
)

func newBenchStatusCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status DIR",
		Short: "Show the state of each task of a bench run with --executor slurm: done, running, pending, failed",
		Long: `Show the state of each task of the bench planned in DIR: done (its record
is there), running or pending (Slurm's queue), failed or timed out. A task
Slurm ended without writing its record (cancelled before it started, killed,
past its time limit) gets a failed or timed-out record now.`,
		Example: `  langhost bench status /shared/b
  langhost bench status --format json --jq '.data.pending' /shared/b`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := bench.Status(cmd.Context(), &slurm.Client{}, args[0])
			if err != nil {
				return err
			}
			return printer{f}.result(commandPath(cmd), p, nil, p.WriteText)
		},
	}
	return cmd
}
