package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/slnroot"
	"github.com/langhost/langhost/plugins/dotnet"
)

// waitDelay is how long a call runs before the wait line appears: a
// warm call answers well within it and prints nothing.
const waitDelay = time.Second

// startWaitLine shows on w, a terminal, what a semantic call waits for and
// for how long, once it has taken waitDelay, as gh does on long work: the
// first call of a C# workspace waits seconds for the server to load the
// solution and would otherwise print nothing. The line is rewritten each
// second and erased by stop, which returns once it is. what is asked
// only once the line shows: a quick call does no work for it.
func startWaitLine(w io.Writer, what func() string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		timer := time.NewTimer(waitDelay)
		defer timer.Stop()
		line := ""
		for {
			select {
			case <-done:
				if line != "" {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case <-timer.C:
				if line == "" {
					line = what()
				}
				fmt.Fprintf(w, "\r\x1b[K%s, %ds", line, int(time.Since(start).Seconds()))
				timer.Reset(time.Second)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// waitingFor says what a semantic call of t in workspace waits for: its
// language server, and for a .NET solution at the root, the solution and
// its project count.
func waitingFor(t *registry.Tool, workspace string) string {
	what := t.ID + ": waiting for the language server"
	for _, sln := range slnroot.Solutions(workspace) {
		s, err := dotnet.ParseSolution(workspace, filepath.Base(sln))
		if err != nil {
			continue
		}
		return fmt.Sprintf("%s to load %s (%d projects)", what, filepath.Base(sln), len(s.Projects))
	}
	return what
}
