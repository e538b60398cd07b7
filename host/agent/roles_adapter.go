package agent

import (
	"fmt"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/registry"
)

// Roles returns the enforced role of each name in set. An unknown name is
// the Default role, and the substitution is logged as a transition with
// its reason, so a misspelt role never runs with more than Default may.
func (e *Executor) Roles(set *roles.Set) func(name string) Role {
	return func(name string) Role {
		r, ok := set.Get(name)
		if r == nil {
			// A set always has Default (roles.Load checks); refuse
			// everything rather than nothing if it somehow has not.
			return Role{Name: roles.DefaultName, Allows: func(*registry.Tool) error {
				return fmt.Errorf("no role %q and no default role", name)
			}}
		}
		role := Role{Name: r.Name, Allows: r.Allows}
		if m := r.Model; m != nil {
			role.Settings = Settings{Provider: m.Provider, Model: m.Model, Temperature: m.Temperature}
		}
		if !ok {
			e.Transition(role, fmt.Sprintf("unknown role %q: using %s", name, r.Name))
		}
		return role
	}
}
