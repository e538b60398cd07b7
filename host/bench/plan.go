package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/internal/atomicfile"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// StateDir is the directory of a results directory that holds what its
// tasks share: the plan, the copied scenarios, the job script, Slurm's
// output and earlier attempts. Report reads DIR/*/result.json only, so
// nothing in here counts as a run.
const StateDir = ".bench"

// PlanFile is the plan in StateDir.
const PlanFile = "plan.json"

// Plan is the list of a bench's tasks, written into its results
// directory so that each task can run on its own, anywhere that directory
// and the binary are (`langhost bench task DIR N`): a cluster's nodes, a
// Kubernetes pod, a CI job.
type Plan struct {
	Langhost string `json:"langhost"`
	// Binary is the langhost executable the tasks run, and its digest:
	// a node whose file differs (not the shared filesystem, another
	// build) refuses to run a task.
	Binary       string `json:"binary"`
	BinarySHA256 string `json:"binary_sha256"`
	// Scenarios are the copies in StateDir/scenarios, by name.
	Scenarios []PlannedScenario `json:"scenarios"`
	Configs   []RunConfig       `json:"configs"`
	Repeat    int               `json:"repeat"`
	Tasks     []Task            `json:"tasks"`
	Created   time.Time         `json:"created"`
}

// PlannedScenario is a scenario copied into the results directory.
type PlannedScenario struct {
	Name string `json:"name"`
	// File is the copy, relative to the results directory.
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	// Source is the scenario file the copy was made from.
	Source string `json:"source"`
}

// Task is one run: a scenario, a config and a repeat.
type Task struct {
	Index    int    `json:"index"`
	Scenario string `json:"scenario"`
	Config   string `json:"config"`
	Repeat   int    `json:"repeat"`
	// Run is the run's directory in the results directory.
	Run string `json:"run"`
}

// RunName is the directory name of a run.
func RunName(scenario, config string, repeat int) string {
	return fmt.Sprintf("%s.%s.%d", scenario, config, repeat)
}

// NewPlan lists the tasks of scenarios × configs × repeat in the order Run
// runs them. binary is the langhost executable the tasks will run.
func NewPlan(scenarios []*Scenario, configs []RunConfig, repeat int, binary string) (*Plan, error) {
	abs, err := filepath.Abs(binary)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "langhost binary")
	}
	sum, err := fileSHA256(abs)
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "langhost binary")
	}
	p := &Plan{Langhost: host.Version, Binary: abs, BinarySHA256: sum, Configs: configs, Repeat: max(repeat, 1),
		Created: time.Now().UTC()}
	for _, s := range scenarios {
		p.Scenarios = append(p.Scenarios, PlannedScenario{Name: s.Name, Source: s.File,
			File: filepath.ToSlash(filepath.Join(StateDir, "scenarios", s.Name, filepath.Base(s.File)))})
		for _, c := range configs {
			for n := 1; n <= p.Repeat; n++ {
				p.Tasks = append(p.Tasks, Task{Index: len(p.Tasks), Scenario: s.Name, Config: c.Name, Repeat: n,
					Run: RunName(s.Name, c.Name, n)})
			}
		}
	}
	return p, nil
}

// Prepare writes the plan into dir with copies of its scenarios (file,
// fixture and script), or, when dir already holds a plan, checks that it
// is the same bench (same scenarios, configs and repeats) and returns
// the one on disk: a rerun continues it. The copies make the tasks
// independent of the checkout they were planned from.
func (p *Plan) Prepare(dir string, scenarios []*Scenario) (*Plan, error) {
	state := filepath.Join(dir, StateDir)
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "results directory")
	}
	for i, s := range scenarios {
		copied, err := copyScenario(s, filepath.Join(dir, filepath.FromSlash(p.Scenarios[i].File)))
		if err != nil {
			return nil, err
		}
		p.Scenarios[i].SHA256 = copied
	}
	old, err := LoadPlan(dir)
	switch {
	case err == nil:
		if why := old.differs(p); why != "" {
			return nil, failure.New(failure.Precondition, "%s holds another bench (%s); a rerun takes the same scenarios, configs and --repeat: choose another --out", dir, why)
		}
		if old.BinarySHA256 != p.BinarySHA256 || old.Binary != p.Binary {
			// A rebuilt langhost runs the rest: the tasks check the
			// binary against the plan.
			old.Binary, old.BinarySHA256, old.Langhost = p.Binary, p.BinarySHA256, p.Langhost
			if err := old.write(dir); err != nil {
				return nil, err
			}
		}
		return old, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return p, p.write(dir)
}

