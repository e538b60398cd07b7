package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// RunTask runs task n of the plan in dir and writes its record there, as
// `langhost bench task DIR N` does on a cluster's node, in a pod or in a
// CI job. It checks what the shared filesystem must provide first: the
// plan, this binary being the planned one, the copied scenario and its
// fixture. A task whose record is already there is not run again (a
// requeued task); a directory a killed attempt left without a record is
// moved to StateDir/attempts first. opts.Out is set to dir.
func RunTask(ctx context.Context, opts Options, dir string, n int) (r *Result, ran bool, err error) {
	plan, err := LoadPlan(dir)
	if err != nil {
		return nil, false, err
	}
	if n < 0 || n >= len(plan.Tasks) {
		return nil, false, &failure.Error{Code: failure.InvalidInput, Field: "N",
			Message: fmt.Sprintf("task %d: the plan of %s has tasks 0 to %d", n, dir, len(plan.Tasks)-1)}
	}
	exe := opts.Langhost
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, false, failure.Wrap(failure.Precondition, err, "this langhost's executable")
		}
	}
	sum, err := fileSHA256(exe)
	if err != nil {
		return nil, false, failure.Wrap(failure.Precondition, err, "this langhost's executable")
	}
	if sum != plan.BinarySHA256 {
		host, _ := os.Hostname()
		return nil, false, failure.New(failure.Precondition,
			"this langhost (%s on %s, sha256 %s) is not the binary the bench was planned with (%s, sha256 %s): every node must run the same file from the shared filesystem",
			exe, host, sum[:12], plan.Binary, plan.BinarySHA256[:min(12, len(plan.BinarySHA256))])
	}
	t := plan.Tasks[n]
	s, err := plan.scenario(dir, t.Scenario)
	if err != nil {
		return nil, false, err
	}
	c, ok := plan.config(t.Config)
	if !ok {
		return nil, false, invalid(filepath.Join(dir, StateDir, PlanFile), fmt.Sprintf("tasks[%d].config", n), "no config %q", t.Config)
	}
	if prev, err := readResult(filepath.Join(dir, t.Run, ResultFile)); err != nil {
		return nil, false, err
	} else if prev != nil {
		return prev, false, nil
	}
	if err := moveAside(dir, t.Run); err != nil {
		return nil, false, err
	}
	opts.Out = dir
	r, err = runOne(ctx, opts, s, c, t.Repeat)
	return r, true, err
}

// moveAside moves the directory of run, if there is one, to
// StateDir/attempts/<run>.<k>: a rerun starts afresh, and what the
// earlier attempt left stays for a look (Report does not read it).
func moveAside(dir, run string) error {
	src := filepath.Join(dir, run)
	if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	attempts := filepath.Join(dir, StateDir, "attempts")
	if err := os.MkdirAll(attempts, 0o755); err != nil {
		return failure.Wrap(failure.Precondition, err, "keeping an earlier attempt of %s", run)
	}
	for k := 1; k < 10000; k++ {
		dst := filepath.Join(attempts, fmt.Sprintf("%s.%d", run, k))
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Rename(src, dst); err != nil {
			return failure.Wrap(failure.Precondition, err, "keeping an earlier attempt of %s", run)
		}
		return nil
	}
	return failure.New(failure.Precondition, "%s: too many earlier attempts of %s", attempts, run)
}

// recordStopped writes the record of a task that ended without writing
// its own (killed, cancelled before it started, lost): status and why,
// the task's identity from the plan and what Slurm knew. A record the
// task wrote meanwhile is kept (the file is created exclusively).
func recordStopped(dir string, plan *Plan, t Task, status, why string, ids SlurmIDs, node string) error {
	run := filepath.Join(dir, t.Run)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return failure.Wrap(failure.Precondition, err, "recording %s", t.Run)
	}
	c, _ := plan.config(t.Config)
	r := &Result{Scenario: t.Scenario, Config: t.Config, Runner: c.Runner, Interface: c.Interface, Packet: c.Packet,
		Provider: c.Provider, Model: c.Model, Repeat: t.Repeat, Run: t.Run, Status: status, Error: why,
		Checks: []CheckResult{}, Started: time.Now().UTC()}
	for _, s := range plan.Scenarios {
		if s.Name == t.Scenario {
			r.Provenance.ScenarioFile, r.Provenance.ScenarioHash = filepath.Join(dir, filepath.FromSlash(s.File)), s.SHA256
		}
	}
	if sc, err := LoadScenario(r.Provenance.ScenarioFile); err == nil {
		r.Language = sc.Language
	}
	r.Provenance.Langhost, r.Provenance.Config, r.Provenance.Host = plan.Langhost, &c, node
	r.Provenance.Executor, r.Provenance.SlurmIDs = ExecutorSlurm, ids
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(run, ResultFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "recording %s", t.Run)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failure.Wrap(failure.Precondition, err, "recording %s", t.Run)
	}
	// The timeline says the same, unless the task began one.
	if tl, err := createTimeline(filepath.Join(run, TimelineFile), nil); err == nil {
		ok := false
		tl.write(benchEvent{Type: "bench_end", Scenario: t.Scenario, Config: t.Config, Status: status, Success: &ok, Error: why})
		return tl.Close()
	}
	return nil
}
