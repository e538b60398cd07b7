// Command langhost serves language tools to coding agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/langhost/langhost/internal/childenv"
	"github.com/langhost/langhost/internal/procgroup"
	"github.com/langhost/langhost/internal/secretenv"
)

func main() {
	// Before anything else runs: a child may read this process's initial
	// environment (/proc/<pid>/environ), so the keys and tokens in it are
	// overwritten there and kept only in Go's copy. If that fails they
	// stay as they were; children get a scrubbed environment regardless.
	_, _ = secretenv.Hide(childenv.Secret)
	// The first SIGINT or SIGTERM cancels the command: tool runs are
	// killed with their process groups, plugins and language servers are
	// stopped, and the exit code says canceled (130) where a run was cut
	// short. A second signal kills the host at once; its children still
	// die with it (see internal/procgroup).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := run(ctx, systemIO(), os.Args[1:])
	stop()
	// Nothing this process started outlives it, not even its reaper.
	procgroup.Shutdown()
	os.Exit(code)
}
