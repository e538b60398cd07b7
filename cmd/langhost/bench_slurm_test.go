//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/slurmtest"
)

// slurmBench runs the built langhost against a test cluster.
type slurmBench struct {
	t   testing.TB
	bin string
	env []string
}

func newSlurmBench(t testing.TB, c *slurmtest.Cluster) *slurmBench {
	t.Helper()
	env := append(os.Environ(), "SLURM_CONF="+c.Conf, "XDG_CONFIG_HOME="+configDir(t), "XDG_STATE_HOME="+t.TempDir(),
		"LANGHOST_DAEMON=0", "LANGHOST_TRUST_WORKSPACE=1")
	return &slurmBench{t: t, bin: langhostBinary(t), env: env}
}

// run runs langhost with --format json and decodes the envelope's data.
func (b *slurmBench) run(data any, args ...string) (code int, stderr string, env envelope) {
	b.t.Helper()
	cmd := exec.Command(b.bin, append(args, "--format", "json")...)
	cmd.Env = b.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		b.t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &env); err != nil {
		b.t.Fatalf("langhost %s: stdout is not an envelope: %v\n%s\n%s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	if data != nil {
		remarshal(b.t, env.Data, data)
	}
	return code, errOut.String(), env
}

type slurmRecord struct {
	Run        string `json:"run"`
	Scenario   string `json:"scenario"`
	Success    bool   `json:"success"`
	Status     string `json:"status"`
	StopReason string `json:"stop_reason"`
	Steps      int    `json:"steps"`
	ToolCalls  int    `json:"tool_calls"`
	Error      string `json:"error"`
	Checks     []struct {
		OK bool `json:"ok"`
	} `json:"checks"`
	Provenance struct {
		Langhost   string `json:"langhost"`
		Host       string `json:"host"`
		Executor   string `json:"executor"`
		SpecHash   string `json:"spec_sha256"`
		ScenHash   string `json:"scenario_sha256"`
		JobID      string `json:"slurm_job_id"`
		ArrayJobID string `json:"slurm_array_job_id"`
		ArrayTask  string `json:"slurm_array_task_id"`
	} `json:"provenance"`
}

