package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

// factory gives commands lazy access to the config and the loaded host, so
// that commands which need neither (schema, help) stay fast and cannot fail
// on a broken config.
type factory struct {
	io     *ioStreams
	paths  config.Paths
	env    func(string) (string, bool)
	cmd    *cobra.Command // the command being run, for flag provenance
	cfg    *config.Config
	host   *host.Host
	logger hclog.Logger
	// jq is the compiled --jq filter, if any; it implies JSON output.
	jq *jqFilter
	// logFile is where the host's and plugins' logs go unless --verbose
	// (see logfile.go); closed when the command ends.
	logFile *lazyFile
	// logPath overrides the log file's path (tests).
	logPath string
	// tuneGC lets a short-lived command trade memory for fewer garbage
	// collections (see tuneGC); only the real process sets it, not tests.
	tuneGC bool
	// stopProfile ends the profiles of a long-lived command (profile.go).
	stopProfile func()
}

func (f *factory) config() (*config.Config, error) {
	if f.cfg != nil {
		return f.cfg, nil
	}
	cfg, err := config.Load(f.paths, f.cmd.Flags(), f.env)
	if err != nil {
		return nil, &failure.Error{Code: failure.InvalidInput, Message: "config", Err: err}
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintf(f.io.ErrOut, "warning: %s\n", w)
	}
	f.cfg = cfg
	return cfg, nil
}

func (f *factory) loadHost(ctx context.Context) (*host.Host, error) {
	return f.loadHostFor(ctx, nil)
}

// toolHost loads what a command about one tool needs: just the specs of the
// tool's language (its id prefix), or everything when the tool is not found
// there, so that "did you mean" can look at every tool. Both spellings of
// an id are accepted: go.find_references and the MCP name
// go_find_references (see toolid.go).
func (f *factory) toolHost(ctx context.Context, id string) (*host.Host, *registry.Tool, error) {
	langs := toolLanguages(id)
	h, err := f.loadHostFor(ctx, langs)
	if err != nil {
		return nil, nil, err
	}
	if t, found, err := lookupTool(h.Registry, id); found || err != nil {
		return h, t, err
	}
	_ = h.Close()
	f.host = nil
	if h, err = f.loadHost(ctx); err != nil {
		return nil, nil, err
	}
	if t, found, err := lookupTool(h.Registry, id); found || err != nil {
		return h, t, err
	}
	_, err = h.Registry.Tool(dotted(id))
	return h, nil, err
}

func (f *factory) loadHostFor(ctx context.Context, languages []string) (*host.Host, error) {
	if f.host != nil {
		return f.host, nil
	}
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	if err := checkSpecDirs(cfg); err != nil {
		return nil, err
	}
	h, err := host.Open(ctx, cfg, f.log(), host.Options{Languages: languages, Builtins: builtin.Agents()})
	if err != nil {
		if !isFailure(err) {
			err = failure.Wrap(failure.Internal, err, "start host")
		}
		return nil, err
	}
	f.host = h
	return h, nil
}

// log returns the host logger, never on stdout, which stays clean for
// data (and for the MCP stdio transport). Plugins and language servers log
// through it (gopls warnings among them): chatter a person running a
// command should not have to read, so it goes to the log file unless
// --verbose. Problems the user must see (skipped specs, config warnings)
// are printed on stderr directly, not logged.
func (f *factory) log() hclog.Logger {
	if f.logger == nil {
		level := "warn"
		if f.cfg != nil {
			level = f.cfg.LogLevel
		}
		out := f.logOutput()
		if out == f.io.ErrOut && f.verbose() && !f.cmd.Flags().Changed("log-level") {
			level = "info"
		}
		f.logger = hclog.New(&hclog.LoggerOptions{Name: "langhost", Output: out, Level: hclog.LevelFromString(level)})
	}
	return f.logger
}

func (f *factory) verbose() bool {
	if f.cmd == nil {
		return false
	}
	v, _ := f.cmd.Flags().GetBool("verbose")
	return v
}

