// Command langhost serves language tools to coding agents.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, systemIO(), os.Args[1:])
	stop()
	os.Exit(code)
}