func readRecord(t *testing.T, dir, run string) slurmRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, run, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r slurmRecord
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBenchSlurmMatchesLocal runs shipped scenarios with the scripted
// model locally and as a Slurm job array: every run has the same outcome,
// the Slurm records carry their job and array IDs, and `bench report`
// merges both. Keys in the submitter's environment appear nowhere: not in
// the job script, Slurm's job record and state, or the results.
func TestBenchSlurmMatchesLocal(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	b := newSlurmBench(t, c)
	const key, akey = "sk-slurmtestkey0123456789abcdefABCDEF", "sk-ant-slurmtestkey0123456789abcdef"
	b.env = append(b.env, "OPENAI_API_KEY="+key, "ANTHROPIC_API_KEY="+akey, "MY_SERVICE_TOKEN=tok-slurmtest-secret-value")
	scenarios := []string{"../../bench/scenarios/go-fix-compile-error.yaml", "../../bench/scenarios/go-add-missing-import.yaml"}
	local, remote := filepath.Join(t.TempDir(), "local"), filepath.Join(t.TempDir(), "slurm")

	code, stderr, _ := b.run(nil, append([]string{"bench", "run", "--name", "local", "--out", local}, scenarios...)...)
	if code != 0 {
		t.Fatalf("local bench run: exit %d\n%s", code, stderr)
	}
	var res struct {
		Submitted struct {
			JobID string `json:"job_id"`
			Tasks []int  `json:"tasks"`
		} `json:"submitted"`
		Progress struct {
			Done, Succeeded int
		} `json:"progress"`
	}
	code, stderr, env := b.run(&res, append([]string{"bench", "run", "--executor", "slurm", "--name", "slurm", "--time", "10", "--out", remote}, scenarios...)...)
	if code != 0 || res.Progress.Done != 2 || res.Progress.Succeeded != 2 || len(res.Submitted.Tasks) != 2 {
		t.Fatalf("slurm bench run: exit %d, %+v\n%s\n%+v", code, res, stderr, env.Errors)
	}
	if !strings.Contains(stderr, "submitted job "+res.Submitted.JobID) || !strings.Contains(stderr, "2/2 done (2 succeeded)") {
		t.Errorf("no progress on stderr:\n%s", stderr)
	}
	for _, s := range []string{"go-fix-compile-error", "go-add-missing-import"} {
		l, r := readRecord(t, local, s+".local.1"), readRecord(t, remote, s+".slurm.1")
		if l.Success != r.Success || l.StopReason != r.StopReason || l.Steps != r.Steps || l.ToolCalls != r.ToolCalls || len(l.Checks) != len(r.Checks) || !r.Success {
			t.Errorf("%s: local %+v\nslurm %+v", s, l, r)
		}
		if l.Status != "finished" || r.Status != "finished" || l.Provenance.Executor != "local" || r.Provenance.Executor != "slurm" {
			t.Errorf("%s: status/executor local %s/%s, slurm %s/%s", s, l.Status, l.Provenance.Executor, r.Status, r.Provenance.Executor)
		}
		if l.Provenance.JobID != "" || r.Provenance.ArrayJobID != res.Submitted.JobID || r.Provenance.JobID == "" || r.Provenance.ArrayTask == "" {
			t.Errorf("%s: Slurm IDs local %+v, slurm %+v", s, l.Provenance, r.Provenance)
		}
		if r.Provenance.SpecHash == "" || r.Provenance.SpecHash != l.Provenance.SpecHash || r.Provenance.ScenHash != l.Provenance.ScenHash || r.Provenance.Host != c.Node {
			t.Errorf("%s: provenance local %+v, slurm %+v", s, l.Provenance, r.Provenance)
		}
	}

	// bench report merges local and Slurm records: per scenario, the two
	// configs' cells of the grid are the same, and so are their rates.
	page := filepath.Join(t.TempDir(), "report.html")
	var rep struct {
		Summary []struct {
			Config    string `json:"config"`
			Runs      int    `json:"runs"`
			Succeeded int    `json:"succeeded"`
		} `json:"summary"`
		Grid []struct {
			Scenario string `json:"scenario"`
			Cells    []struct {
				Config    string `json:"config"`
				Runs      int    `json:"runs"`
				Succeeded int    `json:"succeeded"`
			} `json:"cells"`
		} `json:"grid"`
		Paired struct {
			Pairs, Wins, Losses int
		} `json:"paired"`
	}
	if code, stderr, _ := b.run(&rep, "bench", "report", "--html", page, local, remote); code != 0 || len(rep.Summary) != 2 || len(rep.Grid) != 2 ||
		rep.Summary[0].Succeeded != 2 || rep.Summary[1].Succeeded != 2 || rep.Paired.Pairs != 2 || rep.Paired.Wins+rep.Paired.Losses != 0 {
		t.Fatalf("merged report: exit %d %+v\n%s", code, rep, stderr)
	}
	for _, g := range rep.Grid {
		if len(g.Cells) != 2 || g.Cells[0].Config != "local" || g.Cells[1].Config != "slurm" ||
			g.Cells[0].Runs != 1 || g.Cells[0].Runs != g.Cells[1].Runs || g.Cells[0].Succeeded != g.Cells[1].Succeeded {
			t.Errorf("grid row %s: %+v", g.Scenario, g.Cells)
		}
	}
	if html, err := os.ReadFile(page); err != nil || !bytes.Contains(html, []byte(`id="grid"`)) {
		t.Errorf("report page: %v", err)
	}

	// No key anywhere Slurm or the results keep.
	show, err := c.Command("scontrol", "-dd", "show", "job", res.Submitted.JobID).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol: %v\n%s", err, show)
	}
	script, _ := c.Command("scontrol", "write", "batch_script", res.Submitted.JobID, "-").CombinedOutput()
	if !strings.Contains(string(script), "bench task") {
		t.Errorf("batch script = %s", script)
	}
	for _, secret := range []string{key, akey, "tok-slurmtest-secret-value", "slurmtestkey"} {
		for what, text := range map[string][]byte{"scontrol show job -dd": show, "the batch script": script} {
			if bytes.Contains(text, []byte(secret)) {
				t.Errorf("%s holds a key", what)
			}
		}
		for _, dir := range []string{c.StateDir(), remote} {
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(secret)) {
						t.Errorf("%s holds a key", p)
					}
				}
				return nil
			})
		}
	}
	// Slurm's state kept the job's environment: the test looked at it.
	if envs, _ := filepath.Glob(filepath.Join(c.StateDir(), "hash.*", "job.*", "environment")); len(envs) == 0 {
		t.Errorf("no job environment in %s: the key check looked at nothing", c.StateDir())
	}
}

