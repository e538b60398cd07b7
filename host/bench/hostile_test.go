package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/bench"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// writeScenario writes a scenario file (and a fixture of files) into a new
// directory and returns the file's path.
func writeScenario(t *testing.T, yaml string, fixture map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range fixture {
		p := filepath.Join(dir, "fixture", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestLoadScenarioRefusesBadFiles(t *testing.T) {
	const ok = "name: s\nlanguage: go\nfixture: fixture\ntask: do it\nchecks: [{command: [\"true\"]}]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", ok + "colour: red\n", "field colour not found"},
		{"empty file", "", "empty"},
		{"name with a slash", strings.Replace(ok, "name: s", "name: ../s", 1), "name:"},
		{"fixture out of the scenario dir", strings.Replace(ok, "fixture: fixture", "fixture: ../../etc", 1), "fixture:"},
		{"absolute fixture", strings.Replace(ok, "fixture: fixture", "fixture: /etc", 1), "fixture:"},
		{"script out of the scenario dir", ok + "script: ../x.yaml\n", "script:"},
		{"no checks", strings.Replace(ok, "checks: [{command: [\"true\"]}]", "checks: []", 1), "checks:"},
		{"tool and command", strings.Replace(ok, `{command: ["true"]}`, `{tool: go.build, command: ["true"]}`, 1), "checks[0]: has both"},
		{"empty executable", strings.Replace(ok, `{command: ["true"]}`, `{command: [""]}`, 1), "checks[0].command[0]"},
		{"input without a tool", strings.Replace(ok, `{command: ["true"]}`, `{command: ["true"], input: {a: 1}}`, 1), "checks[0].input"},
		{"bad glob", ok + "constraints: {allowed_tools: [\"[\"]}\n", "allowed_tools[0]"},
		{"negative steps", ok + "constraints: {max_steps: -1}\n", "max_steps"},
		{"bad duration", ok + "constraints: {time_budget: soon}\n", "soon"},
		{"no task", strings.Replace(ok, "task: do it", "task: \"  \"", 1), "task:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeScenario(t, tt.yaml, nil)
			_, err := bench.LoadScenario(file)
			if err == nil {
				t.Fatal("loaded")
			}
			if failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), file) {
				t.Fatalf("error = %v (%s), want invalid_input naming %s and %q", err, failure.CodeOf(err), file, tt.want)
			}
		})
	}
	if _, err := bench.LoadScenario(filepath.Join(t.TempDir(), "missing.yaml")); failure.CodeOf(err) != failure.NotFound {
		t.Fatalf("missing file: %v, want not_found", err)
	}
}

func TestRunConfigRefusesBadConfigs(t *testing.T) {
	tests := []struct {
		name string
		c    bench.RunConfig
		want string
	}{
		{"unknown runner", bench.RunConfig{Runner: "robot"}, "runner"},
		{"external without command", bench.RunConfig{Runner: bench.RunnerExternal}, "command"},
		{"unknown placeholder", bench.RunConfig{Command: []string{"codex", "{home}"}}, "command[1]: unknown placeholder {home}"},
		{"langhost with a command", bench.RunConfig{Runner: bench.RunnerLanghost, Command: []string{"x"}}, "command"},
		{"unknown provider", bench.RunConfig{Provider: "gpt"}, "provider"},
		{"unknown interface", bench.RunConfig{Interface: "grpc"}, "interface"},
		{"unknown packet", bench.RunConfig{Packet: "verbose"}, "packet"},
		{"bad name", bench.RunConfig{Name: "a/b"}, "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Normalize("cfg.yaml")
			if failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want invalid_input with %q", err, tt.want)
			}
		})
	}
	dup := []bench.RunConfig{{Name: "a"}, {Name: "a"}}
	if err := bench.NormalizeConfigs("cfg.yaml", dup); err == nil || !strings.Contains(err.Error(), "configs[1].name") {
		t.Fatalf("duplicate names: %v", err)
	}
}

// TestArgvKeepsEachElementOneArgument: a task full of shell syntax reaches
// the external agent as one argument, verbatim, and nothing runs it.
func TestArgvKeepsEachElementOneArgument(t *testing.T) {
	task := `fix it"; touch pwned; echo $(id) '--force`
	file := writeScenario(t, "name: argv\nlanguage: go\nfixture: fixture\ntask: '"+strings.ReplaceAll(task, "'", "''")+
		"'\nchecks: [{command: [test, '!', -e, pwned]}]\n", map[string]string{"README": "x\n"})
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c := bench.RunConfig{Name: "echo", Command: []string{"printf", "%s|%s", "{task}", "--model={model}"}, Model: "m 1"}
	if err := c.Normalize("test"); err != nil {
		t.Fatal(err)
	}
	if got := bench.Argv(c.Command, s, c, "/ws"); len(got) != 4 || got[2] != task || got[3] != "--model=m 1" {
		t.Fatalf("argv = %q", got)
	}
	out := t.TempDir()
	results, err := bench.Run(context.Background(), bench.Options{Out: out, OpenHost: openHost}, []*bench.Scenario{s}, []bench.RunConfig{c})
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := os.ReadFile(filepath.Join(out, results[0].Run, "agent.stdout"))
	if err != nil {
		t.Fatal(err)
	}
	if string(stdout) != task+"|--model=m 1" || !results[0].Success {
		t.Fatalf("agent saw %q (success %v, %+v)", stdout, results[0].Success, results[0].Checks)
	}
}

