package bench

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// ResultFile and TimelineFile are the files of one run's directory.
const (
	ResultFile   = "result.json"
	TimelineFile = "timeline.jsonl"
)

// OpenHost loads langhost over a workspace directory: the caller decides
// the config and the built-in plugins.
type OpenHost func(ctx context.Context, workspace string) (*host.Host, error)

// Options are what every run of a bench shares.
type Options struct {
	// Out is the results directory; each run gets its own directory in it.
	Out      string
	OpenHost OpenHost
	// Getenv reads API keys of real providers; nil reads nothing.
	Getenv func(string) string
	// Repeat runs each scenario and config this many times (default 1).
	Repeat int
	Logger hclog.Logger
	// Progress, if set, gets one line per finished run.
	Progress io.Writer
	// Langhost is the langhost executable that serves a run's tools with
	// interface mcp; empty means os.Executable().
	Langhost string
	// Executor names what runs the tasks (ExecutorLocal when empty) and
	// Slurm the IDs of the Slurm task running this one, for provenance.
	Executor string
	Slurm    SlurmIDs
	// Stopped, if set, says how the executor stopped a run whose context
	// was cancelled: StatusFailed or StatusTimedOut and why. It is asked
	// once the run has ended, so the context can be cancelled the moment
	// a signal arrives (before the agent, signalled too, exits and the
	// run would look finished) while the reason takes a question to the
	// scheduler.
	Stopped func() (status, why string)
}

// Executors of a bench's tasks.
const (
	ExecutorLocal = "local" // one run after another in this process
	ExecutorSlurm = "slurm" // one Slurm array task per run
)

// SlurmIDs identify the Slurm task of a run; empty for a local run.
type SlurmIDs struct {
	JobID       string `json:"slurm_job_id"`
	ArrayJobID  string `json:"slurm_array_job_id"`
	ArrayTaskID string `json:"slurm_array_task_id"`
	Cluster     string `json:"slurm_cluster,omitempty"`
	Partition   string `json:"slurm_partition,omitempty"`
}

// Statuses of a run's record: whether it ran to its end.
const (
	// StatusFinished: the run ended and its checks decided Success.
	StatusFinished = "finished"
	// StatusFailed: the run was stopped (cancelled, interrupted, killed,
	// lost) before its end; Error says by what.
	StatusFailed = "failed"
	// StatusTimedOut: the executor's time limit stopped the run.
	StatusTimedOut = "timed_out"
)

