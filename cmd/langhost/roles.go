package main

import (
	"fmt"
	"io"
	"strings"

	agentroles "github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
	"github.com/spf13/cobra"
)

func newRolesCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "roles",
		Short: "List and show agent roles (Planner, Coder, Reviewer, Default and your own)",
		Long: `Roles are YAML files: the shipped ones, then ~/.config/langhost/roles/*.yaml, then the
workspace's .langhost/roles/*.yaml (which narrows a role's tools but never widens them unless
the workspace is trusted). A role's tool rules are enforced when an agent calls a tool.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "list",
		Short:   "List the roles with their tool rules and where each came from",
		Example: "  langhost roles list\n  langhost roles list --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := f.roleSet()
			if err != nil {
				return err
			}
			list := set.List()
			return printer{f}.result(commandPath(cmd), list, nil, func(w io.Writer) error {
				rows := [][]string{{"NAME", "SIDE EFFECTS", "EXEC", "MODEL", "SOURCE", "DESCRIPTION"}}
				for _, r := range list {
					rows = append(rows, []string{r.Name, joinOrDash(r.Tools.SideEffects), yesNo(r.Tools.Exec), roleModel(r), r.Source, r.Description})
				}
				return f.table(w, rows)
			})
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:     "show NAME",
		Short:   "Show one role: description, capabilities, constraints, tool rules and prompt",
		Example: "  langhost roles show planner\n  langhost roles show coder --format json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := f.roleSet()
			if err != nil {
				return err
			}
			r, ok := set.Get(args[0])
			if !ok {
				return &failure.Error{Code: failure.NotFound, Field: "NAME",
					Message: fmt.Sprintf("no role %q; roles: %s (an agent given an unknown role runs as %s)", args[0], strings.Join(set.Names(), ", "), agentroles.DefaultName)}
			}
			return printer{f}.result(commandPath(cmd), r, nil, func(w io.Writer) error {
				printRole(w, r)
				return nil
			})
		},
	})
	return cmd
}

// roleSet loads the roles for the workspace, printing what an untrusted
// workspace was not allowed to change.
func (f *factory) roleSet() (*agentroles.Set, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	set, err := prompts.LoadRoles(f.paths.User, cfg.Trust.Root, cfg.Trust.Trusted)
	if err != nil {
		return nil, err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", w)
	}
	return set, nil
}

func printRole(w io.Writer, r *agentroles.Role) {
	fmt.Fprintf(w, "%s: %s\n", r.Name, r.Description)
	fmt.Fprintf(w, "source: %s\n", r.Source)
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, it := range items {
			fmt.Fprintf(w, "  - %s\n", it)
		}
	}
	list("capabilities", r.Capabilities)
	list("constraints", r.Constraints)
	fmt.Fprintf(w, "tools: side effects %s; exec %s", joinOrDash(r.Tools.SideEffects), yesNo(r.Tools.Exec))
	if len(r.Tools.Categories) > 0 {
		fmt.Fprintf(w, "; categories %s", strings.Join(r.Tools.Categories, ","))
	}
	if len(r.Tools.Deny) > 0 {
		fmt.Fprintf(w, "; deny %s", strings.Join(r.Tools.Deny, ","))
	}
	fmt.Fprintln(w)
	if r.Model != nil {
		fmt.Fprintf(w, "model: %s\n", roleModel(r))
	}
	if r.Prompt != "" {
		fmt.Fprintf(w, "prompt:\n%s\n", indent(r.Prompt, "  "))
	}
}

func roleModel(r *agentroles.Role) string {
	if r.Model == nil || r.Model.Provider == "" && r.Model.Model == "" {
		return "-"
	}
	return strings.Trim(r.Model.Provider+"/"+r.Model.Model, "/")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
