package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

// BenchmarkRunNoop measures `langhost run` in-process: config, loading every
// embedded spec, registering tools, running `true` and printing JSON. The
// whole-process comparison against running `true` directly is in
// scripts/bench.sh.
func BenchmarkRunNoop(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	ws, _ := filepath.Abs("testdata/ws")
	specs, _ := filepath.Abs("testdata/specs")
	dir := b.TempDir()
	for b.Loop() {
		var out bytes.Buffer
		f := &factory{
			io:    &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
			paths: config.Paths{User: filepath.Join(dir, "u.yaml"), Workspace: filepath.Join(dir, "w.yaml")},
			env:   func(string) (string, bool) { return "", false },
		}
		if code := execute(context.Background(), f, []string{"--workspace", ws, "--languages", specs, "--format", "json", "run", "demo.noop"}); code != 0 {
			b.Fatalf("exit %d: %s", code, out.String())
		}
	}
}

// BenchmarkValidateInputSemantic measures the CLI's own work before a
// semantic call goes to the workspace daemon: config, the go spec, the
// tool registrations (the plugin's description from the describe cache)
// and validating the input. scripts/bench.sh times the whole warm call.
func BenchmarkValidateInputSemantic(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	ws, _ := filepath.Abs("../../plugins/semantic/testdata/gomod")
	dir := b.TempDir()
	args := []string{"--workspace", ws, "--format", "json", "validate-input", "go.find_references", "file=calc/calc.go", "symbol=TotalArea"}
	for b.Loop() {
		var out bytes.Buffer
		f := &factory{
			io:    &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
			paths: config.Paths{User: filepath.Join(dir, "u.yaml"), Workspace: filepath.Join(dir, "w.yaml")},
			env:   func(string) (string, bool) { return "", false },
		}
		if code := execute(context.Background(), f, args); code != 0 {
			b.Fatalf("exit %d: %s", code, out.String())
		}
	}
}
