package main

import (
	"context"
	"errors"
	"fmt"
	"os"
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
// there, so that "did you mean" can look at every tool.
func (f *factory) toolHost(ctx context.Context, id string) (*host.Host, *registry.Tool, error) {
	lang, _, _ := strings.Cut(id, ".")
	h, err := f.loadHostFor(ctx, []string{lang})
	if err != nil {
		return nil, nil, err
	}
	if h.Registry.Has(id) {
		t, err := h.Registry.Tool(id)
		return h, t, err
	}
	_ = h.Close()
	f.host = nil
	if h, err = f.loadHost(ctx); err != nil {
		return nil, nil, err
	}
	t, err := h.Registry.Tool(id)
	return h, t, err
}

func (f *factory) loadHostFor(ctx context.Context, languages []string) (*host.Host, error) {
	if f.host != nil {
		return f.host, nil
	}
	cfg, err := f.config()
	if err != nil {
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

// log returns the host logger: stderr only, so stdout stays clean for
// data (and for the MCP stdio transport).
func (f *factory) log() hclog.Logger {
	if f.logger == nil {
		level := "warn"
		if f.cfg != nil {
			level = f.cfg.LogLevel
		}
		f.logger = hclog.New(&hclog.LoggerOptions{Name: "langhost", Output: f.io.ErrOut, Level: hclog.LevelFromString(level)})
	}
	return f.logger
}

// format is the output format: the flag or config, else text on a
// terminal and JSON otherwise.
func (f *factory) format() string {
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
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			f.cmd = cmd
		},
	}
	pf := root.PersistentFlags()
	pf.String("format", "", "output format: json or text (default: text on a terminal, json otherwise)")
	pf.String("workspace", ".", "workspace root; tool paths are confined to it")
	pf.StringArray("languages", nil, "extra directory of language specs (repeatable; searched last)")
	pf.Duration("timeout", 0, "cap on any tool run (default from config: 10m)")
	pf.String("log-level", "", "log level: trace, debug, info, warn, error")
	pf.Bool("trust-workspace", false, "trust the workspace for this run: apply all of its .langhost.yaml and load its specs (see langhost trust)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &failure.Error{Code: failure.InvalidInput, Message: "usage", Err: err}
	})

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
	)
	return root
}

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, io *ioStreams, args []string) int {
	return execute(ctx, &factory{io: io, paths: config.DefaultPaths(), env: os.LookupEnv}, args)
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
	if f.host != nil {
		_ = f.host.Close()
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

func isFailure(err error) bool {
	var fe *failure.Error
	return errors.As(err, &fe)
}

// reportedError marks an error whose output was already printed; only its
// exit code is left to apply.
type reportedError struct{ code failure.Code }

func (e *reportedError) Error() string { return fmt.Sprintf("failed: %s", e.code) }
