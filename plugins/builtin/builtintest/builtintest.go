// Package builtintest sets up test binaries that load language specs
// through the real plugin manager: the manager re-executes os.Executable()
// as `plugin serve <name>`, so the test binary must serve the built-in
// plugins when started that way.
package builtintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/builtin"
)

// Main is a TestMain: it serves a built-in plugin when the binary was
// started as one, and otherwise runs the tests with plugin descriptions
// cached in a temporary directory of their own (keeping the go build
// cache, which also lives in the user cache directory).
func Main(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "plugin" && os.Args[2] == "serve" {
		if err := builtin.Serve(os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env GOCACHE:", err)
		os.Exit(1)
	}
	os.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	cache, err := os.MkdirTemp("", "langhost-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The tests' describe cache and transaction records stay out of the
	// user's ~/.cache and ~/.local/state.
	os.Setenv("XDG_CACHE_HOME", cache)
	os.Setenv("XDG_STATE_HOME", filepath.Join(cache, "state"))
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// RequireTools fails the test when an executable is not on PATH: tests
// fail, never skip, when a tool they need is missing.
func RequireTools(t testing.TB, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			t.Fatalf("%s is not installed: run scripts/install-tools.sh and put .tools/bin on PATH (scripts/test.sh does both)", name)
		}
	}
}
