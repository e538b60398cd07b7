// Package slurm drives a Slurm cluster through its command-line tools
// (sbatch, squeue, scontrol, scancel, sinfo) as Debian's slurm-wlm 22.05
// ships them. It needs no accounting (sacct): a job's state comes from
// the queue while it runs and from slurmctld's job records (kept
// MinJobAge seconds, 300 by default) after it ends.
package slurm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// callTimeout bounds one call of a Slurm command: a slurmctld that does
// not answer must not hang the caller (Slurm's own MessageTimeout is 10s
// and a command retries a few times).
const callTimeout = 60 * time.Second

// Client runs Slurm's commands.
type Client struct {
	// Env is the environment of the commands; nil is this process's,
	// without its secrets (childenv.Scrub): sbatch copies what --export
	// names from its own environment, and a key it never sees cannot be
	// copied by any flag.
	Env []string
}

func (c *Client) command(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = childenv.Scrub(os.Environ())
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		switch {
		case errors.Is(err, exec.ErrNotFound):
			return nil, failure.New(failure.Precondition, "%s is not installed: the Slurm executor runs Slurm's commands (Debian: apt-get install slurm-client)", name)
		case ctx.Err() != nil:
			return nil, failure.New(failure.Timeout, "%s %s did not answer within %s: is slurmctld up (scontrol ping)?", name, strings.Join(args, " "), callTimeout)
		}
		return nil, failure.New(failure.ToolFailed, "%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

// Job is what Submit hands to sbatch.
type Job struct {
	Script string // the batch script
	Name   string
	// Array is the --array spec: "0-9", "1,4,7".
	Array  string
	Output string // --output pattern (%A, %a)
	Chdir  string
	// Export names the only variables of the submitter's environment the
	// job gets (sbatch --export=NAME,...); Slurm then loads the user's
	// login environment on the node at start (as --get-user-env does).
	Export []string
	// Partition, Time, CPUsPerTask and Mem mirror sbatch's options; empty
	// leaves the cluster's defaults.
	Partition   string
	Time        string
	CPUsPerTask int
	Mem         string
	// Extra are further sbatch arguments, passed as given before the
	// script.
	Extra []string
}

// Args returns sbatch's argument list for j.
func (j Job) Args() []string {
	args := []string{"--parsable", "--array=" + j.Array, "--export=" + strings.Join(j.Export, ",")}
	for _, o := range []struct{ flag, v string }{{"--job-name", j.Name}, {"--output", j.Output}, {"--chdir", j.Chdir},
		{"--partition", j.Partition}, {"--time", j.Time}, {"--mem", j.Mem}} {
		if o.v != "" {
			args = append(args, o.flag+"="+o.v)
		}
	}
	if j.CPUsPerTask > 0 {
		args = append(args, "--cpus-per-task="+strconv.Itoa(j.CPUsPerTask))
	}
	args = append(args, j.Extra...)
	return append(args, j.Script)
}

// Submit submits j with sbatch --parsable and returns the array's job ID.
func (c *Client) Submit(ctx context.Context, j Job) (string, error) {
	out, err := c.command(ctx, "sbatch", j.Args()...)
	if err != nil {
		return "", err
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", failure.New(failure.ToolFailed, "sbatch printed %q, not a job ID", out)
	}
	return id, nil
}

// Task is one array task as Slurm sees it.
type Task struct {
	ArrayJobID string `json:"array_job_id"`
	Index      int    `json:"index"`
	// JobID is the task's own job ID ("" while the task is pending as
	// part of its array's record).
	JobID  string `json:"job_id,omitempty"`
	State  string `json:"state"` // PENDING, RUNNING, COMPLETED, CANCELLED, TIMEOUT, ...
	Reason string `json:"reason,omitempty"`
	Node   string `json:"node,omitempty"`
}

// Queue returns the tasks of the array job id still in the queue, by
// index. A job no longer in the queue gives an empty map.
func (c *Client) Queue(ctx context.Context, id string) (map[int]Task, error) {
	out, err := c.command(ctx, "squeue", "--noheader", "--array", "--states=all", "--jobs="+id, "--format=%F|%K|%A|%T|%r|%N")
	if err != nil {
		// squeue names a job it no longer knows an error.
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[int]Task{}, nil
		}
		return nil, err
	}
	tasks := map[int]Task{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), "|")
		if len(f) != 6 || f[0] != id {
			continue
		}
		t := Task{ArrayJobID: f[0], JobID: f[2], State: f[3], Reason: f[4], Node: f[5]}
		for _, i := range indexes(f[1]) {
			t.Index = i
			tasks[i] = t
		}
	}
	return tasks, nil
}

