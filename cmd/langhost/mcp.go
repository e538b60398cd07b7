package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/daemon"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/plugins/builtin"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	f                *factory
	http             string
	httpNoAuth       bool
	languages        []string
	profile          string
	categories       []string
	tools            []string
	allow            []string
	writes           string
	outputSchemas    bool
	watch            bool
	progressInterval time.Duration
	printConfig      string
}

func newMCPCmd(f *factory) *cobra.Command {
	opts := &mcpOptions{f: f}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tools to MCP clients (stdio, or streamable HTTP with --http)",
		Long: `Serve the tools of the languages the workspace uses as MCP tools named with
"_" (go_find_references), each language's coding prompt as the MCP prompt
<language>-coding, and the prerequisites document as the resource
langhost://prerequisites.md. Stdio is the default transport; logs go to stderr.

Languages are detected in the workspace (source file extensions, project
files such as go.mod, language server root markers); --language names them
instead, and so does --tools. --profile picks tools by what they do: readonly (side-effect-free
tools), edit (readonly plus the semantic edit tools and langhost_apply), all
(every tool of every language), or a name from the config's mcp.profiles.
--category and --tools narrow further.

Tools that change files are annotated destructive, and an MCP client asks
its user before calling one: that approval is the confirmation (--writes
client, the default on stdio). It covers the tools that write through a
transaction, checked by the diagnostics gate and recorded for langhost undo
(rename_symbol, edit_file, apply of a rename preview, workspace_write_file,
...). Tools that write in place (go_fmt, go_mod_tidy) are hidden unless
--allow or the config's tools.allow names them. With --writes allow (config
mcp.writes; the default over --http, whose clients may not be yours) only the allowed
tools write; the others refuse, naming the flag to pass. --profile
readonly serves no tool that writes.

An edit preview (rename, code_actions, format, organize_imports) carries a
preview_id; langhost_apply writes exactly that preview if the tool may
write and no file changed since. Spec directories and plugin executables
are watched: a change reloads the tools and clients are notified; a spec that
breaks keeps its last good version.

The language servers of the served languages start with the server (and
again after a reload), so that the first semantic call does not wait for
them to load the workspace; --prewarm=false (config mcp.prewarm) starts each
one on its language's first call instead. A server that fails to start is
logged; the first call reports why.

With --http the server listens on ADDR (a missing host means 127.0.0.1) at
path /mcp and prints the endpoint URL on stderr. Every request must send
"Authorization: Bearer <token>", on loopback too: other users of the machine
can reach loopback. The token is the user config's mcp.token or
LANGHOST_MCP_TOKEN; without one, a random token is written to an owner-only
file (mcp-<port>.token in $XDG_RUNTIME_DIR/langhost, else the user cache
directory), whose path is printed on stderr. A non-loopback address needs a
configured token. At most mcp.max_sessions sessions are open at once, and
mcp.max_concurrent tool calls run at once (more wait, then fail as busy).`,
		Example: `  langhost mcp --workspace .
  langhost mcp --language go,python --profile readonly
  langhost mcp --profile edit --allow 'go.rename'
  langhost mcp --writes allow --allow 'go.rename_symbol'
  langhost mcp --tools 'go_*' --allow go.fmt
  langhost mcp --print-config codex >> ~/.codex/config.toml
  LANGHOST_MCP_TOKEN=secret langhost mcp --http 0.0.0.0:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpRun(cmd, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.http, "http", "", "serve streamable HTTP on `ADDR` (host:port; port 0 picks one) instead of stdio")
	fl.BoolVar(&opts.httpNoAuth, "http-insecure-no-auth", false, "serve --http on loopback WITHOUT a bearer token: every local user can call the tools")
	fl.StringSliceVar(&opts.languages, "language", nil, "serve only tools of these language ids instead of the detected ones (repeatable, comma separated)")
	fl.StringVar(&opts.profile, "profile", "", "tool profile: readonly, edit, all or a name from the config's mcp.profiles (default: config mcp.profile, else every tool of the detected languages)")
	fl.StringSliceVar(&opts.categories, "category", nil, "serve only tools in one of these categories (repeatable, comma separated)")
	fl.StringSliceVar(&opts.tools, "tools", nil, "serve only these tools, by id or MCP name, of any language; globs like 'go.*' allowed (comma separated)")
	fl.StringArrayVar(&opts.allow, "allow", nil, "serve this tool id or glob even though it needs confirmation, and run it confirmed (repeatable)")
	fl.StringVar(&opts.writes, "writes", "", "who confirms writes: client (the client's approval confirms transactional edits; default on stdio) or allow (only --allow'ed tools write; default with --http) (config mcp.writes)")
	fl.BoolVar(&opts.outputSchemas, "output-schemas", false, "include each tool's output schema in tools/list (larger listing)")
	fl.BoolVar(&opts.watch, "watch", true, "reload the tools when spec files or plugin executables change")
	fl.Bool("prewarm", true, "start the served languages' language servers now, not on the first call (config mcp.prewarm)")
	fl.StringVar(&opts.printConfig, "print-config", "", "print the configuration snippet of `CLIENT` (claude, codex, vscode, cursor) for this workspace, naming the tools served with these flags, and exit")
	fl.DurationVar(&opts.progressInterval, "progress-interval", mcpserver.DefaultProgressInterval, "period of \"running for Ns\" progress notifications")
	return cmd
}

// mcpRun serves until the client disconnects or a signal arrives. Errors
// are written to stderr as text: in stdio mode stdout belongs to the protocol.
func mcpRun(cmd *cobra.Command, opts *mcpOptions) error {
	err := serveMCP(cmd, opts)
	if err == nil {
		return nil
	}
	printTextError(opts.f.io.ErrOut, err)
	return &reportedError{code: failure.CodeOf(err)}
}

func serveMCP(cmd *cobra.Command, opts *mcpOptions) error {
	ctx := cmd.Context()
	cfg, err := opts.f.config()
	if err != nil {
		return err
	}
	token := cfg.MCPToken
	if cfg.Trust.Root != "" && token != "" && cfg.Origin("mcp.token") == opts.f.paths.WorkspaceFile(cfg.Trust.Root) {
		// Even a trusted repository's authors must not hold the key to
		// the owner's server.
		fmt.Fprintf(opts.f.io.ErrOut, "langhost mcp: mcp.token from %s ignored: set it in the user config or LANGHOST_MCP_TOKEN\n", cfg.Origin("mcp.token"))
		token = ""
	}
	tokenDir, _ := daemon.SocketDir() // without one, ServeHTTP asks for a configured token
	httpOpts := mcpserver.HTTPOptions{
		Addr:     opts.http,
		Token:    token,
		TokenDir: tokenDir,
		NoAuth:   opts.httpNoAuth,
		Limits:   mcpserver.HTTPLimits{MaxSessions: cfg.MCPMaxSessions},
		Logger:   opts.f.log(),
		Ready: func(url string) {
			fmt.Fprintf(opts.f.io.ErrOut, "langhost mcp: serving streamable HTTP on %s\n", url)
		},
		TokenFile: func(path string) {
			fmt.Fprintf(opts.f.io.ErrOut, "langhost mcp: bearer token in %s (send \"Authorization: Bearer <token>\")\n", path)
		},
	}
	if opts.http != "" {
		// Check before loading anything so a refused start is quick and clear.
		if _, err := httpOpts.Check(); err != nil {
			return err
		}
	} else if opts.httpNoAuth {
		return &failure.Error{Code: failure.InvalidInput, Field: "http-insecure-no-auth", Message: "--http-insecure-no-auth needs --http"}
	}
	profile := opts.profile
	if !cmd.Flags().Changed("profile") {
		profile = cfg.MCPProfile
	}
	logger := opts.f.log()
	first := true
	load := func(ctx context.Context, wrap func([]spec.Source) []spec.Source) (*host.Host, error) {
		// A reload decides trust again: editing a trusted workspace's
		// specs withdraws its trust, and a running server must not load
		// the edit on the strength of the old decision.
		c := cfg
		if !first {
			var err error
			if c, err = config.Load(opts.f.paths, cmd.Flags(), opts.f.env); err != nil {
				return nil, &failure.Error{Code: failure.InvalidInput, Message: "config", Err: err}
			}
			for _, w := range c.Warnings() {
				logger.Warn(w)
			}
		}
		first = false
		h, err := host.Open(ctx, c, logger, host.Options{Builtins: builtin.Agents(), SpecSources: wrap})
		if err != nil && !isFailure(err) {
			err = failure.Wrap(failure.Internal, err, "start host")
		}
		return h, err
	}
	roleSet, err := opts.f.roleSet()
	if err != nil {
		return err
	}
	calls, err := openCallLog(opts.f, cfg.Workspace)
	if err != nil {
		return err
	}
	var onCall func(string, failure.Code)
	if calls != nil {
		defer calls.Close()
		onCall = calls.note
	}
	srvOpts := mcpserver.Options{
		Languages:        opts.languages,
		Profile:          profile,
		Profiles:         cfg.MCPProfiles,
		Categories:       opts.categories,
		Tools:            opts.tools,
		Allow:            opts.allow,
		Writes:           writesMode(cfg.MCPWrites, opts.http),
		OutputSchemas:    opts.outputSchemas,
		ProgressInterval: opts.progressInterval,
		Logger:           logger,
		Roles:            roleSet,
		PromptsDir:       prompts.UserDir(opts.f.paths.User),
		OnCall:           onCall,

		MaxConcurrentCalls: cfg.MCPMaxConcurrent,
	}
	if opts.printConfig != "" {
		return mcpPrintConfig(cmd, opts, srvOpts)
	}
	srv, err := mcpserver.Open(ctx, load, srvOpts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if cfg.MCPPrewarm {
		// While the client connects and lists tools, the language
		// servers load the workspace (seconds for gopls).
		srv.Prewarm()
	}
	warnProblems(opts.f, srv.Host().Specs.Problems)
	if opts.f.verbose() {
		// Clients log a server's stderr as errors: say this only when asked.
		reportSurface(opts, srv)
	}
	if opts.watch {
		watchCtx, stop := context.WithCancel(ctx)
		defer stop()
		if err := srv.Watch(watchCtx, mcpserver.WatchPaths(srv.Host()), 0); err != nil {
			logger.Warn("spec files are not watched", "error", err)
		}
	}
	if opts.http == "" {
		return mcpserver.ServeStdio(ctx, srv.MCP())
	}
	if opts.httpNoAuth {
		fmt.Fprintln(opts.f.io.ErrOut, "langhost mcp: WARNING: --http-insecure-no-auth: no bearer token; every user of this machine can call the tools")
	}
	return mcpserver.ServeHTTP(ctx, srv.MCP(), httpOpts)
}

// writesMode is the writes mode (--writes, config mcp.writes) when set,
// else client on stdio and allow over HTTP, where another local process
// may connect and so a client's approval is not necessarily the user's.
func writesMode(writes, http string) string {
	switch {
	case writes != "":
		return writes
	case http != "":
		return mcpserver.WritesAllow
	}
	return mcpserver.WritesClient
}

// reportSurface says on stderr what is served and, for detected
// languages, why: a user wondering where a tool went needs to know.
func reportSurface(opts *mcpOptions, srv *mcpserver.Server) {
	n, langs, detected := srv.Summary()
	var what string
	switch {
	case langs == nil:
		what = "every language"
	case len(detected) > 0:
		parts := make([]string, len(detected))
		for i, l := range detected {
			parts[i] = l.String()
		}
		what = "detected " + strings.Join(parts, ", ")
	case len(opts.languages) > 0:
		what = strings.Join(langs, ", ")
	default:
		what = "no detected language (use --language or --profile all)"
	}
	fmt.Fprintf(opts.f.io.ErrOut, "langhost mcp: %d tools for %s\n", n, what)
}
