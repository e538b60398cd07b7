// Package roles defines agent roles as data — Planner, Coder, Reviewer,
// Default and any role a user adds — and enforces them: a role says which
// tools it may call by kind, side effect and category, and Allows refuses
// every other call with an escalation error the executor logs.
//
// Roles load in layers: the embedded files, then the user's directory,
// then the workspace's (.langhost/roles). A role in a later layer replaces
// the one of the same name. A layer that is not trusted (an untrusted
// workspace) cannot widen anything: its tool rules are intersected with
// the role it overrides (a new role's with Default's), its model override
// and its changes to an existing role's prompt and constraints are
// ignored, and a new role's prompt is marked Untrusted; each narrowing is
// reported in Set.Warnings.
package roles

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// DefaultName is the role used when none or an unknown one is named.
const DefaultName = "default"

// Side effects a tool may have (registry.Tool.SideEffects). A tool that
// declares anything else is treated as External.
const (
	None      = "none"
	Workspace = "workspace"
	External  = "external"
)

// ErrEscalation is wrapped by every refusal of Allows.
var ErrEscalation = errors.New("role escalation refused")

// Role is one role.
type Role struct {
	Name         string   `yaml:"name" json:"name"`
	Description  string   `yaml:"description" json:"description"`
	Capabilities []string `yaml:"capabilities,omitempty" json:"capabilities,omitempty"`
	Constraints  []string `yaml:"constraints,omitempty" json:"constraints,omitempty"`
	// Prompt is the role's layer of the system prompt. PromptKey instead
	// names a markdown file next to the role file (promptKey: coder reads
	// coder.md), so a prompt can be edited or overridden as text.
	Prompt    string `yaml:"prompt" json:"prompt"`
	PromptKey string `yaml:"promptKey,omitempty" json:"promptKey,omitempty"`
	Tools     Rules  `yaml:"tools" json:"tools"`
	// Model, if set, overrides the language's model for this role.
	Model *ModelOverride `yaml:"model,omitempty" json:"model,omitempty"`
	// Source is the file the role was loaded from.
	Source string `yaml:"-" json:"source"`
	// Untrusted marks a role defined by an untrusted layer: its prompt is
	// the repository's text, which prompts delimits as data.
	Untrusted bool `yaml:"-" json:"untrusted,omitempty"`
}

// Rules say which tools a role may call. A tool is allowed when it passes
// every rule.
type Rules struct {
	// SideEffects lists the side effects allowed: none, workspace,
	// external.
	SideEffects []string `yaml:"sideEffects" json:"sideEffects"`
	// Exec allows tools that run a command (kind cli). Even a read-only
	// build or test runs code from the workspace, so roles that only read
	// do not get it.
	Exec bool `yaml:"exec" json:"exec"`
	// Categories, if not empty, allows only tools with one of them.
	Categories []string `yaml:"categories,omitempty" json:"categories,omitempty"`
	// Deny lists tool ids or path.Match globs ("*.format") never allowed.
	Deny []string `yaml:"deny,omitempty" json:"deny,omitempty"`
}

// ModelOverride selects another model for a role. Where the model is
// served (base URL, key) stays in the user's config.
type ModelOverride struct {
	Provider    string   `yaml:"provider,omitempty" json:"provider,omitempty"`
	Model       string   `yaml:"model,omitempty" json:"model,omitempty"`
	Temperature *float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	MaxTokens   int      `yaml:"maxTokens,omitempty" json:"maxTokens,omitempty"`
}

// Allows returns nil if the role may call t, else a precondition_failed
// error wrapping ErrEscalation that names the role, the tool and the rule.
func (r *Role) Allows(t *registry.Tool) error {
	if t == nil {
		return failure.New(failure.NotFound, "no tool")
	}
	reason := r.refusal(t)
	if reason == "" {
		return nil
	}
	return &failure.Error{
		Code:    failure.Precondition,
		Message: fmt.Sprintf("role %s may not call %s: %s", r.Name, t.ID, reason),
		Details: map[string]any{"escalation": true, "role": r.Name, "tool": t.ID, "reason": reason},
		Err:     ErrEscalation,
	}
}

