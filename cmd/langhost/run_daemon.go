package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/daemon"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// runToolCall runs t in this process or, for a semantic tool and a
// workspace write a language server checks (workspace.write_file on a Go
// file goes to go.edit_file), in the workspace's daemon, which keeps the
// language server warm between calls. The daemon never fails a call that
// can run here: when it cannot be reached or started, the call runs in
// this process after a warning.
func runToolCall(ctx context.Context, opts *runOptions, h *host.Host, t *registry.Tool, call registry.Call) (*registry.Result, error) {
	if opts.noDaemon || !h.Config.Daemon || !daemon.Supported() || !daemon.Serves(h, t, call.Input) {
		return h.Registry.Call(ctx, t.ID, call)
	}
	// Bad input fails here as it would in this process, starting nothing.
	if err := t.ValidateInput(call.Input); err != nil {
		return nil, err
	}
	res, err := daemonCall(ctx, h, t, call, func(msg string) { fmt.Fprintf(opts.f.io.ErrOut, "note: %s\n", msg) })
	var ue *daemon.UnavailableError
	if !errors.As(err, &ue) {
		return res, err
	}
	if ue.Delivered && !t.Idempotent {
		// Running it again could apply an edit twice.
		return nil, failure.Wrap(failure.Internal, err, "%s may or may not have run: check the workspace, then retry (--no-daemon runs it in this process)", t.ID)
	}
	// The user should know: this call pays the language server's start.
	fmt.Fprintf(opts.f.io.ErrOut, "warning: running the call in this process (the workspace's daemon is unavailable: %v)\n", err)
	h.Logger.Warn("running the call in this process", "reason", err)
	return h.Registry.Call(ctx, t.ID, call)
}

// daemonCall runs call in the workspace's daemon; notify hears why a
// running daemon was replaced, when the user should know.
func daemonCall(ctx context.Context, h *host.Host, t *registry.Tool, call registry.Call, notify func(string)) (*registry.Result, error) {
	id, err := daemon.NewIdentity(h.Config, h.Workspace)
	if err != nil {
		return nil, &daemon.UnavailableError{Err: err}
	}
	start, err := serveCommand(h, id)
	if err != nil {
		return nil, &daemon.UnavailableError{Err: err}
	}
	start.Notify = notify
	return daemon.Call(ctx, id, start, daemon.CallRequest{Tool: t.ID, Input: call.Input, Confirmed: call.Confirmed, WorkspaceCode: call.WorkspaceCode})
}

// serveCommand is the `langhost serve` that daemon.Call starts when no
// daemon runs: this executable, working directory (where .langhost.yaml is
// found) and environment, with the settings this call got from flags.
func serveCommand(h *host.Host, id daemon.Identity) (daemon.Command, error) {
	exe, err := os.Executable()
	if err != nil {
		return daemon.Command{}, fmt.Errorf("locate the langhost executable: %w", err)
	}
	dir, err := os.Getwd()
	if err != nil {
		return daemon.Command{}, fmt.Errorf("working directory: %w", err)
	}
	args := []string{"serve", "--workspace", id.Workspace, "--timeout", h.Config.Timeout.String()}
	for _, l := range h.Config.Languages {
		abs, err := filepath.Abs(l)
		if err != nil {
			return daemon.Command{}, fmt.Errorf("language directory %s: %w", l, err)
		}
		args = append(args, "--languages", abs)
	}
	return daemon.Command{Path: exe, Args: args, Dir: dir, Env: os.Environ()}, nil
}
