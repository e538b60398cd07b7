package main

import (
	"fmt"
	"os"
	"time"

	"github.com/langhost/langhost/host/daemon"
	"github.com/spf13/cobra"
)

type serveOptions struct {
	f           *factory
	socket      string
	idleTimeout time.Duration
}

func newServeCmd(f *factory) *cobra.Command {
	opts := &serveOptions{f: f}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve semantic calls of `langhost run` for one workspace (the daemon)",
		Long: `Serve the semantic tools of the workspace to ` + "`langhost run`" + ` over a unix socket
that only the current user can reach, keeping plugins and language servers
warm between calls. The first semantic call of ` + "`langhost run`" + ` starts it in the
background; run it in the foreground to watch its log. It exits after
daemon.idle_timeout without calls, on ` + "`langhost daemon stop`" + ` and on SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return serveRun(cmd, opts) },
	}
	cmd.Flags().StringVar(&opts.socket, "socket", "", "listen on this socket instead of the workspace's")
	cmd.Flags().DurationVar(&opts.idleTimeout, "idle-timeout", 0, "exit after this long without calls (default from config daemon.idle_timeout)")
	return cmd
}

// serveRun serves until stopped. The host, and with it every plugin and
// language server, is closed by execute when it returns.
func serveRun(cmd *cobra.Command, opts *serveOptions) error {
	ctx := cmd.Context()
	h, err := opts.f.loadHost(ctx)
	if err != nil {
		return err
	}
	warnProblems(opts.f, h.Specs.Problems)
	id, err := daemon.NewIdentity(h.Config, h.Workspace)
	if err != nil {
		return err
	}
	paths, err := daemon.PathsFor(id.Key)
	if err != nil {
		return err
	}
	if opts.socket == "" {
		opts.socket = paths.Socket
	}
	if opts.idleTimeout <= 0 {
		opts.idleTimeout = h.Config.DaemonIdleTimeout
	}
	ln, err := daemon.Listen(ctx, opts.socket)
	if err != nil {
		return err
	}
	srv := daemon.NewServer(h, id, daemon.Options{IdleTimeout: opts.idleTimeout, Log: paths.Log, Logger: h.Logger.Named("daemon")})
	fmt.Fprintf(opts.f.io.ErrOut, "langhost serve: pid %d serving %s on %s\n", os.Getpid(), id.Workspace, opts.socket)
	err = srv.Serve(ctx, ln)
	fmt.Fprintf(opts.f.io.ErrOut, "langhost serve: pid %d stopping: %s\n", os.Getpid(), srv.StopReason())
	return err
}
