package main

import (
	"fmt"
	"time"

	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type mcpOptions struct {
	f                *factory
	http             string
	languages        []string
	categories       []string
	tools            []string
	allow            []string
	progressInterval time.Duration
}

func newMCPCmd(f *factory) *cobra.Command {
	opts := &mcpOptions{f: f}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tools to MCP clients (stdio, or streamable HTTP with --http)",
		Long: `Serve every registered tool as an MCP tool, each language's coding prompt as
the MCP prompt <language>-coding, and the prerequisites document as the resource
langhost://prerequisites.md. Stdio is the default transport; logs go to stderr.

Filters combine: --language, --category and --tools narrow the served tools.
Tools that change files (requiresConfirmation) are hidden unless allowed by
--allow or the config's tools.allow; allowed ones run as confirmed.

With --http the server listens on ADDR (a missing host means 127.0.0.1) at
path /mcp and prints the endpoint URL on stderr. A non-loopback address needs
a bearer token (config mcp.token or LANGHOST_MCP_TOKEN); when a token is set,
every request must send "Authorization: Bearer <token>".`,
		Example: `  langhost mcp --workspace .
  langhost mcp --language go --tools 'go.*' --allow go.fmt
  LANGHOST_MCP_TOKEN=secret langhost mcp --http 0.0.0.0:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mcpRun(cmd, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.http, "http", "", "serve streamable HTTP on `ADDR` (host:port; port 0 picks one) instead of stdio")
	fl.StringSliceVar(&opts.languages, "language", nil, "serve only tools of these language ids (repeatable, comma separated)")
	fl.StringSliceVar(&opts.categories, "category", nil, "serve only tools in one of these categories (repeatable, comma separated)")
	fl.StringSliceVar(&opts.tools, "tools", nil, "serve only these tool ids; globs like 'go.*' allowed (comma separated)")
	fl.StringArrayVar(&opts.allow, "allow", nil, "serve this tool id or glob even though it needs confirmation, and run it confirmed (repeatable)")
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
	if opts.http != "" {
		// Check before loading anything so a refused start is quick and clear.
		if _, err := mcpserver.CheckHTTP(opts.http, cfg.MCPToken); err != nil {
			return err
		}
	}
	h, err := opts.f.loadHost(ctx)
	if err != nil {
		return err
	}
	warnProblems(opts.f, h.Specs.Problems)
	srv, err := mcpserver.New(h, mcpserver.Options{
		Languages:        opts.languages,
		Categories:       opts.categories,
		Tools:            opts.tools,
		Allow:            opts.allow,
		ProgressInterval: opts.progressInterval,
		Logger:           h.Logger,
	})
	if err != nil {
		return err
	}
	if opts.http == "" {
		return mcpserver.ServeStdio(ctx, srv)
	}
	return mcpserver.ServeHTTP(ctx, srv, mcpserver.HTTPOptions{
		Addr:   opts.http,
		Token:  cfg.MCPToken,
		Logger: h.Logger,
		Ready: func(url string) {
			fmt.Fprintf(opts.f.io.ErrOut, "langhost mcp: serving streamable HTTP on %s\n", url)
		},
	})
}