func (p *Plan) write(dir string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, StateDir, PlanFile), append(b, '\n'), 0o644); err != nil {
		return failure.Wrap(failure.Precondition, err, "writing the plan")
	}
	return nil
}

// differs says how q is another bench than p, or "".
func (p *Plan) differs(q *Plan) string {
	if len(p.Tasks) != len(q.Tasks) || p.Repeat != q.Repeat {
		return fmt.Sprintf("%d tasks, not %d", len(p.Tasks), len(q.Tasks))
	}
	for i := range p.Tasks {
		if p.Tasks[i] != q.Tasks[i] {
			return fmt.Sprintf("task %d is %s, not %s", i, p.Tasks[i].Run, q.Tasks[i].Run)
		}
	}
	for i := range p.Scenarios {
		if p.Scenarios[i].SHA256 != q.Scenarios[i].SHA256 {
			return fmt.Sprintf("scenario %s changed", p.Scenarios[i].Name)
		}
	}
	a, _ := json.Marshal(p.Configs)
	b, _ := json.Marshal(q.Configs)
	if string(a) != string(b) {
		return "the run configs changed"
	}
	return ""
}

// LoadPlan reads the plan of a results directory. A missing plan is
// not_found (wrapping fs.ErrNotExist) and says what that means on a node.
func LoadPlan(dir string) (*Plan, error) {
	file := filepath.Join(dir, StateDir, PlanFile)
	data, err := safefile.ReadRegular(file, maxResultBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			host, _ := os.Hostname()
			return nil, failure.Wrap(failure.NotFound, err, "%s has no plan (%s) on host %s: it was not prepared by `langhost bench run --executor slurm` or --plan-only, or this host does not see the shared filesystem it was written to",
				dir, filepath.Join(StateDir, PlanFile), host)
		}
		return nil, failure.Wrap(failure.InvalidInput, err, "bench plan %s", file)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "bench plan %s", file)
	}
	for i, t := range p.Tasks {
		if t.Index != i || !nameRE().MatchString(t.Scenario) || !nameRE().MatchString(t.Config) || t.Run != RunName(t.Scenario, t.Config, t.Repeat) {
			return nil, invalid(file, fmt.Sprintf("tasks[%d]", i), "is not a task this langhost planned")
		}
	}
	return &p, nil
}

// PlanEnv names the variable in which `bench run --executor slurm` hands
// its tasks the SHA-256 of the plan it submitted. A task runs the plan's
// commands and its fixtures' code, so `bench task` runs a plan only when
// the variable matches it or the user trusts it (--trust-workspace): a
// results directory someone else wrote (a cloned repository's, a shared
// directory others can write) runs nothing by being named.
const PlanEnv = "LANGHOST_BENCH_PLAN"

// PlanDigest is the SHA-256 of the plan file of dir.
func PlanDigest(dir string) (string, error) {
	sum, err := fileSHA256(filepath.Join(dir, StateDir, PlanFile))
	if err != nil {
		return "", failure.Wrap(failure.Precondition, err, "bench plan of %s", dir)
	}
	return sum, nil
}

// CheckSubmitted refuses the plan of dir unless digest, the value of
// PlanEnv in the task's environment, is its SHA-256.
func CheckSubmitted(dir, digest string) error {
	sum, err := PlanDigest(dir)
	if err != nil {
		return err
	}
	if digest == sum {
		return nil
	}
	why := "is not set"
	if digest != "" {
		why = "names another plan"
	}
	return &failure.Error{Code: failure.Precondition, Field: PlanEnv, Message: fmt.Sprintf(
		"%s was not submitted to this task by `langhost bench run` (%s %s), and a task runs the plan's commands and its fixtures' code: if you planned it yourself (bench run --plan-only, for Kubernetes or CI), run the task with --trust-workspace",
		filepath.Join(dir, StateDir, PlanFile), PlanEnv, why)}
}

