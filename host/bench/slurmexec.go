package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/langhost/langhost/host/bench/slurm"
	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// SubmissionsFile lists, in StateDir, the Slurm jobs that ran a bench's
// tasks.
const SubmissionsFile = "slurm.json"

// Submission is one sbatch of a bench: an array job over some tasks.
type Submission struct {
	JobID     string    `json:"job_id"`
	Tasks     []int     `json:"tasks"`
	Array     string    `json:"array"` // sbatch's --array spec of Tasks
	Submitted time.Time `json:"submitted"`
	// Args are sbatch's arguments: the job script holds no key and
	// --export names only non-secret variables, so they can be kept.
	Args []string `json:"args"`
}

// Task states of a bench's progress.
const (
	StateDone        = "done"          // finished: its record decides success
	StateFailed      = "failed"        // stopped before its end (cancelled, killed, lost)
	StateTimedOut    = "timed_out"     // stopped by Slurm's time limit
	StateRunning     = "running"       // Slurm runs it
	StatePending     = "pending"       // queued
	StateUnsubmitted = "not_submitted" // planned, never submitted
)

// TaskProgress is the state of one task.
type TaskProgress struct {
	Task
	State   string      `json:"state"`
	Success *bool       `json:"success,omitempty"`
	Error   string      `json:"error,omitempty"`
	Slurm   *slurm.Task `json:"slurm,omitempty"`
}

// Progress is the state of a bench's tasks: what `bench status` prints
// and `bench run --executor slurm` follows.
type Progress struct {
	Dir         string         `json:"dir"`
	Tasks       []TaskProgress `json:"tasks"`
	Jobs        []Submission   `json:"jobs"`
	Done        int            `json:"done"`
	Succeeded   int            `json:"succeeded"`
	Running     int            `json:"running"`
	Pending     int            `json:"pending"`
	Failed      int            `json:"failed"`
	TimedOut    int            `json:"timed_out"`
	Unsubmitted int            `json:"not_submitted"`
}

// Active is how many tasks are still queued or running.
func (p *Progress) Active() int { return p.Running + p.Pending }

// Line is the one-line summary of the progress.
func (p *Progress) Line() string {
	s := fmt.Sprintf("%d/%d done (%d succeeded), %d running, %d pending, %d failed", p.Done, len(p.Tasks), p.Succeeded, p.Running, p.Pending, p.Failed+p.TimedOut)
	if p.TimedOut > 0 {
		s += fmt.Sprintf(" (%d timed out)", p.TimedOut)
	}
	if p.Unsubmitted > 0 {
		s += fmt.Sprintf(", %d not submitted", p.Unsubmitted)
	}
	return s
}

// WriteText prints one line per task and the summary line.
func (p *Progress) WriteText(w io.Writer) error {
	rows := make([][]string, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		job, node := "-", "-"
		if t.Slurm != nil {
			job = t.Slurm.ArrayJobID + "_" + strconv.Itoa(t.Slurm.Index)
			node = dash(t.Slurm.Node)
		}
		ok := "-"
		if t.Success != nil {
			ok = map[bool]string{true: "yes", false: "no"}[*t.Success]
		}
		rows = append(rows, mdEscape([]string{strconv.Itoa(t.Index), t.Run, t.State, ok, job, node, dash(t.Error)}))
	}
	tw := newTable(w)
	writeRows(tw, []string{"TASK", "RUN", "STATE", "OK", "SLURM", "NODE", "ERROR"}, rows, "\t", "", "")
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, p.Line())
	return tw.Flush()
}

// LoadSubmissions reads the Slurm jobs of a bench; none is an empty list.
func LoadSubmissions(dir string) ([]Submission, error) {
	file := filepath.Join(dir, StateDir, SubmissionsFile)
	data, err := safefile.ReadRegular(file, maxResultBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return []Submission{}, nil
	}
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "bench jobs %s", file)
	}
	var subs []Submission
	if err := json.Unmarshal(data, &subs); err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "bench jobs %s", file)
	}
	for i, s := range subs {
		if _, err := strconv.ParseUint(s.JobID, 10, 64); err != nil {
			return nil, invalid(file, fmt.Sprintf("[%d].job_id", i), "%q is not a Slurm job ID", s.JobID)
		}
	}
	return subs, nil
}

