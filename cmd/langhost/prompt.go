package main

import (
	"fmt"
	"io"

	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/session"
	"github.com/langhost/langhost/prompts"
	"github.com/spf13/cobra"
)

type promptShowOptions struct {
	language, role, task string
}

// promptShowResult is the JSON result of prompt show.
type promptShowResult struct {
	Role     string `json:"role"`
	Language string `json:"language,omitempty"`
	*prompts.Prompt
}

func newPromptCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Show the system prompt an agent gets",
		Args:  cobra.NoArgs,
	}
	opts := &promptShowOptions{}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print exactly the system prompt the model gets for a language and role",
		Long: `Print the system prompt an agent sends, layer by layer: the system prompt, the role's,
the language's (workflow, tools the role may call, bestPractices, syntaxReminders, project
structure) and the workspace's (AGENTS.md and .langhost/prompts/*.md, bounded and delimited as
untrusted data). --format json gives each section with its source.`,
		Example: `  langhost prompt show --language go --role coder
  langhost prompt show --language python --role reviewer --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return promptShowRun(cmd, f, opts) },
	}
	show.Flags().StringVar(&opts.language, "language", "", "language id (e.g. go); without it there is no language layer")
	show.Flags().StringVar(&opts.role, "role", "default", "role name (see langhost roles list); an unknown one is default")
	show.Flags().StringVar(&opts.task, "task", "", "task to insert as the objective")
	cmd.AddCommand(show)
	return cmd
}

func promptShowRun(cmd *cobra.Command, f *factory, opts *promptShowOptions) error {
	set, err := f.roleSet()
	if err != nil {
		return err
	}
	role, ok := set.Get(opts.role)
	if !ok {
		fmt.Fprintf(f.io.ErrOut, "warning: no role %q; showing the %s role an agent would fall back to\n", opts.role, role.Name)
	}
	var languages []string
	if opts.language != "" {
		languages = []string{opts.language}
	}
	h, err := f.loadHostFor(cmd.Context(), languages)
	if err != nil {
		return err
	}
	po := prompts.Options{Role: role, Workspace: h.Workspace, UserDir: prompts.UserDir(f.paths.User), Task: opts.task}
	if opts.language != "" {
		warnProblems(f, h.Specs.Problems)
		a, err := agent.Choose(agent.Specialists(h.Specs, h.Registry), agent.Selection{Language: opts.language})
		if err != nil {
			return err
		}
		// The same tools an agent run is offered (session.Tools).
		po.Language, po.Tools = a.Spec, session.Tools(h.Registry, a)
	}
	p, err := prompts.Build(po)
	if err != nil {
		return err
	}
	for _, w := range p.Warnings {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", w)
	}
	res := promptShowResult{Role: role.Name, Language: opts.language, Prompt: p}
	return printer{f}.result(commandPath(cmd), res, nil, func(w io.Writer) error {
		_, err := io.WriteString(w, p.Text)
		return err
	})
}
