package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

// thirdParty is a language served by the two-operation plugin of
// host/semantictool/testdata/twoops, built outside langhost's catalogue.
type thirdParty struct {
	c      *cli
	specs  string // the spec directory, for --languages
	plugin string
	marker string // one line per plugin process started
}

func newThirdParty(t *testing.T) *thirdParty {
	t.Helper()
	dir := t.TempDir()
	p := &thirdParty{c: newCLI(t), specs: filepath.Join(dir, "specs"), plugin: filepath.Join(dir, "twoops"),
		marker: filepath.Join(dir, "started")}
	if out, err := exec.Command("go", "build", "-o", p.plugin, "../../host/semantictool/testdata/twoops").CombinedOutput(); err != nil {
		t.Fatalf("build the plugin: %v\n%s", err, out)
	}
	spec := "language:\n  id: lines\n  name: Lines\nsemantic:\n  command: lines-server\n  plugin: " + p.plugin + "\n"
	if err := os.MkdirAll(p.specs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.specs, "lines.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("TWOOPS_MARKER", p.marker)
	return p
}

func (p *thirdParty) run(args ...string) outcome {
	p.c.t.Helper()
	return p.c.run(append([]string{"--languages", p.specs}, args...)...)
}

// starts is how many plugin processes have started.
func (p *thirdParty) starts() int {
	data, err := os.ReadFile(p.marker)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		p.c.t.Fatal(err)
	}
	return strings.Count(string(data), "started")
}

func decodeData(t *testing.T, o outcome, v any) {
	t.Helper()
	raw, err := json.Marshal(o.env.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("data: %v\n%s", err, raw)
	}
}

