package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/host/bench/slurm"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchSlurmFlags are bench run's options of the Slurm executor; the
// first four mirror sbatch's.
type benchSlurmFlags struct {
	partition   string
	time        string
	cpusPerTask int
	mem         string
	sbatchArgs  []string
	exportEnv   []string
	retryFailed bool
	detach      bool
	noNodeGrace time.Duration
	planOnly    bool
}

func (o *benchSlurmFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.partition, "partition", "", "Slurm: partition of the tasks (sbatch --partition; default the cluster's)")
	fl.StringVar(&o.time, "time", "", "Slurm: time limit of each task (sbatch --time, e.g. 30 or 1:00:00); a task past it is recorded as timed out")
	fl.IntVar(&o.cpusPerTask, "cpus-per-task", 0, "Slurm: CPUs of each task (sbatch --cpus-per-task)")
	fl.StringVar(&o.mem, "mem", "", "Slurm: memory of each task (sbatch --mem, e.g. 4G)")
	fl.StringArrayVar(&o.sbatchArgs, "sbatch-arg", nil, "Slurm: a further sbatch argument, passed as given (repeatable), e.g. --sbatch-arg=--qos=short")
	fl.StringArrayVar(&o.exportEnv, "export-env", nil, "Slurm: a further non-secret variable the tasks get from this environment (repeatable)")
	fl.BoolVar(&o.retryFailed, "retry-failed", false, "Slurm: run failed and timed-out tasks again (finished ones are always skipped)")
	fl.BoolVar(&o.detach, "detach", false, "Slurm: return once the job is submitted; follow it with bench status")
	fl.BoolVar(&o.planOnly, "plan-only", false, "write the plan and scenario copies into --out and stop: run its tasks with bench task DIR N (Kubernetes, CI)")
	fl.DurationVar(&o.noNodeGrace, "no-node-timeout", 2*time.Minute, "Slurm: give up waiting when tasks stay queued this long while no node of the partition can start them")
}

// changed returns the name of a Slurm option given on the command line,
// or "".
func (o *benchSlurmFlags) changed(cmd *cobra.Command) string {
	for _, name := range []string{"partition", "time", "cpus-per-task", "mem", "sbatch-arg", "export-env", "retry-failed", "detach", "no-node-timeout"} {
		if cmd.Flags().Changed(name) {
			return name
		}
	}
	return ""
}

// benchSlurmResult is what `bench run --executor slurm` prints.
type benchSlurmResult struct {
	Out       string            `json:"out"`
	Submitted *bench.Submission `json:"submitted"`
	Progress  *bench.Progress   `json:"progress"`
	// Report is the comparison of the records once no task is queued or
	// running (not with --detach).
	Report *bench.Report `json:"report,omitempty"`
}

// benchRunSlurm plans the bench into opts.out, submits the tasks that
// need a run as one job array and, unless --detach, waits for them.
func benchRunSlurm(cmd *cobra.Command, opts *benchRunOptions, scenarios []*bench.Scenario, configs []bench.RunConfig) error {
	f, ctx := opts.f, cmd.Context()
	exe, err := os.Executable()
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "this langhost's executable")
	}
	plan, err := bench.NewPlan(scenarios, configs, opts.repeat, exe)
	if err != nil {
		return err
	}
	if plan, err = plan.Prepare(opts.out, scenarios); err != nil {
		return err
	}
	if opts.slurm.planOnly {
		return printer{f}.result(commandPath(cmd), plan, nil, func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "planned %d tasks in %s: langhost bench task %s N, N from 0 to %d\n", len(plan.Tasks), opts.out, opts.out, len(plan.Tasks)-1)
			return err
		})
	}
	cl := &slurm.Client{}
	so := opts.slurm
	sub, err := bench.Submit(ctx, cl, opts.out, bench.SlurmOptions{Partition: so.partition, Time: so.time, CPUsPerTask: so.cpusPerTask,
		Mem: so.mem, Extra: so.sbatchArgs, Export: so.exportEnv, RetryFailed: so.retryFailed, Env: os.Environ()})
	if err != nil {
		return err
	}
	if sub != nil {
		fmt.Fprintf(f.io.ErrOut, "submitted job %s: %d tasks (array %s)\n", sub.JobID, len(sub.Tasks), sub.Array)
	} else {
		fmt.Fprintf(f.io.ErrOut, "no task needs a run (finished ones are skipped; --retry-failed runs failed ones)\n")
	}
	res := &benchSlurmResult{Out: opts.out, Submitted: sub}
	if so.detach {
		if res.Progress, err = bench.Status(ctx, cl, opts.out); err != nil {
			return err
		}
		return printer{f}.result(commandPath(cmd), res, nil, func(w io.Writer) error {
			return res.Progress.WriteText(w)
		})
	}
	res.Progress, err = bench.Wait(ctx, cl, opts.out, bench.WaitOptions{Partition: so.partition, NoNodeGrace: so.noNodeGrace, Progress: f.io.ErrOut})
	if err != nil {
		return err
	}
	// Records of every task: finished, failed or timed out.
	if res.Report, err = bench.LoadReport(opts.out); err != nil {
		return err
	}
	var runErr error
	if bad := len(res.Progress.Tasks) - res.Progress.Succeeded; bad > 0 {
		runErr = failure.New(failure.ToolFailed, "%d of %d tasks did not succeed: %s (see %s)", bad, len(res.Progress.Tasks), res.Progress.Line(), opts.out)
	}
	return printer{f}.result(commandPath(cmd), res, runErr, func(w io.Writer) error {
		if err := res.Report.WriteText(w); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "\n%s\nresults: %s\n", res.Progress.Line(), opts.out)
		return err
	})
}