// TestExternalRunnerSolvesAScenario: an external "agent" (sed) fixes the
// Go fixture; the acceptance checks (a registered tool and a command) run
// in the same workspace and pass. Running again into the same directory
// is refused: results are never overwritten.
func TestExternalRunnerSolvesAScenario(t *testing.T) {
	builtintest.RequireTools(t, "go")
	s, err := bench.LoadScenario(filepath.Join(shipped, "go-fix-failing-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	configs := []bench.RunConfig{
		{Name: "sed", Command: []string{"sed", "-i", "s/a - b/a + b/", "calc.go"}},
		{Name: "noop", Command: []string{"true"}},
	}
	if err := bench.NormalizeConfigs("test", configs); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	opts := bench.Options{Out: out, OpenHost: openHost}
	results, err := bench.Run(context.Background(), opts, []*bench.Scenario{s}, configs)
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; !r.Success || r.Measured || r.StopReason != "exited" {
		t.Fatalf("sed run: %+v", r)
	}
	if r := results[1]; r.Success || r.Checks[0].OK || r.Checks[0].Code != "tool_failed" {
		t.Fatalf("noop run passed its checks: %+v", r)
	}
	_, err = bench.Run(context.Background(), opts, []*bench.Scenario{s}, configs[:1])
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "never overwritten") {
		t.Fatalf("second run into the same directory: %v", err)
	}
	rep, err := bench.LoadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Summary) != 2 || rep.Summary[0].Config != "noop" || rep.Summary[0].Rate != 0 || rep.Summary[1].Rate != 1 {
		t.Fatalf("summary = %+v", rep.Summary)
	}
}

// TestFixtureWithASymlinkIsRefused: a fixture that links out of itself is
// not copied; the run fails naming the link, and no check runs.
func TestFixtureWithASymlinkIsRefused(t *testing.T) {
	file := writeScenario(t, "name: link\nlanguage: go\nfixture: fixture\ntask: t\nchecks: [{command: [\"true\"]}]\n", map[string]string{"a.go": "package a\n"})
	if err := os.Symlink("/etc/passwd", filepath.Join(filepath.Dir(file), "fixture", "passwd")); err != nil {
		t.Fatal(err)
	}
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c := bench.RunConfig{Name: "noop", Command: []string{"true"}}
	if err := c.Normalize("test"); err != nil {
		t.Fatal(err)
	}
	results, err := bench.Run(context.Background(), bench.Options{Out: t.TempDir(), OpenHost: openHost}, []*bench.Scenario{s}, []bench.RunConfig{c})
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Success || len(r.Checks) != 0 || !strings.Contains(r.Error, "passwd is not a regular file") {
		t.Fatalf("result = %+v", r)
	}
}

// TestScriptLeftByTheAgentFailsTheRun: a scripted conversation whose
// expectations the run does not meet fails with the server's reason.
func TestScriptLeftByTheAgentFailsTheRun(t *testing.T) {
	builtintest.RequireTools(t, "go")
	file := writeScenario(t, "name: off-script\nlanguage: go\nfixture: fixture\ntask: t\nscript: script.yaml\nchecks: [{command: [\"true\"]}]\n",
		map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n", "a.go": "package a\n"})
	script := "turns:\n  - expect: {tools_include: [rust_build]}\n    reply: {text: done}\n"
	if err := os.WriteFile(filepath.Join(filepath.Dir(file), "script.yaml"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := bench.LoadScenario(file)
	if err != nil {
		t.Fatal(err)
	}
	c := bench.RunConfig{Name: "own"}
	if err := c.Normalize("test"); err != nil {
		t.Fatal(err)
	}
	results, err := bench.Run(context.Background(), bench.Options{Out: t.TempDir(), OpenHost: openHost}, []*bench.Scenario{s}, []bench.RunConfig{c})
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Success || r.StopReason != "model_error" || !strings.Contains(r.Error, "rust_build") {
		t.Fatalf("result = %+v", r)
	}
}

func TestLoadReportRefusesBrokenResults(t *testing.T) {
	empty := t.TempDir()
	if _, err := bench.LoadReport(empty); failure.CodeOf(err) != failure.NotFound {
		t.Fatalf("empty directory: %v, want not_found", err)
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "x.y.1")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"{not json", `{"success": true}`} {
		if err := os.WriteFile(filepath.Join(run, bench.ResultFile), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := bench.LoadReport(dir)
		if failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), filepath.Join(run, bench.ResultFile)) {
			t.Fatalf("%s: %v, want invalid_input naming the file", content, err)
		}
	}
}