// TestThirdPartyPlugin is the acceptance test of the plugin seam: a plugin
// that describes two operations of its own gets exactly those two tools,
// with its schemas and side effects; they run through the CLI; and once
// its description is cached, listing tools starts no process.
func TestThirdPartyPlugin(t *testing.T) {
	p := newThirdParty(t)

	o := p.run("tools", "list", "--language", "lines")
	if o.code != 0 {
		t.Fatalf("tools list: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var list []struct{ ID, Kind string }
	decodeData(t, o, &list)
	if len(list) != 2 || list[0].ID != "lines.count_lines" || list[1].ID != "lines.echo" || list[0].Kind != "semantic" {
		t.Fatalf("tools = %+v, want exactly lines.count_lines and lines.echo", list)
	}
	if n := p.starts(); n != 1 {
		t.Errorf("the first tools list started %d plugin processes, want 1 (to describe it)", n)
	}
	if len(o.env.Warnings) != 0 {
		t.Errorf("warnings: %+v", o.env.Warnings)
	}

	for range 2 {
		if o := p.run("tools", "list"); o.code != 0 {
			t.Fatalf("tools list: exit %d\n%s", o.code, o.stderr)
		}
	}
	o = p.run("tools", "describe", "lines.count_lines")
	if o.code != 0 {
		t.Fatalf("tools describe: exit %d\n%s", o.code, o.stderr)
	}
	if n := p.starts(); n != 1 {
		t.Errorf("%d plugin processes started, want still 1: listing and describing tools must use the cache", n)
	}
	var tool struct {
		Description  string
		SideEffects  string
		ReadOnly     bool
		FailureCodes []string
		InputSchema  struct {
			Properties map[string]struct{ Type string }
			Required   []string
		}
		OutputSchema struct {
			Properties map[string]struct{ Type string }
		}
	}
	decodeData(t, o, &tool)
	if tool.Description != "Count the lines of a workspace file." || tool.SideEffects != "none" || !tool.ReadOnly ||
		strings.Join(tool.FailureCodes, ",") != "invalid_input,not_found" {
		t.Errorf("lines.count_lines = %+v", tool)
	}
	if tool.InputSchema.Properties["path"].Type != "string" || strings.Join(tool.InputSchema.Required, ",") != "path" {
		t.Errorf("input schema = %+v", tool.InputSchema)
	}
	if tool.OutputSchema.Properties["lines"].Type != "integer" {
		t.Errorf("output schema = %+v", tool.OutputSchema)
	}

	// Calls go to the plugin.
	o = p.run("run", "lines.count_lines", "path=src/good.txt")
	var counted struct{ Lines int }
	decodeData(t, o, &counted)
	if o.code != 0 || counted.Lines != 1 {
		t.Fatalf("count_lines: exit %d, data %+v\n%s", o.code, counted, o.stderr)
	}
	o = p.run("run", "lines.echo", "message=-hi")
	var echoed struct{ Message string }
	decodeData(t, o, &echoed)
	if o.code != 0 || echoed.Message != "-hi" {
		t.Fatalf("echo: exit %d, data %+v\n%s", o.code, echoed, o.stderr)
	}
	// The plugin's own schema is enforced before the plugin is asked,
	// and its failures keep their class.
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown key", []string{"lines.echo", "message=x", "colour=red"}, 2, "invalid_input"},
		{"missing key", []string{"lines.echo"}, 2, "invalid_input"},
		{"outside the workspace", []string{"lines.count_lines", "path=../../../go.mod"}, 3, "not_found"},
		{"unknown operation", []string{"lines.find_references", "symbol=x"}, 3, "not_found"},
	}
	for _, tt := range tests {
		o := p.run(append([]string{"run"}, tt.args...)...)
		if o.code != tt.code || len(o.env.Errors) == 0 || string(o.env.Errors[0].Code) != tt.err {
			t.Errorf("%s: exit %d, errors %+v, want exit %d %s", tt.name, o.code, o.env.Errors, tt.code, tt.err)
		}
	}
}

// TestBrokenThirdPartyPlugin: a plugin that cannot be described costs its
// language its semantic tools, with a warning naming the spec file and
// field; everything else still loads.
func TestBrokenThirdPartyPlugin(t *testing.T) {
	p := newThirdParty(t)
	if err := os.WriteFile(p.plugin, []byte("#!/bin/sh\necho not a plugin\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := p.run("tools", "list")
	if o.code != 0 {
		t.Fatalf("tools list: exit %d\n%s", o.code, o.stderr)
	}
	var list []struct{ ID string }
	decodeData(t, o, &list)
	for _, tool := range list {
		if strings.HasPrefix(tool.ID, "lines.") {
			t.Errorf("tool %s registered from a broken plugin", tool.ID)
		}
	}
	if len(list) == 0 {
		t.Fatal("no tools at all")
	}
	if len(o.env.Warnings) != 1 || o.env.Warnings[0].Field != "semantic.plugin" ||
		!strings.HasSuffix(o.env.Warnings[0].File, "lines.yaml") || !strings.Contains(o.env.Warnings[0].Message, p.plugin) {
		t.Errorf("warnings = %+v, want one on lines.yaml semantic.plugin naming the plugin", o.env.Warnings)
	}
	if !strings.Contains(o.stderr, "semantic.plugin") {
		t.Errorf("stderr does not warn: %s", o.stderr)
	}
}

// BenchmarkToolsListWarm measures `langhost tools list` over every
// shipped language with the descriptions cached: what a CLI start costs
// now that tools come from plugin descriptions.
func BenchmarkToolsListWarm(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	ws, _ := filepath.Abs("testdata/ws")
	dir := b.TempDir()
	list := func() {
		var out bytes.Buffer
		f := &factory{
			io:    &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
			paths: config.Paths{User: filepath.Join(dir, "u.yaml"), Workspace: filepath.Join(dir, "w.yaml")},
			env:   func(string) (string, bool) { return "", false },
		}
		if code := execute(context.Background(), f, []string{"--workspace", ws, "--format", "json", "tools", "list"}); code != 0 {
			b.Fatal(out.String())
		}
	}
	list() // fills the cache
	for b.Loop() {
		list()
	}
}
