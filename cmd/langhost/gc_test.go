package main

import (
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

// TestTuneGC checks which commands get the short-lived GC percent: the
// ones that run until stopped keep the runtime's default, and a GOGC the
// user set is never overridden.
func TestTuneGC(t *testing.T) {
	tests := []struct {
		args []string
		gogc string // "" leaves GOGC unset
		want int
	}{
		{args: []string{"run", "go.vet"}, want: shortGCPercent},
		{args: []string{"validate-input", "go.vet"}, want: shortGCPercent},
		{args: []string{"tools", "list"}, want: shortGCPercent},
		{args: []string{"serve"}, want: 100},
		{args: []string{"mcp"}, want: 100},
		{args: []string{"plugin", "serve", "semantic"}, want: 100},
		{args: []string{"agent", "run", "task"}, want: 100},
		{args: []string{"bench", "run", "x"}, want: 100},
		{args: []string{"run", "go.vet"}, gogc: "50", want: 100},
	}
	root := newRootCmd(&factory{io: &ioStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}, paths: config.Paths{}})
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" GOGC="+tt.gogc, func(t *testing.T) {
			t.Setenv("GOGC", tt.gogc)
			if tt.gogc == "" {
				os.Unsetenv("GOGC") // t.Setenv restores it
			}
			cmd, _, err := root.Find(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			old := debug.SetGCPercent(100)
			defer debug.SetGCPercent(old)
			tuneGC(cmd)
			if got := debug.SetGCPercent(100); got != tt.want {
				t.Errorf("GC percent after %v = %d, want %d", tt.args, got, tt.want)
			}
		})
	}
}
