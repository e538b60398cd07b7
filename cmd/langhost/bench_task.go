package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/bench/slurm"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// stopQueryTimeout bounds the question a stopped Slurm task asks about
// itself: Slurm kills it KillWait (30s by default) after SIGTERM.
const stopQueryTimeout = 5 * time.Second

type benchTaskOptions struct {
	f *factory
}

func newBenchTaskCmd(f *factory) *cobra.Command {
	opts := &benchTaskOptions{f: f}
	cmd := &cobra.Command{
		Use:   "task DIR N",
		Short: "Run task N of the bench planned in DIR (one scenario, config and repeat) and write its record",
		Long: `Run one task of a bench planned in DIR by bench run --executor slurm, and
write its result.json and timeline.jsonl into DIR, as a local run does. This
is what each Slurm array task runs (N is SLURM_ARRAY_TASK_ID); a Kubernetes
Indexed Job (JOB_COMPLETION_INDEX) or a CI matrix can run it the same way.

DIR (with its .bench directory of copied scenarios) and this binary must be
the planned ones: a task refuses to run otherwise. A task runs the plan's
commands and its fixtures' code, so it runs only a plan that bench run
submitted (LANGHOST_BENCH_PLAN, set in the Slurm job, is its digest) or,
for a plan you made with bench run --plan-only, with --trust-workspace. A task whose record is
already there is not run again. SIGTERM (scancel, Slurm's time limit) stops
the run and records it as failed or timed out.`,
		Example: `  langhost bench task /shared/b "$SLURM_ARRAY_TASK_ID"
  langhost bench task --trust-workspace /results "$JOB_COMPLETION_INDEX"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return benchTask(cmd, opts, args[0], args[1]) },
	}
	return cmd
}

// benchTaskResult is what `bench task` prints.
type benchTaskResult struct {
	Task int `json:"task"`
	// Ran is false when the task's record was already there.
	Ran    bool          `json:"ran"`
	Result *bench.Result `json:"result"`
}

func benchTask(cmd *cobra.Command, opts *benchTaskOptions, dir, index string) error {
	f := opts.f
	n, err := strconv.Atoi(index)
	if err != nil || n < 0 {
		return &failure.Error{Code: failure.InvalidInput, Field: "N", Message: fmt.Sprintf("task %q: want the task's index, a number from 0", index)}
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	getenv := func(k string) string { v, _ := f.env(k); return v }
	if !cfg.TrustAll {
		if err := bench.CheckSubmitted(dir, getenv(bench.PlanEnv)); err != nil {
			return err
		}
	}
	ids := bench.SlurmIDs{JobID: getenv("SLURM_JOB_ID"), ArrayJobID: getenv("SLURM_ARRAY_JOB_ID"),
		ArrayTaskID: getenv("SLURM_ARRAY_TASK_ID"), Cluster: getenv("SLURM_CLUSTER_NAME"), Partition: getenv("SLURM_JOB_PARTITION")}
	executor := bench.ExecutorLocal
	if ids.JobID != "" {
		executor = bench.ExecutorSlurm
	}
	// A signal (scancel, the time limit) cancels the command's context and
	// with it the run at once; the record asks Slurm afterwards which of
	// the two it was.
	bopts := bench.Options{OpenHost: benchHost(f, cfg), Getenv: getenv, Logger: f.log().Named("bench"),
		Executor: executor, Slurm: ids, Stopped: func() (string, string) { return stopCause(ids) }}
	r, ran, err := bench.RunTask(cmd.Context(), bopts, dir, n)
	if err != nil && r == nil {
		return err
	}
	res := &benchTaskResult{Task: n, Ran: ran, Result: r}
	var runErr error
	switch {
	case err != nil:
		runErr = err
	case r.Status != bench.StatusFinished:
		runErr = failure.New(failure.Canceled, "task %d (%s) %s: %s", n, r.Run, r.Status, r.Error)
	case !r.Success:
		runErr = failure.New(failure.ToolFailed, "task %d (%s) failed its acceptance checks", n, r.Run)
	}
	return printer{f}.result(commandPath(cmd), res, runErr, func(w io.Writer) error {
		status := "ok"
		if !r.Success {
			status = "FAIL"
		}
		if !ran {
			status += " (recorded earlier)"
		}
		_, err := fmt.Fprintf(w, "%s %s (%s) %.1fs\n", status, r.Run, cmp.Or(r.StopReason, "-"), r.WallMS/1000)
		return err
	})
}

// stopCause says why the task was stopped: Slurm's time limit (its job
// record says TIMEOUT or reason TimeLimit when it sends SIGTERM) or
// anything else (scancel, a signal).
func stopCause(ids bench.SlurmIDs) (status, why string) {
	if ids.JobID == "" {
		return bench.StatusFailed, "the task was stopped by a signal"
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopQueryTimeout)
	defer cancel()
	job, err := (&slurm.Client{}).ShowJob(ctx, ids.JobID)
	if err != nil {
		return bench.StatusFailed, fmt.Sprintf("Slurm stopped the task (its job record could not be read: %v)", err)
	}
	if job["JobState"] == "TIMEOUT" || job["Reason"] == "TimeLimit" {
		return bench.StatusTimedOut, fmt.Sprintf("Slurm's time limit (%s) stopped the task", job["TimeLimit"])
	}
	return bench.StatusFailed, fmt.Sprintf("Slurm stopped the task (JobState %s): cancelled", job["JobState"])
}