// Show returns the tasks of array job id that slurmctld still has a
// record of (the queue's and those ended within MinJobAge), by index.
func (c *Client) Show(ctx context.Context, id string) (map[int]Task, error) {
	out, err := c.command(ctx, "scontrol", "--oneliner", "show", "job", id)
	if err != nil {
		if strings.Contains(err.Error(), "Invalid job id") {
			return map[int]Task{}, nil
		}
		return nil, err
	}
	tasks := map[int]Task{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		kv := Fields(sc.Text())
		if kv["ArrayJobId"] != id {
			continue
		}
		t := Task{ArrayJobID: id, JobID: kv["JobId"], State: kv["JobState"], Reason: kv["Reason"], Node: kv["BatchHost"]}
		for _, i := range indexes(kv["ArrayTaskId"]) {
			t.Index = i
			tasks[i] = t
		}
	}
	return tasks, nil
}

// ShowJob returns the fields of one job's record (scontrol show job),
// for example a task asking about itself.
func (c *Client) ShowJob(ctx context.Context, jobID string) (map[string]string, error) {
	out, err := c.command(ctx, "scontrol", "--oneliner", "show", "job", jobID)
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return Fields(line), nil
}

// Fields splits a line of scontrol --oneliner into its Key=Value pairs.
// A value runs to the next space: the fields read here (ids, states,
// reasons, hosts) hold none.
func Fields(line string) map[string]string {
	out := map[string]string{}
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok {
			if _, seen := out[k]; !seen {
				out[k] = v
			}
		}
	}
	return out
}

// indexes expands an array task spec: "3", "2-5", "1,4,7-8", "0-9%2".
// A spec it cannot read gives none.
func indexes(spec string) []int {
	spec = strings.Trim(spec, "[]")
	spec, _, _ = strings.Cut(spec, "%")
	var out []int
	for _, part := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<20 {
				return nil
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out
}

// Cancel cancels a job or one task of an array ("123_4").
func (c *Client) Cancel(ctx context.Context, id string) error {
	_, err := c.command(ctx, "scancel", id)
	return err
}

// Node is a node of a partition as sinfo reports it.
type Node struct {
	Name  string `json:"name"`
	State string `json:"state"` // sinfo's long state: idle, mixed, down*, idle*, drained, ...
}

// Usable says whether the node can start tasks: it responds and is not
// down, drained or failing. sinfo marks a node that does not respond with
// a trailing "*".
func (n Node) Usable() bool {
	s := n.State
	if strings.HasSuffix(s, "*") {
		return false
	}
	s = strings.TrimRight(s, "~#!%$@^-")
	for _, bad := range []string{"down", "drain", "fail", "inval", "unk", "future", "maint", "reboot", "power"} {
		if strings.HasPrefix(s, bad) {
			return false
		}
	}
	return true
}

// Nodes returns the nodes of a partition ("" the default one).
func (c *Client) Nodes(ctx context.Context, partition string) ([]Node, error) {
	args := []string{"--noheader", "--Node", "--format=%N|%T|%P"}
	if partition != "" {
		args = append(args, "--partition="+partition)
	}
	out, err := c.command(ctx, "sinfo", args...)
	if err != nil {
		return nil, err
	}
	var nodes []Node
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), "|")
		if len(f) != 3 {
			continue
		}
		// Without --partition, sinfo lists every partition; the default
		// one ends with "*".
		if partition == "" && !strings.HasSuffix(f[2], "*") {
			continue
		}
		if !seen[f[0]] {
			seen[f[0]] = true
			nodes = append(nodes, Node{Name: f[0], State: f[1]})
		}
	}
	return nodes, nil
}

// Terminal says whether a job state is final: the task will not run (on)
// unless requeued.
func Terminal(state string) bool {
	switch state {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED",
		"RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD", "SPECIAL_EXIT":
		return false
	}
	return state != ""
}

// Describe says in words why a node cannot take tasks, for errors.
func Describe(nodes []Node) string {
	var parts []string
	for _, n := range nodes {
		parts = append(parts, fmt.Sprintf("%s is %s", n.Name, n.State))
	}
	return strings.Join(parts, ", ")
}
