package mcpserver_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/builtin"
)

// TestMain lets the test binary stand in for langhost in plugin mode (the
// plugin manager re-executes os.Executable() as `plugin serve <name>`), so
// that the preview tests run gopls through the real semantic plugin.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		if err := builtin.Serve(os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// Keep the go build cache (in the user cache dir) while describe
	// caches go to a directory of the run's own.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env GOCACHE:", err)
		os.Exit(1)
	}
	os.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache, err := os.MkdirTemp("", "mcpserver-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}
