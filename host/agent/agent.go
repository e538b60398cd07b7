// Package agent runs langhost's own coding agents: one Language Specialist
// per loaded language spec ("go-coding", "python-coding", ...), whose ReAct
// loop asks a model for its next step and runs the tools it calls through
// the registry, with the same confinement, confirmation and transactions
// as the CLI and MCP. The executor enforces the role the agent acts in and
// records every message, tool call, result and role change in a transcript.
package agent

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Defaults of a language whose spec has no agent block (the seed's values).
const (
	DefaultProvider = "ollama"
	DefaultModel    = "qwen2.5-coder:14b"
	DefaultMaxSteps = 15
)

// Settings choose the model of an agent and bound its loop.
type Settings struct {
	Provider    string   `json:"provider"`
	Model       string   `json:"model"`
	BaseURL     string   `json:"base_url,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxSteps    int      `json:"max_steps"`
}

// Override returns s with the non-zero fields of o in place of its own:
// a role's model, then the run's flags, override the spec's agent block.
func (s Settings) Override(o Settings) Settings {
	if o.Provider != "" {
		s.Provider = o.Provider
	}
	if o.Model != "" {
		s.Model = o.Model
	}
	if o.BaseURL != "" {
		s.BaseURL = o.BaseURL
	}
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.MaxSteps > 0 {
		s.MaxSteps = o.MaxSteps
	}
	return s
}

// Specialist is the Language Specialist agent of one language spec.
type Specialist struct {
	ID           string     `json:"id"` // "<language>-coding"
	Language     string     `json:"language"`
	Name         string     `json:"name"`
	Capabilities []string   `json:"capabilities"`
	Priority     int        `json:"priority"`
	Settings     Settings   `json:"settings"`
	Tools        []string   `json:"tools"` // registry ids it may be offered
	Spec         *spec.File `json:"-"`
}

// WorkspaceToolPrefix starts the ids of the language-neutral file tools
// (read, list, search, write) every specialist is offered.
const WorkspaceToolPrefix = "workspace."

// Specialists returns one agent per loaded language, sorted by id. Each is
// offered its language's tools and the workspace file tools.
func Specialists(specs *spec.Set, reg *registry.Registry) []*Specialist {
	var out []*Specialist
	for _, f := range specs.Languages {
		s := &Specialist{
			ID:           f.Language.ID + "-coding",
			Language:     f.Language.ID,
			Name:         cmp.Or(f.Language.Name, f.Language.ID),
			Capabilities: slices.Clone(f.Capabilities),
			Priority:     f.Priority,
			Settings:     Settings{Provider: DefaultProvider, Model: DefaultModel, MaxSteps: DefaultMaxSteps},
			Spec:         f,
		}
		if s.Capabilities == nil {
			s.Capabilities = []string{}
		}
		if a := f.Agent; a != nil {
			t := a.Temperature
			s.Settings = s.Settings.Override(Settings{Provider: a.Provider, Model: a.Model, Temperature: &t, MaxSteps: a.MaxSteps})
		}
		for _, t := range reg.List() {
			if t.Language == f.Language.ID || strings.HasPrefix(t.ID, WorkspaceToolPrefix) {
				s.Tools = append(s.Tools, t.ID)
			}
		}
		if s.Tools == nil {
			s.Tools = []string{}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Specialist) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Selection says how to choose an agent for a task, in order: the
// language, else the languages of the files the task names, else the
// capability (default "coding") and the highest priority.
type Selection struct {
	Language   string
	Task       string
	Capability string
}

// fileRE finds words that look like file names in a task.
var fileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\w./-]+\.[A-Za-z0-9]+`) })

// Choose picks the agent for a task. An unknown language is not_found with
// the closest ids; no agent with the capability is not_found too.
func Choose(agents []*Specialist, sel Selection) (*Specialist, error) {
	if len(agents) == 0 {
		return nil, failure.New(failure.NotFound, "no language specs are loaded, so there is no agent")
	}
	if sel.Language != "" {
		for _, a := range agents {
			if a.Language == sel.Language || a.ID == sel.Language {
				return a, nil
			}
		}
		ids := make([]string, len(agents))
		for i, a := range agents {
			ids[i] = a.Language
		}
		msg := fmt.Sprintf("no agent for language %q", sel.Language)
		if best := textdist.Ranked(sel.Language, ids, 3); len(best) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(best, ", "))
		}
		return nil, &failure.Error{Code: failure.NotFound, Field: "language", Message: msg}
	}
	if a := byFiles(agents, sel.Task); a != nil {
		return a, nil
	}
	want := cmp.Or(sel.Capability, "coding")
	var best *Specialist
	for _, a := range agents {
		if !slices.Contains(a.Capabilities, want) {
			continue
		}
		if best == nil || a.Priority > best.Priority {
			best = a
		}
	}
	if best == nil {
		return nil, &failure.Error{Code: failure.NotFound, Field: "capability",
			Message: fmt.Sprintf("no agent has the capability %q; name a language with --language", want)}
	}
	return best, nil
}

// byFiles returns the agent whose language's extensions the task's file
// names have most often (ties to the higher priority, then the id), or nil.
func byFiles(agents []*Specialist, task string) *Specialist {
	votes := map[*Specialist]int{}
	for _, word := range fileRE().FindAllString(task, -1) {
		ext := strings.ToLower(filepath.Ext(word))
		for _, a := range agents {
			if a.Spec != nil && slices.ContainsFunc(a.Spec.Language.Extensions, func(e string) bool { return strings.EqualFold(e, ext) }) {
				votes[a]++
			}
		}
	}
	var best *Specialist
	for _, a := range agents { // sorted by id: the first of equals wins
		if votes[a] == 0 {
			continue
		}
		if best == nil || votes[a] > votes[best] || votes[a] == votes[best] && a.Priority > best.Priority {
			best = a
		}
	}
	return best
}
