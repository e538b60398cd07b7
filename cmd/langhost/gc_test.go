package main

import (
	"io"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

// TestTuneGC checks which commands get the short-lived GC percent and
// which the long-lived one (those that run until stopped), and that a GOGC
// the user set is never overridden.
func TestTuneGC(t *testing.T) {
	tests := []struct {
		args []string
		gogc string // "" leaves GOGC unset
		want int
	}{
		{args: []string{"run", "go.vet"}, want: shortGCPercent},
		{args: []string{"validate-input", "go.vet"}, want: shortGCPercent},
		{args: []string{"tools", "list"}, want: shortGCPercent},
		{args: []string{"serve"}, want: longGCPercent},
		{args: []string{"mcp"}, want: longGCPercent},
		{args: []string{"plugin", "serve", "semantic"}, want: longGCPercent},
		{args: []string{"agent", "run", "task"}, want: longGCPercent},
		{args: []string{"bench", "run", "x"}, want: longGCPercent},
		{args: []string{"run", "go.vet"}, gogc: "50", want: 100},
		{args: []string{"mcp"}, gogc: "200", want: 100},
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