// slowScenario writes a scenario whose external "agent" waits until a
// marker file exists (or 300s), and a quick config beside it.
func slowScenario(t *testing.T) (scenario, configs, marker string) {
	dir := t.TempDir()
	marker = filepath.Join(dir, "go-on")
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture", "README"), []byte("a fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scenario = filepath.Join(dir, "wait.yaml")
	if err := os.WriteFile(scenario, []byte(`name: wait
language: go
fixture: fixture
task: wait for the marker
checks:
  - command: ["test", "-f", "README"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	configs = filepath.Join(dir, "configs.yaml")
	if err := os.WriteFile(configs, []byte(`configs:
  - {name: quick, command: ["true"], timeout: 10m}
  - {name: slow, command: ["sh", "-c", "i=0; while [ ! -e `+marker+` ] && [ $i -lt 300 ]; do sleep 1; i=$((i+1)); done"], timeout: 10m}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return scenario, configs, marker
}

type statusData struct {
	Done, Running, Pending, Failed int
	TimedOut                       int `json:"timed_out"`
	Tasks                          []struct {
		Index int    `json:"index"`
		Run   string `json:"run"`
		State string `json:"state"`
		Error string `json:"error"`
	} `json:"tasks"`
	Jobs []struct {
		JobID string `json:"job_id"`
		Tasks []int  `json:"tasks"`
	} `json:"jobs"`
}

// waitStatus polls bench status until ok says so (bounded: 3 minutes).
func (b *slurmBench) waitStatus(dir string, ok func(statusData) bool) statusData {
	b.t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var st statusData
		if code, stderr, _ := b.run(&st, "bench", "status", dir); code != 0 {
			b.t.Fatalf("bench status: exit %d\n%s", code, stderr)
		}
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("bench status did not reach the state within 3 minutes: %+v", st)
		}
		time.Sleep(time.Second)
	}
}

// TestBenchSlurmCancelAndRetry cancels a running task with scancel: it is
// recorded as failed, the finished task stays, and --retry-failed runs
// only the failed one again, which then finishes.
func TestBenchSlurmCancelAndRetry(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	b := newSlurmBench(t, c)
	scenario, configs, marker := slowScenario(t)
	out := filepath.Join(t.TempDir(), "out")
	if code, stderr, _ := b.run(nil, "bench", "run", "--executor", "slurm", "--detach", "--config", configs, "--out", out, scenario); code != 0 {
		t.Fatalf("bench run --detach: exit %d\n%s", code, stderr)
	}
	// The slow task has started its run (its timeline is there).
	st := b.waitStatus(out, func(st statusData) bool {
		_, err := os.Stat(filepath.Join(out, "wait.slow.1", "timeline.jsonl"))
		return st.Done == 1 && st.Running == 1 && err == nil
	})
	if out, err := c.Command("scancel", st.Jobs[0].JobID+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v\n%s", err, out)
	}
	st = b.waitStatus(out, func(st statusData) bool { return st.Failed == 1 })
	r := readRecord(t, out, "wait.slow.1")
	if r.Status != "failed" || r.Success || !strings.Contains(r.Error, "cancel") {
		t.Fatalf("cancelled task's record: %+v", r)
	}
	quick := readRecord(t, out, "wait.quick.1")

	// A rerun without --retry-failed has nothing to submit: the finished
	// task is skipped, the failed one stays failed.
	var again struct {
		Submitted *struct{} `json:"submitted"`
	}
	if code, stderr, _ := b.run(&again, "bench", "run", "--executor", "slurm", "--config", configs, "--out", out, scenario); code != 1 ||
		again.Submitted != nil || !strings.Contains(stderr, "no task needs a run") {
		t.Fatalf("rerun: exit %d, %+v\n%s", code, again, stderr)
	}
	if r := readRecord(t, out, "wait.slow.1"); r.Status != "failed" {
		t.Fatalf("the rerun changed the failed record: %+v", r)
	}

	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Submitted struct {
			Tasks []int `json:"tasks"`
		} `json:"submitted"`
		Progress statusData `json:"progress"`
	}
	code, stderr, _ := b.run(&res, "bench", "run", "--executor", "slurm", "--retry-failed", "--config", configs, "--out", out, scenario)
	if code != 0 || len(res.Submitted.Tasks) != 1 || res.Submitted.Tasks[0] != 1 || res.Progress.Done != 2 {
		t.Fatalf("bench run --retry-failed: exit %d, %+v\n%s", code, res, stderr)
	}
	if r := readRecord(t, out, "wait.slow.1"); r.Status != "finished" || !r.Success {
		t.Errorf("retried task's record: %+v", r)
	}
	if again := readRecord(t, out, "wait.quick.1"); again.Provenance.JobID != quick.Provenance.JobID {
		t.Errorf("the finished task ran again: job %s, was %s", again.Provenance.JobID, quick.Provenance.JobID)
	}
	if _, err := os.Stat(filepath.Join(out, ".bench", "attempts", "wait.slow.1.1", "result.json")); err != nil {
		t.Errorf("the failed attempt was not kept: %v", err)
	}
}