// scenario returns the planned copy of a scenario, loaded and checked
// against its digest: a copy that is missing or changed on this node is
// an error naming it.
func (p *Plan) scenario(dir, name string) (*Scenario, error) {
	for _, ps := range p.Scenarios {
		if ps.Name != name {
			continue
		}
		file := filepath.Join(dir, filepath.FromSlash(ps.File))
		if !filepath.IsLocal(filepath.FromSlash(ps.File)) {
			return nil, invalid(filepath.Join(dir, StateDir, PlanFile), "scenarios", "%q is not inside the results directory", ps.File)
		}
		sum, err := fileSHA256(file)
		if err != nil {
			return nil, failure.Wrap(failure.Precondition, err, "the copied scenario %s (the shared filesystem must hold the results directory's %s on every node)", name, StateDir)
		}
		if sum != ps.SHA256 {
			return nil, failure.New(failure.Precondition, "the copied scenario %s changed since the bench was planned (sha256 %s, planned %s)", file, sum, ps.SHA256)
		}
		s, err := LoadScenario(file)
		if err != nil {
			return nil, err
		}
		if st, err := os.Stat(s.FixtureDir()); err != nil || !st.IsDir() {
			return nil, failure.New(failure.Precondition, "the copied fixture %s of scenario %s is missing on this host: the shared filesystem must hold the results directory's %s on every node", s.FixtureDir(), name, StateDir)
		}
		return s, nil
	}
	return nil, failure.New(failure.InvalidInput, "the plan has no scenario %s", name)
}

func (p *Plan) config(name string) (RunConfig, bool) {
	for _, c := range p.Configs {
		if c.Name == name {
			return c, true
		}
	}
	return RunConfig{}, false
}

// copyScenario copies s's file, fixture and script to the file dst (and
// beside it, keeping their paths relative to the file) and returns the
// copy's digest. An existing copy is replaced only by the same content.
func copyScenario(s *Scenario, dst string) (string, error) {
	data, err := safefile.ReadRegular(s.File, maxScenarioBytes)
	if err != nil {
		return "", failure.Wrap(failure.InvalidInput, err, "scenario %s", s.File)
	}
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	root := filepath.Dir(dst)
	if old, err := fileSHA256(dst); err == nil {
		if old != digest {
			return "", failure.New(failure.Precondition, "%s holds another version of scenario %s", dst, s.Name)
		}
		return digest, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", failure.Wrap(failure.Precondition, err, "copying scenario %s", s.Name)
	}
	fixture := filepath.Join(root, filepath.FromSlash(s.Fixture))
	if err := os.MkdirAll(fixture, 0o755); err != nil {
		return "", failure.Wrap(failure.Precondition, err, "copying scenario %s", s.Name)
	}
	if err := copyFixture(s.FixtureDir(), fixture); err != nil {
		return "", err
	}
	if f := s.ScriptFile(); f != "" {
		script, err := safefile.ReadRegular(f, maxScenarioBytes)
		if err != nil {
			return "", failure.Wrap(failure.InvalidInput, err, "script of scenario %s", s.Name)
		}
		target := filepath.Join(root, filepath.FromSlash(s.Script))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(target, script, 0o644); err != nil {
			return "", failure.Wrap(failure.Precondition, err, "copying scenario %s", s.Name)
		}
	}
	// The scenario file last: its presence says the copy is whole.
	if err := atomicfile.WriteFile(dst, data, 0o644); err != nil {
		return "", failure.Wrap(failure.Precondition, err, "copying scenario %s", s.Name)
	}
	return digest, nil
}

// fileSHA256 is the hex SHA-256 of a file's content, streamed (the
// binary is tens of megabytes).
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
