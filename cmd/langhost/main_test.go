package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

// cli runs langhost in-process with the test specs and workspace, isolated
// from the user's own config.
type cli struct {
	t   *testing.T
	env map[string]string
	// dir holds the user config and trust store, and the workspace config
	// unless ws is set.
	dir string
	// ws, if set, is the workspace instead of testdata/ws, with its own
	// .langhost.yaml and .langhost/languages.
	ws   string
	json bool
	// format, if set, is passed as --format instead of json or text;
	// "-" passes no --format at all.
	format string
	// raw runs the arguments as given, without the test workspace,
	// specs and format (for __complete, whose last argument is the word
	// being completed).
	raw bool
	// stdin is the command's standard input; tty makes stdout a terminal.
	stdin string
	tty   bool
}

type outcome struct {
	code   int
	stdout string
	stderr string
	env    envelope
}

// configDir returns an empty user config directory, for XDG_CONFIG_HOME,
// in which Go telemetry is off: gopls and the go command would otherwise
// write counters into it, from processes that may outlive the test and
// race its removal.
func configDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	mode := filepath.Join(dir, "go", "telemetry", "mode")
	if err := os.MkdirAll(filepath.Dir(mode), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mode, []byte("off"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newCLI(t *testing.T) *cli {
	t.Setenv("XDG_CONFIG_HOME", configDir(t)) // no user specs or config
	t.Setenv("XDG_STATE_HOME", t.TempDir())   // transaction records of its own
	// No daemons: in-process tests would start the test binary as one.
	return &cli{t: t, env: map[string]string{"LANGHOST_DAEMON": "0"}, dir: t.TempDir(), json: true}
}

func (c *cli) run(args ...string) outcome {
	c.t.Helper()
	var out, errOut bytes.Buffer
	f := &factory{
		io:      &ioStreams{In: strings.NewReader(c.stdin), Out: &out, ErrOut: &errOut, OutTTY: c.tty},
		logPath: filepath.Join(c.dir, "langhost.log"),
		paths: config.Paths{User: filepath.Join(c.dir, "user.yaml"), Workspace: filepath.Join(c.dir, ".langhost.yaml"),
			Trust: filepath.Join(c.dir, "trusted.json")},
		env: func(k string) (string, bool) {
			v, ok := c.env[k]
			return v, ok
		},
	}
	wsAbs, _ := filepath.Abs("testdata/ws")
	if c.ws != "" {
		wsAbs, f.paths.Workspace = c.ws, ".langhost.yaml"
	}
	specsAbs, _ := filepath.Abs("testdata/specs")
	full := append([]string{"--workspace", wsAbs, "--languages", specsAbs}, args...)
	switch {
	case c.raw:
		full = args
	case c.format == "-":
	case c.format != "":
		full = append(full, "--format", c.format)
	case c.json:
		full = append(full, "--format", "json")
	default:
		full = append(full, "--format", "text")
	}
	o := outcome{code: execute(context.Background(), f, full), stdout: out.String(), stderr: errOut.String()}
	if c.json && c.format == "" && !c.raw && o.stdout != "" {
		if err := json.Unmarshal(out.Bytes(), &o.env); err != nil {
			c.t.Fatalf("stdout is not one JSON envelope: %v\n%s", err, o.stdout)
		}
	}
	return o
}

func TestExitCodesAndEnvelopes(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		code      int
		errCode   string // first envelope error code
		errFields []string
		contains  string // in the envelope's first error message
	}{
		{"ok", []string{"run", "demo.check", "path=src/good.txt"}, 0, "", nil, ""},
		{"tool failed", []string{"run", "demo.check", "path=src/bad.txt"}, 1, "tool_failed", nil, "exit code 1"},
		{"bad json", []string{"run", "demo.check", "--input", "{path:"}, 2, "invalid_input", nil, "input must be a JSON object"},
		{"schema mismatch", []string{"run", "demo.check", "--input", `{"path": 3}`}, 2, "invalid_input", []string{"path"}, "schema"},
		{"unknown key", []string{"run", "demo.check", "path=src/good.txt", "colour=red"}, 2, "invalid_input", []string{"colour"}, ""},
		{"bad pair", []string{"run", "demo.check", "pathsrc"}, 2, "invalid_input", nil, "key=value"},
		{"unknown tool", []string{"run", "demo.chek"}, 3, "not_found", nil, "did you mean demo.check"},
		{"outside workspace", []string{"run", "demo.check", "path=../../main.go"}, 4, "precondition_failed", []string{"path"}, "outside the workspace"},
		{"needs confirmation", []string{"run", "demo.rewrite"}, 4, "precondition_failed", nil, "needs confirmation"},
		{"confirmed", []string{"run", "demo.rewrite", "--yes"}, 0, "", nil, ""},
		{"missing executable", []string{"run", "demo.ghost"}, 4, "precondition_failed", nil, "not installed"},
		{"timeout", []string{"run", "demo.hang"}, 5, "timeout", nil, "did not finish within 200ms"},
		{"unknown command", []string{"frobnicate"}, 2, "invalid_input", nil, "unknown command"},
		{"unknown flag", []string{"tools", "list", "--colour"}, 2, "invalid_input", nil, "unknown flag"},
		{"describe unknown", []string{"tools", "describe", "nope.nope"}, 3, "not_found", nil, ""},
		{"validate-input ok", []string{"validate-input", "demo.check", "path=x"}, 0, "", nil, ""},
		{"validate-input bad", []string{"validate-input", "demo.check", "--input", `{"path": true}`}, 2, "invalid_input", []string{"path"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newCLI(t).run(tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit code %d, want %d\nstdout: %s\nstderr: %s", o.code, tt.code, o.stdout, o.stderr)
			}
			if o.env.Version == "" || o.env.TraceID == "" || o.env.OK != (tt.code == 0) {
				t.Errorf("bad envelope: %+v", o.env)
			}
			if tt.errCode == "" {
				if len(o.env.Errors) != 0 {
					t.Errorf("errors = %+v, want none", o.env.Errors)
				}
				return
			}
			if len(o.env.Errors) == 0 {
				t.Fatalf("no errors in envelope: %s", o.stdout)
			}
			e := o.env.Errors[0]
			if string(e.Code) != tt.errCode {
				t.Errorf("error code %q, want %q", e.Code, tt.errCode)
			}
			for _, f := range tt.errFields {
				if e.Field != f {
					t.Errorf("error field %q, want %q (%s)", e.Field, f, e.Message)
				}
			}
			if !strings.Contains(e.Message, tt.contains) {
				t.Errorf("error message %q does not contain %q", e.Message, tt.contains)
			}
		})
	}
}

func TestRunResultData(t *testing.T) {
	o := newCLI(t).run("run", "demo.check", "--input", `{"path": "src/bad.txt"}`)
	var res struct {
		OK          bool
		ExitCode    int `json:"exit_code"`
		Diagnostics []struct {
			Path     string
			Line     int
			Severity string
			Message  string
		}
	}
	raw, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.OK || res.ExitCode != 1 || len(res.Diagnostics) != 1 {
		t.Fatalf("result = %+v", res)
	}
	if d := res.Diagnostics[0]; d.Path != "src/bad.txt" || d.Line != 2 || d.Severity != "error" || d.Message != "here" {
		t.Errorf("diagnostic = %+v", d)
	}
	if o.env.CommandID != "demo.check" {
		t.Errorf("command_id = %q", o.env.CommandID)
	}
}

func TestRunHugeOutputIsCapped(t *testing.T) {
	o := newCLI(t).run("run", "demo.flood")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	data := o.env.Data.(map[string]any)
	if data["stdout_truncated"] != true || len(data["stdout"].(string)) > 2<<20 {
		t.Errorf("100 MB of output not capped: truncated=%v len=%d", data["stdout_truncated"], len(data["stdout"].(string)))
	}
}

func TestTextFormat(t *testing.T) {
	c := newCLI(t)
	c.json = false
	o := c.run("tools", "list", "--language", "demo")
	if o.code != 0 || !strings.Contains(o.stdout, "demo.check") || !strings.HasPrefix(o.stdout, "ID ") {
		t.Errorf("text table: %d\n%s", o.code, o.stdout)
	}
	o = c.run("run", "demo.check", "path=src/bad.txt")
	if o.code != 1 || !strings.Contains(o.stdout, "\nsrc/bad.txt:2: error: here\n") || !strings.Contains(o.stderr, "error: demo.check failed") {
		t.Errorf("text run: %d\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
}

func TestToolsListFilters(t *testing.T) {
	c := newCLI(t)
	o := c.run("tools", "list", "--category", "linting", "--language", "demo")
	list := o.env.Data.([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != "demo.check" {
		t.Errorf("filtered list = %v", list)
	}
	o = c.run("tools", "describe", "demo.check")
	d := o.env.Data.(map[string]any)
	if d["sideEffects"] != "none" || d["inputSchema"] == nil || d["outputSchema"] == nil || d["failureCodes"] == nil {
		t.Errorf("describe lacks contract fields: %v", d)
	}
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile("testdata/specs/demo.yaml")
	write(t, filepath.Join(dir, "good.yaml"), string(good))
	write(t, filepath.Join(dir, "bad.yaml"), "language: {id: bad}\ntools:\n  x:\n    command: y\n    pathArg: nine\n")
	c := newCLI(t)
	o := c.run("validate", dir)
	if o.code != 2 {
		t.Fatalf("exit %d, want 2", o.code)
	}
	data := o.env.Data.(map[string]any)
	problems := data["problems"].([]any)
	p := problems[0].(map[string]any)
	if !strings.HasSuffix(p["file"].(string), "bad.yaml") || p["line"] != 5.0 || p["column"] != 14.0 || p["field"] != "tools.x.pathArg" {
		t.Errorf("problem = %v", p)
	}
	if valid := data["valid"].([]any); len(valid) != 1 {
		t.Errorf("the good file must still load: %v", valid)
	}
	if o := c.run("validate", filepath.Join(dir, "good.yaml")); o.code != 0 {
		t.Errorf("valid file: exit %d", o.code)
	}
	if o := c.run("validate", filepath.Join(dir, "missing.yaml")); o.code != 3 {
		t.Errorf("missing file: exit %d, want 3", o.code)
	}
}

func TestConfigShowPrecedence(t *testing.T) {
	c := newCLI(t)
	write(t, filepath.Join(c.dir, "user.yaml"), "timeout: 1m\nlog:\n  level: debug\ntools:\n  allow: [demo.rewrite]\n")
	write(t, filepath.Join(c.dir, ".langhost.yaml"), "timeout: 2m\n")
	c.env["LANGHOST_LOG_LEVEL"] = "error"
	o := c.run("config", "show", "--timeout", "3m")
	if o.code != 0 {
		t.Fatalf("exit %d: %s %s", o.code, o.stdout, o.stderr)
	}
	got := map[string][2]any{}
	for _, v := range o.env.Data.(map[string]any)["values"].([]any) {
		m := v.(map[string]any)
		got[m["key"].(string)] = [2]any{m["value"], m["source"]}
	}
	wants := map[string][2]any{
		"timeout":    {"3m0s", "flag --timeout"},
		"log.level":  {"error", "env LANGHOST_LOG_LEVEL"},
		"format":     {"json", "flag --format"},
		"max_output": {1048576.0, "default"},
	}
	for k, want := range wants {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if src := got["tools.allow"][1]; src != filepath.Join(c.dir, "user.yaml") {
		t.Errorf("tools.allow source = %v", src)
	}
	// The allowlist lets the tool run without --yes.
	if o := c.run("run", "demo.rewrite"); o.code != 0 {
		t.Errorf("allowlisted tool: exit %d: %s", o.code, o.stdout)
	}
	// Globs work as in `mcp --allow`.
	c.env["LANGHOST_TOOLS_ALLOW"] = "demo.*"
	if o := c.run("run", "demo.rewrite"); o.code != 0 {
		t.Errorf("tool allowed by glob: exit %d: %s", o.code, o.stdout)
	}
	c.env["LANGHOST_TOOLS_ALLOW"] = "go.*"
	if o := c.run("run", "demo.rewrite"); o.code != 4 {
		t.Errorf("tool not allowed: exit %d, want 4: %s", o.code, o.stdout)
	}
}

func TestConfigErrors(t *testing.T) {
	c := newCLI(t)
	write(t, filepath.Join(c.dir, ".langhost.yaml"), "timeout: 1m\ntimout: 2m\n")
	o := c.run("config", "show")
	if o.code != 2 || !strings.Contains(o.env.Errors[0].Message, `.langhost.yaml:2:1: unknown setting "timout" (did you mean "timeout"?)`) {
		t.Errorf("exit %d: %+v", o.code, o.env.Errors)
	}
	c = newCLI(t)
	c.env["LANGHOST_TIMEOUT"] = "soon"
	if o := c.run("config", "show"); o.code != 2 || !strings.Contains(o.env.Errors[0].Message, "env LANGHOST_TIMEOUT") {
		t.Errorf("bad env duration: exit %d %+v", o.code, o.env.Errors)
	}
	c = newCLI(t)
	c.env["LANGHOST_TOOLS_ALLOW"] = "go.[fmt"
	if o := c.run("config", "show"); o.code != 2 || !strings.Contains(o.env.Errors[0].Message, `tools.allow (from env LANGHOST_TOOLS_ALLOW): bad glob "go.[fmt"`) {
		t.Errorf("bad allow glob: exit %d %+v", o.code, o.env.Errors)
	}
}

func TestSchemaCommand(t *testing.T) {
	o := newCLI(t).run("schema")
	s := o.env.Data.(map[string]any)
	props := s["properties"].(map[string]any)
	if o.code != 0 || props["tools"] == nil || props["semantic"] == nil {
		t.Errorf("schema: exit %d, properties %v", o.code, props)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
