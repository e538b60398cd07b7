//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestValidateRefusesHostileFiles goes through the CLI: the size cap comes
// from the config (LANGHOST_SPEC_MAX_SIZE), and a named pipe is reported,
// not waited on.
func TestValidateRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("testdata/specs/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "demo.yaml"), string(good))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	c.env["LANGHOST_SPEC_MAX_SIZE"] = "100"
	o := c.run("validate", dir)
	msgs := map[string]string{}
	for _, p := range o.env.Data.(map[string]any)["problems"].([]any) {
		p := p.(map[string]any)
		msgs[filepath.Base(p["file"].(string))] = p["message"].(string)
	}
	if o.code != 2 || !strings.Contains(msgs["demo.yaml"], "larger than the spec size limit of 100 bytes (config spec.max_size)") ||
		!strings.Contains(msgs["pipe.yaml"], "not a regular file: it is a named pipe (FIFO)") {
		t.Errorf("exit %d, problems %v", o.code, msgs)
	}
}
