// Package bench runs benchmark scenarios: a fixture repository copied to
// a temporary workspace, a task for an agent, constraints on the run and
// acceptance checks that decide success. A run config chooses the runner
// (langhost's own agent or an external agent CLI), the model, the
// interface and the feedback packet mode. Every run leaves a result and a
// JSONL timeline under an output directory; Report compares them.
package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"go.yaml.in/yaml/v3"
)

// maxScenarioBytes bounds a scenario or config file.
const maxScenarioBytes = 1 << 20

// Scenario is one benchmark task.
type Scenario struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Language chooses langhost's agent (go, python, ...).
	Language string `yaml:"language" json:"language"`
	// Fixture is the directory copied to the run's workspace, relative to
	// the scenario file.
	Fixture     string      `yaml:"fixture" json:"fixture"`
	Task        string      `yaml:"task" json:"task"`
	Constraints Constraints `yaml:"constraints,omitempty" json:"constraints"`
	Checks      []Check     `yaml:"checks" json:"checks"`
	// Script is a scripted model conversation (modeltest format) that
	// solves the task, relative to the scenario file; the "scripted"
	// provider replays it.
	Script string `yaml:"script,omitempty" json:"script,omitempty"`

	// File is the scenario file, absolute; paths above are resolved
	// against its directory.
	File string `yaml:"-" json:"file"`
}

// Constraints bound a run.
type Constraints struct {
	MaxSteps   int      `yaml:"max_steps,omitempty" json:"max_steps,omitempty"`
	TimeBudget Duration `yaml:"time_budget,omitempty" json:"time_budget,omitempty"`
	// AllowedTools are the registry ids (or path.Match globs such as
	// "go.*") the agent is offered; empty offers the agent's every tool.
	AllowedTools []string `yaml:"allowed_tools,omitempty" json:"allowed_tools,omitempty"`
}

// Check is one acceptance check: a registered tool that must succeed, or
// a command (argv, no shell) that must exit 0 in the workspace.
type Check struct {
	Name    string         `yaml:"name,omitempty" json:"name,omitempty"`
	Tool    string         `yaml:"tool,omitempty" json:"tool,omitempty"`
	Input   map[string]any `yaml:"input,omitempty" json:"input,omitempty"`
	Command []string       `yaml:"command,omitempty" json:"command,omitempty"`
	Timeout Duration       `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// Label names the check in results: its name, else its tool or argv.
func (c Check) Label() string {
	switch {
	case c.Name != "":
		return c.Name
	case c.Tool != "":
		return c.Tool
	default:
		return strings.Join(c.Command, " ")
	}
}

// Duration is a time.Duration written as "90s" or "2m" in YAML and JSON.
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	if v < 0 {
		return fmt.Errorf("line %d: duration %s is negative", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// nameRE is what a scenario or config name may be: it names directories.
// Compiled on first use, not at package init, which every CLI start pays
// (a {n,m} repetition compiles to n..m copies of its class).
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

// LoadScenario reads and checks a scenario file. Problems are
// invalid_input errors naming the file and the field.
func LoadScenario(file string) (*Scenario, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, failure.Wrap(failure.InvalidInput, err, "scenario %s", file)
	}
	var s Scenario
	if err := readStrict(abs, file, "scenario", &s); err != nil {
		return nil, err
	}
	s.File = abs
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// decodeStrict decodes one YAML document, refusing unknown keys.
// readStrict reads the scenario or config file at path, named file in
// errors, into v: a missing file is not_found, anything else wrong
// invalid_input.
func readStrict(path, file, kind string, v any) error {
	data, err := safefile.ReadRegular(path, maxScenarioBytes)
	if err != nil {
		code := failure.InvalidInput
		if errors.Is(err, os.ErrNotExist) {
			code = failure.NotFound
		}
		return failure.Wrap(code, err, "%s %s", kind, file)
	}
	if err := decodeStrict(data, v); err != nil {
		return invalid(file, "", "%v", err)
	}
	return nil
}

func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the file is empty")
		}
		return err
	}
	return nil
}

func invalid(file, field, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &failure.Error{Code: failure.InvalidInput, Field: field, Message: file + ": " + msg}
}

func (s *Scenario) validate() error {
	f := s.File
	if !nameRE().MatchString(s.Name) {
		return invalid(f, "name", "%q must be lower-case letters, digits, '.', '-' or '_' (it names result directories)", s.Name)
	}
	if s.Language == "" {
		return invalid(f, "language", "missing (go, python, ...)")
	}
	if strings.TrimSpace(s.Task) == "" {
		return invalid(f, "task", "missing")
	}
	if _, err := s.local("fixture", s.Fixture); err != nil {
		return err
	}
	if s.Script != "" {
		if _, err := s.local("script", s.Script); err != nil {
			return err
		}
	}
	if s.Constraints.MaxSteps < 0 {
		return invalid(f, "constraints.max_steps", "%d is negative", s.Constraints.MaxSteps)
	}
	for i, g := range s.Constraints.AllowedTools {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return invalid(f, fmt.Sprintf("constraints.allowed_tools[%d]", i), "%q is not a tool id or glob", g)
		}
	}
	if len(s.Checks) == 0 {
		return invalid(f, "checks", "a scenario needs at least one acceptance check")
	}
	for i, c := range s.Checks {
		field := fmt.Sprintf("checks[%d]", i)
		switch {
		case c.Tool != "" && len(c.Command) > 0:
			return invalid(f, field, "has both tool and command; give one")
		case c.Tool == "" && len(c.Command) == 0:
			return invalid(f, field, "needs a tool or a command")
		case len(c.Command) > 0 && strings.TrimSpace(c.Command[0]) == "":
			return invalid(f, field+".command[0]", "the executable is empty")
		case len(c.Input) > 0 && c.Tool == "":
			return invalid(f, field+".input", "only a tool check takes input")
		}
	}
	return nil
}

// local resolves a path of the scenario (fixture, script) against its
// directory; it must stay inside that directory: a scenario names its own
// files, not the rest of the disk.
func (s *Scenario) local(field, p string) (string, error) {
	if p == "" {
		return "", invalid(s.File, field, "missing")
	}
	if filepath.IsAbs(p) || !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", invalid(s.File, field, "%q must be a relative path inside the scenario's directory", p)
	}
	return filepath.Join(filepath.Dir(s.File), filepath.FromSlash(p)), nil
}

// FixtureDir is the fixture's directory.
func (s *Scenario) FixtureDir() string {
	p, _ := s.local("fixture", s.Fixture)
	return p
}

// ScriptFile is the scripted conversation's file, or "" when there is none.
func (s *Scenario) ScriptFile() string {
	if s.Script == "" {
		return ""
	}
	p, _ := s.local("script", s.Script)
	return p
}

// LoadScenarios loads each argument: a scenario file, or a directory whose
// *.yaml files directly inside are scenarios. Names must be unique.
func LoadScenarios(args []string) ([]*Scenario, error) {
	var out []*Scenario
	seen := map[string]string{}
	for _, a := range args {
		files := []string{a}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			files, _ = filepath.Glob(filepath.Join(a, "*.yaml"))
			if len(files) == 0 {
				return nil, failure.New(failure.NotFound, "%s: no *.yaml scenario files", a)
			}
		}
		for _, f := range files {
			s, err := LoadScenario(f)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[s.Name]; dup {
				return nil, invalid(f, "name", "%q is also the name of %s", s.Name, prev)
			}
			seen[s.Name] = f
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, failure.New(failure.InvalidInput, "no scenarios given")
	}
	return out, nil
}
