package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
)

// TestProfileOnlyLongLived: LANGHOST_PROFILE_DIR makes a long-lived
// command write its CPU profile there and leaves a short-lived one alone.
func TestProfileOnlyLongLived(t *testing.T) {
	root := &cobra.Command{Use: "langhost"}
	mcp, tools := &cobra.Command{Use: "mcp"}, &cobra.Command{Use: "tools"}
	root.AddCommand(mcp, tools)
	for _, c := range []struct {
		cmd   *cobra.Command
		files int
	}{{tools, 0}, {mcp, 1}} {
		dir := t.TempDir()
		env := func(name string) (string, bool) {
			if name == profileEnv {
				return dir, true
			}
			return "", false
		}
		startProfile(c.cmd, env)()
		got, _ := filepath.Glob(filepath.Join(dir, "*.cpu.pprof"))
		if len(got) != c.files {
			t.Errorf("%s: profiles %v, want %d", c.cmd.Name(), got, c.files)
		}
		for _, f := range got {
			if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
				t.Errorf("%s: empty profile %s", c.cmd.Name(), f)
			}
		}
	}
}
