package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// exitCodeMeanings says what each failure class means to a user; the exit
// codes themselves come from failure.Code.ExitCode, so the table cannot
// drift from what langhost returns.
var exitCodeMeanings = []struct {
	code    failure.Code
	meaning string
}{
	{"", "success"},
	{failure.ToolFailed, "the tool ran and reported failure (compile error, failing test, files a check would change)"},
	{failure.InvalidInput, "bad input, usage, spec or config; the error names the key or file:line:col"},
	{failure.NotFound, "unknown tool, language, file, symbol or transaction (with \"did you mean\")"},
	{failure.Precondition, "executable not installed, needs --yes, path outside the workspace, not permitted"},
	{failure.Unsupported, "an operation the language server lacks"},
	{failure.Timeout, "a deadline expired; the tool's whole process group was killed"},
	{failure.Ambiguous, "a name or ID prefix matched several (the candidates are in details)"},
	{failure.Internal, "plugin or host failure"},
	{failure.AnchorNotResolved, "the text or symbol an edit is anchored to is not in the file"},
	{failure.Postcondition, "an edit applied but did not have the effect it promised"},
	{failure.DiagnosticRegression, "an edit was rejected before touching disk: it adds diagnostics its policy forbids"},
	{failure.WorkspaceApplyFailed, "writing an accepted edit failed; every file was restored"},
	{failure.Canceled, "interrupted (Ctrl-C, SIGTERM)"},
}

// otherEnv lists the variables langhost reads that are not config keys.
var otherEnv = []struct{ name, meaning string }{
	{"LANGHOST_PROFILE_DIR", "long-lived commands write CPU and heap profiles into this directory"},
	{"OPENAI_API_KEY", "key for --provider openai (sent only to its endpoint, never to a tool)"},
	{"ANTHROPIC_API_KEY", "key for --provider anthropic (sent only to its endpoint, never to a tool)"},
	{"NO_COLOR", "any value turns colour off, as --color never does"},
	{"TERM", "dumb turns colour off"},
	{"COLUMNS", "width of text tables when stdout is not a terminal"},
	{"PATH", "where tools and language servers are looked up; the daemon is replaced when it changes"},
	{"DOTNET_CLI_HOME", "language servers are also looked up in $DOTNET_CLI_HOME/.dotnet/tools (default ~/.dotnet/tools)"},
	{"XDG_CONFIG_HOME", "user config, specs and trust (default ~/.config/langhost)"},
	{"XDG_CACHE_HOME", "log file, describe cache and daemon logs (default ~/.cache/langhost)"},
	{"XDG_STATE_HOME", "transaction records for undo (default ~/.local/state/langhost)"},
	{"XDG_RUNTIME_DIR", "directory of the daemons' sockets"},
	{"GOGC", "when set, langhost does not tune its garbage collector"},
}

// newHelpTopics returns the help topics: commands with no run function,
// which cobra lists under "Additional help topics" and `langhost help
// TOPIC` prints.
func newHelpTopics() []*cobra.Command {
	var codes strings.Builder
	w := tabwriter.NewWriter(&codes, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "EXIT\tCODE\tMEANING")
	for _, e := range exitCodeMeanings {
		code := string(e.code)
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\n", e.code.ExitCode(), code, e.meaning)
	}
	_ = w.Flush()

	var env strings.Builder
	w = tabwriter.NewWriter(&env, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "VARIABLE\tMEANING")
	for _, k := range config.Keys {
		name := k.Env
		if name == "" {
			name = config.EnvName(k.Name)
		}
		fmt.Fprintf(w, "%s\tconfig key %s: %s\n", name, k.Name, k.Description)
	}
	for _, e := range otherEnv {
		fmt.Fprintf(w, "%s\t%s\n", e.name, e.meaning)
	}
	_ = w.Flush()

	return []*cobra.Command{
		{
			Use:   "exit-codes",
			Short: "Exit codes and the failure classes behind them",
			Long: "langhost exits by the class of its failure; with --format json the class is\n" +
				"errors[0].code of the envelope.\n\n" + codes.String(),
		},
		{
			Use:   "environment",
			Short: "Environment variables langhost reads",
			Long: "Environment variables win over config files and lose to flags. A workspace's\n" +
				"own settings never come from the environment.\n\n" + env.String(),
		},
	}
}