// TestBenchSlurmTimeLimit runs a task past its one-minute time limit: its
// record says timed out, and the command waited for it without hanging.
func TestBenchSlurmTimeLimit(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	b := newSlurmBench(t, c)
	scenario, configs, _ := slowScenario(t)
	out := filepath.Join(t.TempDir(), "out")
	var res struct {
		Progress statusData `json:"progress"`
	}
	code, stderr, _ := b.run(&res, "bench", "run", "--executor", "slurm", "--time", "1", "--config", configs, "--out", out, scenario)
	if code != 1 || res.Progress.Done != 1 || res.Progress.TimedOut != 1 {
		t.Fatalf("bench run: exit %d, %+v\n%s", code, res, stderr)
	}
	r := readRecord(t, out, "wait.slow.1")
	if r.Status != "timed_out" || r.Success || !strings.Contains(r.Error, "time limit") {
		t.Errorf("timed-out task's record: %+v", r)
	}
}

// TestBenchSlurmNoSlurmd stops slurmd: bench run says no node can start
// the tasks, in bounded time, instead of waiting forever.
func TestBenchSlurmNoSlurmd(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	b := newSlurmBench(t, c)
	scenario, configs, _ := slowScenario(t)
	c.StopSlurmd()
	out := filepath.Join(t.TempDir(), "out")
	start := time.Now()
	code, stderr, env := b.run(nil, "bench", "run", "--executor", "slurm", "--no-node-timeout", "20s", "--config", configs, "--out", out, scenario)
	if code != 4 || len(env.Errors) == 0 || !strings.Contains(env.Errors[0].Message, "slurmd") {
		t.Fatalf("bench run with slurmd down: exit %d, %+v\n%s", code, env.Errors, stderr)
	}
	t.Logf("error after %s: %s", time.Since(start).Round(time.Second), env.Errors[0].Message)
}