// logOutput is stderr for --verbose and for the commands whose stderr is
// a log already (mcp: clients keep a server's stderr as its log; serve:
// the daemon's stderr is its log file; plugin: go-plugin reads it), else
// the log file.
func (f *factory) logOutput() io.Writer {
	if f.cmd == nil || f.verbose() {
		return f.io.ErrOut
	}
	switch strings.SplitN(commandPath(f.cmd), ".", 2)[0] {
	case "mcp", "serve", "plugin":
		return f.io.ErrOut
	}
	path := f.logPath
	if path == "" {
		var err error
		if path, err = defaultLogPath(); err != nil {
			return f.io.ErrOut
		}
	}
	f.logFile = &lazyFile{path: path, fallback: f.io.ErrOut}
	return f.logFile
}

// format is the output format: the flag or config, else text on a
// terminal and JSON otherwise.
func (f *factory) format() string {
	if f.jq != nil {
		return "json"
	}
	if f.cfg != nil && f.cfg.Format != "" {
		return f.cfg.Format
	}
	if fl := f.cmd.Flags().Lookup("format"); fl != nil && fl.Value.String() != "" {
		return fl.Value.String()
	}
	if v, ok := f.env(config.EnvName("format")); ok && v != "" {
		return v
	}
	if f.io.OutTTY {
		return "text"
	}
	return "json"
}

func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:           "langhost",
		Short:         "Serve language tools (build, test, lint, semantic navigation) to coding agents",
		Version:       host.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			f.cmd = cmd
			if f.tuneGC {
				tuneGC(cmd)
				if longLived(cmd) {
					go trimTextPages(cmd.Context())
				}
				f.stopProfile = startProfile(cmd, f.env)
			}
			return f.checkOutputFlags()
		},
	}
	pf := root.PersistentFlags()
	pf.String("format", "", "output format: json or text (default: text on a terminal, json otherwise)")
	pf.String("workspace", ".", "workspace root; tool paths are confined to it")
	pf.StringArray("languages", nil, "extra directory of language specs (repeatable; searched last)")
	_ = root.MarkPersistentFlagDirname("languages")
	pf.Duration("timeout", 0, "cap on any tool run (default from config: 10m)")
	pf.String("log-level", "", "log level: trace, debug, info, warn, error")
	pf.String("jq", "", "filter the JSON envelope with a jq expression (implies --format json)")
	pf.String("color", "auto", "colour text output: auto (on a terminal, unless NO_COLOR is set), always or never")
	pf.BoolP("verbose", "v", false, "show plugin and language server logs on stderr instead of the log file")
	pf.Bool("trust-workspace", false, "trust the workspace for this run: apply all of its .langhost.yaml and load its specs (see langhost trust)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &failure.Error{Code: failure.InvalidInput, Message: "usage", Err: err}
	})

	// One line per command; keep the list easy to extend.
	root.AddCommand(
		newLanguagesCmd(f),
		newToolsCmd(f),
		newRunCmd(f),
		newValidateInputCmd(f),
		newValidateCmd(f),
		newSchemaCmd(f),
		newPrereqsCmd(f),
		newConfigCmd(f),
		newTrustCmd(f),
		newMCPCmd(f),
		newPluginCmd(f),
		newServeCmd(f),
		newDaemonCmd(f),
		newVersionCmd(f),
		newParseCmd(f),
		newUndoCmd(f), newRedoCmd(f), newTransactionsCmd(f),
		newAgentsCmd(f), newAgentCmd(f),
		newRolesCmd(f), newPromptCmd(f),
		newBenchCmd(f),
	)
	root.AddCommand(newHelpTopics()...)
	groupCommands(root)
	return root
}

// commandGroups sorts the commands of `langhost --help` as gh does; the
// commands a user never types (serve, plugin: langhost starts them itself)
// are hidden.
var commandGroups = []struct {
	id, title string
	commands  []string
}{
	{"tools", "Running tools:", []string{"run", "tools", "languages", "validate-input", "parse", "prereqs"}},
	{"edits", "Edits and undo:", []string{"undo", "redo", "transactions"}},
	{"agents", "Agents and benchmarks:", []string{"agent", "roles", "prompt", "bench"}},
	{"serve", "Serving clients:", []string{"mcp", "daemon"}},
	{"setup", "Specs, configuration and trust:", []string{"validate", "schema", "config", "trust", "version", "completion"}},
}