func writeSubmissions(dir string, subs []Submission) error {
	b, err := json.MarshalIndent(subs, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, StateDir, SubmissionsFile), append(b, '\n'), 0o644); err != nil {
		return failure.Wrap(failure.Precondition, err, "recording the Slurm job")
	}
	return nil
}

// Status returns the progress of the bench in dir: each task's record if
// it has one, else its Slurm state. A task that Slurm ended without a
// record of the task's own (cancelled before it started, killed, past its
// time limit, or gone from Slurm's records) gets one now, failed or
// timed out, so that the results directory says what happened.
func Status(ctx context.Context, cl *slurm.Client, dir string) (*Progress, error) {
	plan, err := LoadPlan(dir)
	if err != nil {
		return nil, err
	}
	subs, err := LoadSubmissions(dir)
	if err != nil {
		return nil, err
	}
	// The latest submission of each task.
	latest := map[int]int{}
	for i, s := range subs {
		for _, n := range s.Tasks {
			latest[n] = i
		}
	}
	// Slurm first, records second: a task that ends in between has its
	// record read, never a state older than it.
	queue := make([]map[int]slurm.Task, len(subs))
	shown := make([]map[int]slurm.Task, len(subs))
	for i, s := range subs {
		if !slices.ContainsFunc(s.Tasks, func(n int) bool { return latest[n] == i && !hasResult(dir, plan, n) }) {
			continue
		}
		if queue[i], err = cl.Queue(ctx, s.JobID); err != nil {
			return nil, err
		}
		if shown[i], err = cl.Show(ctx, s.JobID); err != nil {
			return nil, err
		}
	}
	p := &Progress{Dir: dir, Jobs: subs, Tasks: make([]TaskProgress, 0, len(plan.Tasks))}
	for _, t := range plan.Tasks {
		tp := TaskProgress{Task: t}
		r, rerr := readResult(filepath.Join(dir, t.Run, ResultFile))
		i, submitted := latest[t.Index]
		var st *slurm.Task
		if submitted {
			if q, ok := queue[i][t.Index]; ok {
				st = &q
			} else if s, ok := shown[i][t.Index]; ok {
				st = &s
			} else if queue[i] != nil {
				st = &slurm.Task{ArrayJobID: subs[i].JobID, Index: t.Index}
			}
		}
		switch {
		case rerr != nil:
			return nil, rerr
		case r != nil:
			tp.State, tp.Error = stateOf(r.Status), r.Error
			tp.Success = &r.Success
			if r.Provenance.ArrayJobID != "" {
				st = &slurm.Task{ArrayJobID: r.Provenance.ArrayJobID, Index: t.Index, JobID: r.Provenance.JobID, Node: r.Provenance.Host}
			}
		case !submitted:
			tp.State = StateUnsubmitted
		case st.State == "PENDING":
			tp.State = StatePending
		case st.State != "" && !slurm.Terminal(st.State):
			tp.State = StateRunning
		default:
			status, why := stoppedBy(subs[i].JobID, t.Index, st)
			ids := SlurmIDs{JobID: st.JobID, ArrayJobID: subs[i].JobID, ArrayTaskID: strconv.Itoa(t.Index)}
			if err := recordStopped(dir, plan, t, status, why, ids, st.Node); err != nil {
				return nil, err
			}
			// The task may have written its own record meanwhile.
			if r, err := readResult(filepath.Join(dir, t.Run, ResultFile)); err == nil && r != nil {
				tp.State, tp.Error, tp.Success = stateOf(r.Status), r.Error, &r.Success
			}
		}
		tp.Slurm = st
		p.count(tp)
		p.Tasks = append(p.Tasks, tp)
	}
	return p, nil
}

