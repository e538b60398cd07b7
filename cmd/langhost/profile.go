package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// profileEnv names a directory where a long-lived langhost (mcp, serve,
// plugin serve, ...) writes a CPU profile of its whole life and, every
// heapEvery, a heap profile, as <command>-<pid>.cpu.pprof and .heap.pprof:
// the MCP host and its plugins are the same executable, and only an
// environment variable reaches the plugin. For measuring, never set by
// langhost itself.
const profileEnv = "LANGHOST_PROFILE_DIR"

// startProfile starts the CPU profile of cmd when profileEnv is set and
// returns the function that stops it and writes the heap profile. A
// profile that cannot be started is reported on stderr and skipped.
func startProfile(cmd *cobra.Command, getenv func(string) (string, bool)) (stop func()) {
	dir, ok := getenv(profileEnv)
	if !ok || dir == "" || !longLived(cmd) {
		return func() {}
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", strings.ReplaceAll(commandPath(cmd), ".", "-"), os.Getpid()))
	cpu, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		fmt.Fprintf(os.Stderr, "warning: %s: %v\n", profileEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintf(os.Stderr, "warning: %s: %v\n", profileEnv, err)
		cpu.Close()
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heapEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				writeHeapProfile(base + ".heap.pprof")
			}
		}
	}()
	return func() {
		close(done)
		pprof.StopCPUProfile()
		cpu.Close()
	}
}

// heapEvery is how often a profiled process writes its heap profile: a
// plugin's heap at its end is that of a stopped engine.
const heapEvery = 15 * time.Second

func writeHeapProfile(name string) {
	f, err := os.Create(name)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC() // the heap as it is, not as of the last collection
	_ = pprof.WriteHeapProfile(f)
}