func groupCommands(root *cobra.Command) {
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
	}
	root.SetCompletionCommandGroupID("setup")
	root.SetHelpCommandGroupID("setup")
	for _, c := range root.Commands() {
		switch c.Name() {
		case "serve", "plugin":
			c.Hidden = true
			continue
		}
		for _, g := range commandGroups {
			if slices.Contains(g.commands, c.Name()) {
				c.GroupID = g.id
			}
		}
	}
}

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, io *ioStreams, args []string) int {
	return execute(ctx, &factory{io: io, paths: config.DefaultPaths(), env: os.LookupEnv, tuneGC: true}, args)
}

// shortGCPercent is the GC percent of a short-lived command: its heap
// goal starts at 16 MB rather than 4 MB, so that a CLI call (spec loading,
// tool registration, one result) usually ends before its first collection,
// which costs it several milliseconds of CPU on a small machine.
const shortGCPercent = 400

// longGCPercent is the GC percent of a command that runs until stopped (a
// server, a plugin, an agent or bench run), which sits beside a language
// server for hours: its heap goal is 1.5 times the live heap rather than
// twice. Over 500 MCP calls the MCP host's anonymous memory grew from 17 to
// 30 MiB at the default and from 17 to 19.5 MiB at 50, for about 1% of a
// core spent collecting.
const longGCPercent = 50

// tuneGC sets shortGCPercent, or longGCPercent when cmd runs until
// stopped, unless the user chose a GOGC.
func tuneGC(cmd *cobra.Command) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	if longLived(cmd) {
		debug.SetGCPercent(longGCPercent)
		return
	}
	debug.SetGCPercent(shortGCPercent)
}

// longLived reports whether cmd runs until stopped: a server, a plugin,
// an agent or bench run.
func longLived(cmd *cobra.Command) bool {
	switch commandPath(cmd) {
	case "serve", "mcp", "plugin.serve", "agent.run", "bench.run":
		return true
	}
	return false
}

func execute(ctx context.Context, f *factory, args []string) int {
	io := f.io
	root := newRootCmd(f)
	root.SetArgs(args)
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	f.cmd = root
	err := root.ExecuteContext(ctx)
	if f.stopProfile != nil {
		f.stopProfile()
	}
	if f.host != nil {
		_ = f.host.Close()
	}
	if f.logFile != nil {
		defer f.logFile.Close()
	}
	if err == nil {
		return 0
	}
	var reported *reportedError
	if errors.As(err, &reported) {
		return reported.code.ExitCode()
	}
	if !isFailure(err) {
		// cobra's own errors: unknown command, wrong number of args.
		err = &failure.Error{Code: failure.InvalidInput, Message: "usage", Err: err}
	}
	commandID := ""
	if f.cmd != nil {
		commandID = commandPath(f.cmd)
	}
	p := printer{f: f}
	p.failure(commandID, err)
	return failure.CodeOf(err).ExitCode()
}

// checkSpecDirs makes a --languages directory that is not there a usage
// error naming it (exit 2), not a missing tool or language later.
func checkSpecDirs(cfg *config.Config) error {
	for _, dir := range cfg.Languages {
		st, err := os.Stat(dir)
		if err == nil && st.IsDir() {
			continue
		}
		msg := fmt.Sprintf("%s (from %s): not a directory", dir, cfg.Origin("languages"))
		if err != nil {
			msg = fmt.Sprintf("%s (from %s): %v", dir, cfg.Origin("languages"), errors.Unwrap(err))
		}
		return &failure.Error{Code: failure.InvalidInput, Field: "--languages", Message: msg}
	}
	return nil
}

func isFailure(err error) bool {
	var fe *failure.Error
	return errors.As(err, &fe)
}

// reportedError marks an error whose output was already printed; only its
// exit code is left to apply.
type reportedError struct{ code failure.Code }

func (e *reportedError) Error() string { return fmt.Sprintf("failed: %s", e.code) }
