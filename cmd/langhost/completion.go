package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// Shell completion: cobra's own `langhost completion bash|zsh|fish|
// powershell` writes the scripts; these functions give the values it
// completes. Loading the specs for a completion must never print: errors
// just complete nothing.

// completeToolIDs completes tool ids (the dotted spelling).
func completeToolIDs(f *factory, cmd *cobra.Command, toComplete string) ([]string, cobra.ShellCompDirective) {
	f.cmd = cmd
	h, err := f.loadHost(cmd.Context())
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, t := range h.Registry.List() {
		if strings.HasPrefix(t.ID, toComplete) {
			out = append(out, t.ID+"\t"+firstLine(t.Description))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeLanguages completes language ids.
func completeLanguages(f *factory, cmd *cobra.Command, toComplete string) ([]string, cobra.ShellCompDirective) {
	f.cmd = cmd
	h, err := f.loadHost(cmd.Context())
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, l := range h.Specs.Languages {
		if strings.HasPrefix(l.Language.ID, toComplete) {
			out = append(out, l.Language.ID+"\t"+l.Language.Name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// toolArg completes the first argument of a command about one tool; the
// rest (key=value pairs) get no completion.
func toolArg(f *factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeToolIDs(f, cmd, toComplete)
	}
}

func languageArgs(f *factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeLanguages(f, cmd, toComplete)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