func (p *Progress) count(tp TaskProgress) {
	switch tp.State {
	case StateDone:
		p.Done++
		if tp.Success != nil && *tp.Success {
			p.Succeeded++
		}
	case StateFailed:
		p.Failed++
	case StateTimedOut:
		p.TimedOut++
	case StateRunning:
		p.Running++
	case StatePending:
		p.Pending++
	case StateUnsubmitted:
		p.Unsubmitted++
	}
}

func hasResult(dir string, plan *Plan, n int) bool {
	if n < 0 || n >= len(plan.Tasks) {
		return false
	}
	_, err := os.Lstat(filepath.Join(dir, plan.Tasks[n].Run, ResultFile))
	return err == nil
}

func stateOf(status string) string {
	switch status {
	case StatusFailed:
		return StateFailed
	case StatusTimedOut:
		return StateTimedOut
	}
	return StateDone
}

// stoppedBy says how a task Slurm ended without a record of its own ended.
func stoppedBy(job string, n int, st *slurm.Task) (status, why string) {
	id := fmt.Sprintf("%s_%d", job, n)
	switch {
	case st.State == "TIMEOUT" || st.Reason == "TimeLimit":
		return StatusTimedOut, fmt.Sprintf("Slurm task %s passed its time limit (JobState %s) before it wrote a record", id, st.State)
	case st.State == "":
		return StatusFailed, fmt.Sprintf("Slurm task %s left no record and Slurm no longer knows it (ended more than MinJobAge ago, or lost)", id)
	case st.State == "CANCELLED":
		return StatusFailed, fmt.Sprintf("Slurm task %s was cancelled (scancel) before it wrote a record", id)
	}
	return StatusFailed, fmt.Sprintf("Slurm task %s ended %s (reason %s) without a record: see %s", id, st.State, dash(st.Reason),
		filepath.Join(StateDir, "slurm", id+".out"))
}

// SlurmOptions are the sbatch options of a bench.
type SlurmOptions struct {
	Partition   string
	Time        string
	CPUsPerTask int
	Mem         string
	// Extra are further sbatch arguments (--sbatch-arg).
	Extra []string
	// Export names further variables the tasks get from the submitter's
	// environment; a secret one is refused.
	Export []string
	// RetryFailed submits failed and timed-out tasks again.
	RetryFailed bool
	// Env is the submitter's environment (os.Environ()).
	Env []string
}

// exportDefault are the variables of the submitter's environment a task
// gets (when set and not secret): where tools and caches are. Keys are
// never among them: a task reads its keys from its node's environment.
var exportDefault = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOROOT",
	"DOTNET_ROOT", "DOTNET_CLI_HOME", "NUGET_PACKAGES", "VIRTUAL_ENV", "PYTHONPATH", "SLURM_CONF"}

// exports returns the names for sbatch --export: exportDefault, the
// environment's LANGHOST_* and extra, those set and not secret. A secret
// name in extra is an error: it would be copied into Slurm's job record.
func exports(env, extra []string) ([]string, error) {
	vals := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vals[k] = v
	}
	for _, n := range extra {
		if n == "" || strings.ContainsAny(n, "=,\x00 ") {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "--export-env", Message: fmt.Sprintf("%q is not a variable name", n)}
		}
		if childenv.Secret(n, vals[n]) {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "--export-env", Message: fmt.Sprintf(
				"%s looks like a secret: sbatch would copy it into Slurm's job record; tasks read keys from their node's environment (see SECURITY.md, Keys on a cluster)", n)}
		}
	}
	names := slices.Concat(exportDefault, childenv.Langhost(env), extra)
	var out []string
	for _, n := range names {
		v, set := vals[n]
		if set && !childenv.Secret(n, v) && !slices.Contains(out, n) && n != PlanEnv {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		// --export= with nothing would read as ALL to some versions.
		out = []string{"NONE"}
	}
	return out, nil
}