// Result is one run of one scenario with one config: what result.json
// holds and what Report compares.
type Result struct {
	Scenario  string `json:"scenario"`
	Language  string `json:"language"`
	Config    string `json:"config"`
	Runner    string `json:"runner"`
	Interface string `json:"interface"`
	Packet    string `json:"packet,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Repeat    int    `json:"repeat"`
	Run       string `json:"run"` // the run's directory name
	// Status is StatusFinished, StatusFailed or StatusTimedOut; records of
	// older langhost versions have none and are finished.
	Status string `json:"status,omitempty"`

	// Success is true when every acceptance check passed.
	Success    bool   `json:"success"`
	StopReason string `json:"stop_reason,omitempty"`
	// Measured says whether steps, tool calls and tokens were counted
	// (langhost's agent); an external CLI reports only success and time.
	Measured  bool `json:"measured"`
	Steps     int  `json:"steps"`
	ToolCalls int  `json:"tool_calls"`
	// LanghostCalls is how many calls an external agent made to
	// langhost's tools (CallLogEnv), nil when unknown; langhost's own
	// agent calls nothing else, so ToolCalls says it.
	LanghostCalls *int          `json:"langhost_calls,omitempty"`
	Tokens        model.Usage   `json:"tokens"`
	WallMS        float64       `json:"wall_ms"`  // the agent's run
	CheckMS       float64       `json:"check_ms"` // the acceptance checks
	Checks        []CheckResult `json:"checks"`
	Error         string        `json:"error,omitempty"`
	Started       time.Time     `json:"started"`
	Provenance    Provenance    `json:"provenance"`
}

// Provenance is what a run needs to be compared with another.
type Provenance struct {
	Langhost     string   `json:"langhost"`
	Go           string   `json:"go"`
	Platform     string   `json:"platform"`
	ScenarioFile string   `json:"scenario_file"`
	ScenarioHash string   `json:"scenario_sha256"`
	ScriptHash   string   `json:"script_sha256,omitempty"`
	Command      []string `json:"command,omitempty"` // the external runner's argv
	// SpecSource and SpecHash identify the language spec the run's
	// langhost loaded for the scenario's language (its JSON form hashed:
	// user overrides count).
	SpecSource string `json:"spec_source,omitempty"`
	SpecHash   string `json:"spec_sha256,omitempty"`
	// Config is the run config as the run used it.
	Config   *RunConfig `json:"config,omitempty"`
	Host     string     `json:"host"`
	Executor string     `json:"executor"`
	SlurmIDs
}

// Run runs every scenario with every config, one run at a time (runs
// compete for the same cores otherwise, and timings would mean nothing).
// A run that fails is a result with success false; only a problem with
// the bench itself (the output directory, a cancelled context) stops it.
func Run(ctx context.Context, opts Options, scenarios []*Scenario, configs []RunConfig) ([]*Result, error) {
	if opts.Out == "" {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "out", Message: "no results directory"}
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "results directory")
	}
	repeat := max(opts.Repeat, 1)
	var out []*Result
	for _, s := range scenarios {
		for _, c := range configs {
			for n := 1; n <= repeat; n++ {
				if err := ctx.Err(); err != nil {
					return out, failure.Wrap(failure.Canceled, err, "bench")
				}
				r, err := runOne(ctx, opts, s, c, n)
				if err != nil {
					return out, err
				}
				out = append(out, r)
				if opts.Progress != nil {
					status := "FAIL"
					if r.Success {
						status = "ok"
					}
					fmt.Fprintf(opts.Progress, "%-4s %s (%s) %.1fs\n", status, r.Run, r.StopReason, r.WallMS/1000)
				}
			}
		}
	}
	return out, nil
}

// runOne runs s with c in a fresh copy of the fixture and writes the
// run's result and timeline.
func runOne(ctx context.Context, opts Options, s *Scenario, c RunConfig, n int) (*Result, error) {
	name := RunName(s.Name, c.Name, n)
	dir := filepath.Join(opts.Out, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, failure.New(failure.Precondition, "%s already holds a run; results are never overwritten: choose another --out", dir)
		}
		return nil, failure.Wrap(failure.Precondition, err, "results directory")
	}
	r := &Result{Scenario: s.Name, Language: s.Language, Config: c.Name, Runner: c.Runner, Interface: c.Interface,
		Packet: c.Packet, Provider: c.Provider, Model: c.Model, Repeat: n, Run: name, Started: time.Now().UTC(),
		Checks: []CheckResult{}}
	r.Provenance = provenance(s, c)
	r.Provenance.Executor = cmp.Or(opts.Executor, ExecutorLocal)
	r.Provenance.SlurmIDs = opts.Slurm

	red := redact.New(secrets(opts.Getenv)...)
	tl, err := createTimeline(filepath.Join(dir, TimelineFile), red)
	if err != nil {
		return nil, err
	}
	defer tl.Close()
	tl.write(benchEvent{Type: "bench_start", Scenario: s.Name, Config: c.Name, Task: s.Task, Runner: c.Runner,
		Interface: c.Interface, Packet: c.Packet, Provider: c.Provider, Model: c.Model})

	ws, err := os.MkdirTemp("", "langhost-bench-")
	if err != nil {
		return nil, failure.Wrap(failure.Precondition, err, "run workspace")
	}
	defer os.RemoveAll(ws)
	// The workspace's real path: tools report paths relative to it.
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}

	var h *host.Host
	defer func() {
		if h != nil {
			_ = h.Close()
		}
	}()
	openHost := func() (*host.Host, error) {
		if h == nil {
			var err error
			if h, err = opts.OpenHost(ctx, ws); err != nil {
				return nil, fmt.Errorf("open langhost over the run's workspace: %w", err)
			}
		}
		return h, nil
	}

	var runErr error
	if err := copyFixture(s.FixtureDir(), ws); err != nil {
		runErr = err
	} else {
		start := time.Now()
		switch c.Runner {
		case RunnerLanghost:
			runErr = runAgent(ctx, opts, s, c, ws, openHost, tl, r)
		case RunnerExternal:
			runErr = runExternal(ctx, s, c, ws, dir, tl, r)
		}
		r.WallMS = ms(time.Since(start))
		start = time.Now()
		r.Checks = runChecks(ctx, s, ws, openHost, tl)
		r.CheckMS = ms(time.Since(start))
		r.Success = len(r.Checks) > 0
		for _, ch := range r.Checks {
			r.Success = r.Success && ch.OK
		}
	}
	if runErr != nil {
		r.Error = runErr.Error()
		r.Success = false
	}
	r.Status = StatusFinished
	if ctx.Err() != nil {
		// Stopped, not finished: the checks ran on a cut-short run.
		r.Status, r.Success = StatusFailed, false
		why := context.Cause(ctx).Error()
		if opts.Stopped != nil {
			r.Status, why = opts.Stopped()
		}
		// What the run itself failed with, if anything, stays.
		r.Error = strings.TrimSuffix("stopped before its end: "+why+"; "+r.Error, "; ")
	}
	if h != nil {
		r.Provenance.SpecSource, r.Provenance.SpecHash = specDigest(h, s.Language)
	}
	tl.write(benchEvent{Type: "bench_end", Status: r.Status, Success: &r.Success, StopReason: r.StopReason, Error: r.Error,
		Steps: r.Steps, ToolCalls: r.ToolCalls, Tokens: &r.Tokens, DurationMS: r.WallMS})
	if err := tl.Close(); err != nil {
		return nil, fmt.Errorf("timeline of %s: %w", name, err)
	}
	if clean, err := redact.JSON(red, r); err == nil {
		r = clean
	}
	if err := writeJSON(filepath.Join(dir, ResultFile), r); err != nil {
		return nil, err
	}
	return r, ctx.Err()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func provenance(s *Scenario, c RunConfig) Provenance {
	hostname, _ := os.Hostname()
	cfg := c
	p := Provenance{Langhost: host.Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		ScenarioFile: s.File, ScenarioHash: fileHash(s.File), Config: &cfg, Host: hostname}
	if f := s.ScriptFile(); f != "" && (c.Provider == ProviderScripted || c.Provider == ProviderScriptedAnthropic) {
		p.ScriptHash = fileHash(f)
	}
	if c.Runner == RunnerExternal {
		p.Command = c.Command
	}
	return p
}

// specDigest names and hashes the spec h loaded for a language.
func specDigest(h *host.Host, language string) (source, digest string) {
	f, ok := h.Specs.Language(language)
	if !ok {
		return "", ""
	}
	b, err := json.Marshal(f)
	if err != nil {
		return f.Source, ""
	}
	sum := sha256.Sum256(b)
	return f.Source, hex.EncodeToString(sum[:])
}

func fileHash(path string) string {
	data, err := safefile.ReadRegular(path, maxScenarioBytes)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return failure.Wrap(failure.Precondition, err, "writing %s", path)
	}
	return nil
}
