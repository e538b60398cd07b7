package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/langhost/langhost/host/daemon"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/spf13/cobra"
)

type daemonStatusOptions struct {
	f   *factory
	all bool
}

type daemonStopOptions struct {
	f   *factory
	all bool
}

func newDaemonCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "List and stop the background daemons that keep language servers warm",
		Long: `The first semantic call of ` + "`langhost run`" + ` in a workspace starts a daemon
(` + "`langhost serve`" + `) that later calls reuse. It exits after daemon.idle_timeout
(default 10m) without calls. Turn it off with --no-daemon, LANGHOST_DAEMON=0
or daemon.enabled: false in the config.`,
	}
	statusOpts := &daemonStatusOptions{f: f}
	status := &cobra.Command{
		Use:   "status",
		Short: "Show the workspace's daemon (--all: every daemon of this user): uptime, idle time, language servers and memory",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return daemonStatusRun(cmd, statusOpts) },
	}
	status.Flags().BoolVar(&statusOpts.all, "all", false, "list every daemon of this user, whatever its workspace")
	cmd.AddCommand(status)
	stopOpts := &daemonStopOptions{f: f}
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Stop the workspace's daemon (--all: every daemon of this user) and its language servers",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return daemonStopRun(cmd, stopOpts) },
	}
	stop.Flags().BoolVar(&stopOpts.all, "all", false, "stop every daemon of this user, whatever its workspace")
	cmd.AddCommand(stop)
	return cmd
}

func daemonStatusRun(cmd *cobra.Command, opts *daemonStatusOptions) error {
	list, err := daemon.List(cmd.Context())
	if err != nil {
		return failure.Wrap(failure.Internal, err, "list daemons")
	}
	scope := "any workspace"
	if !opts.all {
		if scope, list, err = workspaceDaemons(opts.f, list); err != nil {
			return err
		}
	}
	if list == nil {
		list = []*daemon.Status{}
	}
	return printer{opts.f}.result(commandPath(cmd), list, nil, func(w io.Writer) error {
		if len(list) == 0 {
			_, err := fmt.Fprintf(w, "no daemon running for %s\n", scope)
			return err
		}
		rows := [][]string{{"PID", "WORKSPACE", "UPTIME", "IDLE", "CALLS", "MEMORY", "PROCESSES"}}
		for _, st := range list {
			idle := "busy"
			if st.Active == 0 {
				idle = millis(st.IdleMS)
			}
			rows = append(rows, []string{fmt.Sprint(st.PID), st.Workspace, millis(st.UptimeMS), idle,
				fmt.Sprint(st.Calls), memory(st.RSSBytes), processList(st)})
		}
		return opts.f.table(w, rows)
	})
}

func daemonStopRun(cmd *cobra.Command, opts *daemonStopOptions) error {
	ctx := cmd.Context()
	list, err := daemon.List(ctx)
	if err != nil {
		return failure.Wrap(failure.Internal, err, "list daemons")
	}
	targets := list
	scope := "any workspace"
	if !opts.all {
		if scope, targets, err = workspaceDaemons(opts.f, list); err != nil {
			return err
		}
	}
	stopped := []*daemon.Status{}
	var errs []error
	for _, st := range targets {
		if err := daemon.Stop(ctx, st); err != nil {
			errs = append(errs, err)
			continue
		}
		stopped = append(stopped, st)
	}
	var stopErr error
	if len(errs) > 0 {
		stopErr = failure.Wrap(failure.Internal, errors.Join(errs...), "stop daemons")
	}
	return printer{opts.f}.result(commandPath(cmd), map[string]any{"stopped": stopped}, stopErr, func(w io.Writer) error {
		if len(stopped) == 0 && stopErr == nil {
			_, err := fmt.Fprintf(w, "no daemon running for %s\n", scope)
			return err
		}
		for _, st := range stopped {
			fmt.Fprintf(w, "stopped daemon %d (%s)\n", st.PID, st.Workspace)
		}
		return nil
	})
}

// workspaceDaemons keeps the daemons of the command's workspace (found
// upward from the working directory, or --workspace) and names it.
func workspaceDaemons(f *factory, list []*daemon.Status) (string, []*daemon.Status, error) {
	cfg, err := f.config()
	if err != nil {
		return "", nil, err
	}
	ws, err := workspace.New(cfg.Workspace)
	if err != nil {
		return "", nil, err
	}
	var out []*daemon.Status
	for _, st := range list {
		if st.Workspace == ws.Dir() {
			out = append(out, st)
		}
	}
	return ws.Dir(), out, nil
}

func millis(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}

// memory renders a byte count; a negative one is unknown on this platform.
func memory(b int64) string {
	if b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
}

// processList names the daemon's plugins and language servers with their
// memory: "gopls 61.2 MB, langhost plugin serve semantic 24.0 MB",
// "pyright-langserver 90.1 MB" rather than "node /usr/lib/node_mod...".
func processList(st *daemon.Status) string {
	if st.RSSBytes < 0 {
		return "n/a"
	}
	var parts []string
	for _, p := range st.Processes {
		if p.PID == st.PID {
			continue
		}
		name := p.Name
		if name == "" { // a daemon of an older langhost
			name, _, _ = strings.Cut(p.Command, " ")
			name = filepath.Base(name)
		}
		parts = append(parts, fmt.Sprintf("%s %s", name, memory(p.RSSBytes)))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