// TestBenchSlurmKeysFromNode: a task reads its key from the keys file on
// its node when it starts (LANGHOST_BENCH_KEYS), so the agent gets it,
// while the key is in none of what Slurm or the bench keep: the job
// script, scontrol's job record, slurmctld's state or the results.
func TestBenchSlurmKeysFromNode(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	b := newSlurmBench(t, c)
	const key = "sk-nodekeyfile0123456789abcdefABCDEFGH"
	keys := filepath.Join(t.TempDir(), "bench-keys.env")
	if err := os.WriteFile(keys, []byte("OPENAI_API_KEY="+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Trust is given to bench run alone: the tasks run the plan because
	// the job vouches for it (LANGHOST_BENCH_PLAN), not because the
	// environment trusts everything.
	b.env = append(slices.DeleteFunc(b.env, func(kv string) bool { return strings.HasPrefix(kv, "LANGHOST_TRUST_WORKSPACE=") }),
		"LANGHOST_BENCH_KEYS="+keys)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture", "README"), []byte("a fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(dir, "keyed.yaml")
	if err := os.WriteFile(scenario, []byte(`name: keyed
language: go
fixture: fixture
task: use the key
checks:
  - command: ["test", "-f", "got-key"]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The agent proves it has the key by its length, never its value.
	configs := filepath.Join(dir, "configs.yaml")
	if err := os.WriteFile(configs, []byte(`configs:
  - {name: agent, command: ["sh", "-c", "test ${#OPENAI_API_KEY} -eq `+fmt.Sprint(len(key))+` && touch \"$LANGHOST_BENCH_WORKSPACE/got-key\""], timeout: 5m}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var res struct {
		Submitted struct {
			JobID string `json:"job_id"`
		} `json:"submitted"`
		Progress statusData `json:"progress"`
	}
	code, stderr, env := b.run(&res, "bench", "run", "--executor", "slurm", "--partition", c.Partition, "--time", "5",
		"--cpus-per-task", "1", "--mem", "100M", "--sbatch-arg=--comment=langhost-bench-test", "--trust-workspace", "--config", configs, "--out", out, scenario)
	if code != 0 || res.Progress.Done != 1 {
		t.Fatalf("bench run: exit %d, %+v\n%s\n%+v", code, res, stderr, env.Errors)
	}
	if r := readRecord(t, out, "keyed.agent.1"); !r.Success {
		t.Fatalf("the task's agent did not get the key from the node's keys file: %+v", r)
	}
	script, err := os.ReadFile(filepath.Join(out, ".bench", "job.sh"))
	if err != nil || !strings.Contains(string(script), "LANGHOST_BENCH_KEYS") {
		t.Fatalf("job script: %v\n%s", err, script)
	}
	show, err := c.Command("scontrol", "-dd", "show", "job", res.Submitted.JobID).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol: %v\n%s", err, show)
	}
	// sbatch got the options.
	job := string(show)
	for _, want := range []string{"Partition=" + c.Partition, "TimeLimit=00:05:00", "MinCPUsNode=1", "MinMemoryNode=100M", "Comment=langhost-bench-test"} {
		if !strings.Contains(job, want) {
			t.Errorf("the job's record lacks %s:\n%s", want, job)
		}
	}
	slurmScript, _ := c.Command("scontrol", "write", "batch_script", res.Submitted.JobID, "-").CombinedOutput()
	for what, text := range map[string][]byte{"job.sh": script, "scontrol show job -dd": show, "the batch script": slurmScript} {
		if bytes.Contains(text, []byte(key)) {
			t.Errorf("%s holds the key", what)
		}
	}
	checked := 0
	for _, d := range []string{c.StateDir(), out} {
		_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				checked++
				if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(key)) {
					t.Errorf("%s holds the key", p)
				}
			}
			return nil
		})
	}
	if checked < 5 {
		t.Errorf("only %d files looked at", checked)
	}
}