// checkExtra refuses sbatch arguments that would undo the key policy
// (--export, --get-user-env with a value is fine) or that look like a key.
func checkExtra(args []string) error {
	for i, a := range args {
		field := fmt.Sprintf("--sbatch-arg[%d]", i)
		name, _, _ := strings.Cut(a, "=")
		switch {
		case name == "--export" || name == "--export-file" || strings.HasPrefix(a, "--export"):
			return &failure.Error{Code: failure.InvalidInput, Field: field, Message: fmt.Sprintf(
				"%s: langhost sets sbatch's --export so that no key enters Slurm's job record; add variables with --export-env NAME", a)}
		case name == "--array" || name == "-a" || strings.HasPrefix(a, "--array") || name == "--wrap" || strings.HasPrefix(a, "--wrap"):
			return &failure.Error{Code: failure.InvalidInput, Field: field, Message: fmt.Sprintf("%s: langhost sets the job array and script itself", a)}
		case redact.Shaped(a) || redact.Shaped(strings.TrimPrefix(a, name+"=")):
			return &failure.Error{Code: failure.InvalidInput, Field: field, Message: "the argument is shaped like an API key: it would be kept in Slurm's job record"}
		}
	}
	return nil
}

// Submit submits the bench's tasks that need a run as one Slurm job
// array: those never submitted and, with RetryFailed, those failed or
// timed out (their earlier attempt is moved to StateDir/attempts). Tasks
// queued, running or done are left alone. It returns the submission, or
// nil when no task needs a run.
func Submit(ctx context.Context, cl *slurm.Client, dir string, o SlurmOptions) (*Submission, error) {
	if err := checkExtra(o.Extra); err != nil {
		return nil, err
	}
	export, err := exports(o.Env, o.Export)
	if err != nil {
		return nil, err
	}
	plan, err := LoadPlan(dir)
	if err != nil {
		return nil, err
	}
	p, err := Status(ctx, cl, dir)
	if err != nil {
		return nil, err
	}
	var todo []int
	for _, t := range p.Tasks {
		switch {
		case t.State == StateUnsubmitted:
		case o.RetryFailed && (t.State == StateFailed || t.State == StateTimedOut):
		default:
			continue
		}
		todo = append(todo, t.Index)
	}
	if len(todo) == 0 {
		return nil, nil
	}
	nodes, err := cl.Nodes(ctx, o.Partition)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(nodes, slurm.Node.Usable) {
		return nil, noNodes(o.Partition, nodes)
	}
	for _, n := range todo {
		if err := moveAside(dir, plan.Tasks[n].Run); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	state := filepath.Join(abs, StateDir)
	if err := os.MkdirAll(filepath.Join(state, "slurm"), 0o755); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "results directory")
	}
	// The tasks learn which plan this submission vouches for.
	digest, err := PlanDigest(dir)
	if err != nil {
		return nil, err
	}
	export = append(slices.DeleteFunc(export, func(n string) bool { return n == "NONE" }), PlanEnv+"="+digest)
	script := filepath.Join(state, "job.sh")
	if err := atomicfile.WriteFile(script, jobScript(plan.Binary, abs), 0o755); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "writing the job script")
	}
	job := slurm.Job{Script: script, Name: "langhost-bench", Array: arraySpec(todo), Chdir: abs,
		Output: filepath.Join(state, "slurm", "%A_%a.out"), Export: export, Partition: o.Partition, Time: o.Time,
		CPUsPerTask: o.CPUsPerTask, Mem: o.Mem, Extra: o.Extra}
	id, err := cl.Submit(ctx, job)
	if err != nil {
		return nil, err
	}
	sub := Submission{JobID: id, Tasks: todo, Array: job.Array, Submitted: time.Now().UTC(), Args: job.Args()}
	subs, err := LoadSubmissions(dir)
	if err != nil {
		return nil, err
	}
	if err := writeSubmissions(dir, append(subs, sub)); err != nil {
		// The job runs anyway; without the record no status can find
		// it: cancel it rather than leave tasks nobody follows.
		_ = cl.Cancel(context.WithoutCancel(ctx), id)
		return nil, err
	}
	return &sub, nil
}