func (r *Role) refusal(t *registry.Tool) string {
	for _, pat := range r.Tools.Deny {
		if ok, _ := path.Match(pat, t.ID); ok || pat == t.ID {
			return fmt.Sprintf("denied by tools.deny %q", pat)
		}
	}
	if t.Kind == registry.KindCLI && !r.Tools.Exec {
		return "it runs a command and the role does not allow exec"
	}
	effect := sideEffect(t)
	if !slices.Contains(r.Tools.SideEffects, effect) {
		return fmt.Sprintf("its side effect %q is not among the role's (%s)", effect, listOrNone(r.Tools.SideEffects))
	}
	if len(r.Tools.Categories) > 0 && !slices.ContainsFunc(t.Categories, func(c string) bool {
		return slices.Contains(r.Tools.Categories, strings.ToLower(c))
	}) {
		return fmt.Sprintf("none of its categories (%s) is among the role's (%s)", listOrNone(t.Categories), strings.Join(r.Tools.Categories, ", "))
	}
	return ""
}

// sideEffect is the tool's declared side effect; anything unknown counts
// as the widest.
func sideEffect(t *registry.Tool) string {
	switch t.SideEffects {
	case None, Workspace:
		return t.SideEffects
	}
	return External
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// Filter returns the tools the role may call, in order: what the model is
// offered.
func (r *Role) Filter(tools []*registry.Tool) []*registry.Tool {
	var out []*registry.Tool
	for _, t := range tools {
		if r.refusal(t) == "" {
			out = append(out, t)
		}
	}
	return out
}

// Set is the loaded roles.
type Set struct {
	roles map[string]*Role
	// Warnings say what an untrusted layer was not allowed to change.
	Warnings []string
}

// Get returns the role called name. An unknown name returns Default and
// false; the caller logs it.
func (s *Set) Get(name string) (*Role, bool) {
	if r, ok := s.roles[strings.ToLower(strings.TrimSpace(name))]; ok {
		return r, true
	}
	return s.roles[DefaultName], false
}

// List returns the roles sorted by name.
func (s *Set) List() []*Role {
	out := make([]*Role, 0, len(s.roles))
	for _, r := range s.roles {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the role names, sorted.
func (s *Set) Names() []string {
	var out []string
	for _, r := range s.List() {
		out = append(out, r.Name)
	}
	return out
}

// narrow intersects r's tool rules with base's, so that the result allows
// no tool that base refuses, and reports what it removed.
func narrow(r, base *Role) []string {
	var removed []string
	keep := r.Tools.SideEffects[:0:0]
	for _, e := range r.Tools.SideEffects {
		if slices.Contains(base.Tools.SideEffects, e) {
			keep = append(keep, e)
		} else {
			removed = append(removed, "side effect "+e)
		}
	}
	r.Tools.SideEffects = keep
	if r.Tools.Exec && !base.Tools.Exec {
		r.Tools.Exec = false
		removed = append(removed, "exec")
	}
	switch {
	case len(base.Tools.Categories) == 0:
	case len(r.Tools.Categories) == 0:
		r.Tools.Categories = slices.Clone(base.Tools.Categories)
		removed = append(removed, "categories beyond "+strings.Join(base.Tools.Categories, ", "))
	default:
		var cats []string
		for _, c := range r.Tools.Categories {
			if slices.Contains(base.Tools.Categories, c) {
				cats = append(cats, c)
			} else {
				removed = append(removed, "category "+c)
			}
		}
		if len(cats) == 0 {
			// An empty list would mean "any category".
			r.Tools.SideEffects = nil
		}
		r.Tools.Categories = cats
	}
	for _, d := range base.Tools.Deny {
		if !slices.Contains(r.Tools.Deny, d) {
			r.Tools.Deny = append(r.Tools.Deny, d)
		}
	}
	if r.Model != nil {
		r.Model = base.Model
		removed = append(removed, "model override")
	}
	if r.Name == base.Name {
		// The role's instructions are the user's or langhost's; a
		// repository must not rewrite what the reviewer checks.
		if r.Prompt != base.Prompt {
			removed = append(removed, "prompt")
		}
		r.Prompt, r.PromptKey = base.Prompt, base.PromptKey
		r.Constraints = base.Constraints
	} else {
		r.Untrusted = true
	}
	return removed
}