// BenchmarkBenchSlurm measures the Slurm executor on a test cluster: the
// throughput of one job array (tasks per minute, from submission until
// the command saw every record) and the overhead of a task, from sbatch
// until its run started in `langhost bench task` (Slurm's scheduling and
// launch, langhost's start and its checks of the plan, binary and
// scenario copy): the first task's, which queued behind none, and the
// mean over all. "noop" tasks run an external agent that does nothing,
// so the overhead dominates; "scripted" runs two shipped Go scenarios
// with the scripted model (gopls, go build, go test), four repeats each.
// docs/scale.md gives the figures of a run.
func BenchmarkBenchSlurm(b *testing.B) {
	c := slurmtest.Start(b, slurmtest.Options{})
	sb := newSlurmBench(b, c)
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture", "README"), []byte("a fixture\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	noop := filepath.Join(dir, "noop.yaml")
	if err := os.WriteFile(noop, []byte("name: noop\nlanguage: go\nfixture: fixture\ntask: nothing\nchecks:\n  - command: [\"test\", \"-f\", \"README\"]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	noopConfig := filepath.Join(dir, "configs.yaml")
	if err := os.WriteFile(noopConfig, []byte("configs:\n  - {name: noop, command: [\"true\"]}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"noop", []string{"--config", noopConfig, "--repeat", "20", noop}},
		{"scripted", []string{"--repeat", "4", "../../bench/scenarios/go-fix-compile-error.yaml", "../../bench/scenarios/go-add-missing-import.yaml"}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			sb.t = b
			var tasks int
			var elapsed, overhead time.Duration
			first := time.Duration(math.MaxInt64)
			for range b.N {
				out := filepath.Join(b.TempDir(), "out")
				var res struct {
					Submitted struct {
						Submitted time.Time `json:"submitted"`
						Tasks     []int     `json:"tasks"`
					} `json:"submitted"`
					Progress struct {
						Succeeded int `json:"succeeded"`
					} `json:"progress"`
				}
				code, stderr, _ := sb.run(&res, append([]string{"bench", "run", "--executor", "slurm", "--out", out}, tc.args...)...)
				end := time.Now()
				n := len(res.Submitted.Tasks)
				if code != 0 || n == 0 || res.Progress.Succeeded != n {
					b.Fatalf("bench run: exit %d, %+v\n%s", code, res, stderr)
				}
				runs, _ := filepath.Glob(filepath.Join(out, "*", "result.json"))
				for _, f := range runs {
					var r struct {
						Started time.Time `json:"started"`
					}
					data, err := os.ReadFile(f)
					if err == nil {
						err = json.Unmarshal(data, &r)
					}
					if err != nil {
						b.Fatal(err)
					}
					wait := r.Started.Sub(res.Submitted.Submitted)
					overhead += wait
					first = min(first, wait)
				}
				tasks += n
				elapsed += end.Sub(res.Submitted.Submitted)
			}
			b.ReportMetric(float64(tasks)/elapsed.Minutes(), "tasks/min")
			// The first task to start waited for no other: its wait is the
			// overhead itself; the mean includes the queue behind the CPUs.
			b.ReportMetric(first.Seconds(), "s-first-submit-to-start")
			b.ReportMetric(overhead.Seconds()/float64(tasks), "s-mean-submit-to-start")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestBenchTaskRunsOnlyVouchedPlans: bench task runs the plan of a
// results directory only when its job vouches for it (LANGHOST_BENCH_PLAN
// is the plan's digest, as bench run --executor slurm sets it) or the user
// trusts it (--trust-workspace): naming a directory someone else planned
// runs none of its commands.
func TestBenchTaskRunsOnlyVouchedPlans(t *testing.T) {
	bin := langhostBinary(t)
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture", "README"), []byte("a fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scenario, []byte("name: s\nlanguage: go\nfixture: fixture\ntask: t\nchecks:\n  - command: [\"touch\", \""+marker+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	configs := filepath.Join(dir, "configs.yaml")
	if err := os.WriteFile(configs, []byte("configs:\n  - {name: c, command: [\"true\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	base := []string{"XDG_CONFIG_HOME=" + configDir(t), "XDG_STATE_HOME=" + t.TempDir(), "LANGHOST_DAEMON=0", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	run := func(env []string, args ...string) (int, envelope) {
		cmd := exec.Command(bin, append(args, "--format", "json")...)
		cmd.Env = append(slices.Clone(base), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var e envelope
		if err := json.Unmarshal(stdout.Bytes(), &e); err != nil {
			t.Fatalf("langhost %v: %v\n%s\n%s", args, err, stdout.String(), stderr.String())
		}
		return code, e
	}
	if code, e := run(nil, "bench", "run", "--plan-only", "--trust-workspace", "--config", configs, "--out", out, scenario); code != 0 {
		t.Fatalf("plan: exit %d %+v", code, e.Errors)
	}
	data, err := os.ReadFile(filepath.Join(out, ".bench", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	for _, tt := range []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"not vouched for", nil, nil, 4},
		{"another plan", []string{"LANGHOST_BENCH_PLAN=" + strings.Repeat("0", 64)}, nil, 4},
		{"vouched for", []string{"LANGHOST_BENCH_PLAN=" + digest}, nil, 0},
		{"trusted", nil, []string{"--trust-workspace"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.RemoveAll(marker)
			_ = os.RemoveAll(filepath.Join(out, "s.c.1"))
			code, e := run(tt.env, append(append([]string{"bench", "task"}, tt.args...), out, "0")...)
			_, statErr := os.Stat(marker)
			if code != tt.code || (code == 0) != (statErr == nil) {
				t.Fatalf("exit %d (want %d), check ran: %v, errors %+v", code, tt.code, statErr == nil, e.Errors)
			}
			if code != 0 && (len(e.Errors) == 0 || !strings.Contains(e.Errors[0].Message, "--trust-workspace") || !strings.Contains(e.Errors[0].Message, "LANGHOST_BENCH_PLAN")) {
				t.Errorf("the refusal should say why and what to do: %+v", e.Errors)
			}
		})
	}
}