// KeysFileEnv names the file of keys a Slurm task reads on its node when
// it starts (default $XDG_CONFIG_HOME/langhost/bench-keys.env, or
// ~/.config/...): shell assignments such as OPENAI_API_KEY=..., exported
// to the task. Only the path passes through Slurm, never a key.
const KeysFileEnv = "LANGHOST_BENCH_KEYS"

// jobScript is the batch script: it holds paths only, never a key or
// any other value of the environment. The keys file is read on the node
// at run time, so its content never reaches slurmctld.
func jobScript(binary, dir string) []byte {
	return fmt.Appendf(nil, `#!/bin/sh
# langhost bench: one array task runs one task of the plan in %[2]s.
# Keys come from the node at run time, never from here: see SECURITY.md.
keys="${%[3]s:-${XDG_CONFIG_HOME:-$HOME/.config}/langhost/bench-keys.env}"
if [ -f "$keys" ]; then
	set -a
	. "$keys" || exit 1
	set +a
fi
exec %[1]s bench task %[2]s "$SLURM_ARRAY_TASK_ID"
`, shellQuote(binary), shellQuote(dir), KeysFileEnv)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// arraySpec writes indexes as sbatch's --array: "0-9" or "1,4,7-8".
func arraySpec(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(idx[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", idx[i], idx[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func noNodes(partition string, nodes []slurm.Node) error {
	where := "the default partition"
	if partition != "" {
		where = "partition " + partition
	}
	if len(nodes) == 0 {
		return failure.New(failure.Precondition, "Slurm lists no node in %s: check --partition (sinfo)", where)
	}
	return failure.New(failure.Precondition, "no node of %s can start tasks (%s): is slurmd running on them? (sinfo -R says why a node is down)",
		where, slurm.Describe(nodes))
}

// WaitOptions bound Wait.
type WaitOptions struct {
	// Poll is the time between looks at Slurm and the records.
	Poll time.Duration
	// NoNodeGrace is how long tasks may stay queued while no node of the
	// partition can start them before Wait gives up.
	NoNodeGrace time.Duration
	Partition   string
	// Progress, if set, gets a line whenever the counts change.
	Progress io.Writer
}

// Wait follows the bench until no task is queued or running, printing
// progress, and returns the last progress. It gives up with a clear error
// when tasks stay queued while no node can start them (slurmd down); the
// job stays queued, for `bench status` or scancel.
func Wait(ctx context.Context, cl *slurm.Client, dir string, o WaitOptions) (*Progress, error) {
	poll := cmp.Or(o.Poll, 2*time.Second)
	grace := cmp.Or(o.NoNodeGrace, 2*time.Minute)
	var last string
	var stuckSince time.Time
	for {
		p, err := Status(ctx, cl, dir)
		if err != nil {
			return nil, err
		}
		if line := p.Line(); line != last && o.Progress != nil {
			fmt.Fprintf(o.Progress, "%s  %s\n", time.Now().Format("15:04:05"), line)
			last = line
		}
		if p.Active() == 0 {
			return p, nil
		}
		switch nodes, err := cl.Nodes(ctx, o.Partition); {
		case err != nil:
			return p, err
		case !slices.ContainsFunc(nodes, slurm.Node.Usable):
			// Queued tasks cannot start and running ones cannot end (a
			// node whose slurmd is gone leaves its tasks completing).
			if stuckSince.IsZero() {
				stuckSince = time.Now()
			}
			if time.Since(stuckSince) >= grace {
				err := noNodes(o.Partition, nodes)
				return p, fmt.Errorf("%w; %d tasks stay queued or running: `langhost bench status %s` follows them, scancel %s cancels them",
					err, p.Active(), dir, jobIDs(p.Jobs))
			}
		default:
			stuckSince = time.Time{}
		}
		select {
		case <-ctx.Done():
			return p, failure.Wrap(failure.Canceled, ctx.Err(), "waiting for the bench's tasks (they keep running: `langhost bench status %s`)", dir)
		case <-time.After(poll):
		}
	}
}

func jobIDs(subs []Submission) string {
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.JobID)
	}
	return strings.Join(ids, " ")
}

func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }
