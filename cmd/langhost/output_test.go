package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/langhost/langhost/internal/safefile"
)

func TestTextRunOutput(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		env      map[string]string
		args     []string
		want     []string
		dontWant []string
	}{
		{name: "plain", args: []string{"run", "demo.check", "path=src/bad.txt"},
			want: []string{"\nsrc/bad.txt:2: error: here\n", "failed (exit code 1, "}, dontWant: []string{"\x1b[", "{"}},
		{name: "tty", tty: true, args: []string{"run", "demo.check", "path=src/bad.txt"},
			want: []string{"src/bad.txt:2: \x1b[31merror\x1b[0m: here\n", "\x1b[31mfailed\x1b[0m (exit code 1"}},
		{name: "NO_COLOR", tty: true, env: map[string]string{"NO_COLOR": "1"}, args: []string{"run", "demo.check", "path=src/bad.txt"},
			want: []string{"src/bad.txt:2: error: here\n"}, dontWant: []string{"\x1b["}},
		{name: "TERM=dumb", tty: true, env: map[string]string{"TERM": "dumb"}, args: []string{"tools", "list"},
			dontWant: []string{"\x1b["}},
		{name: "color never", tty: true, args: []string{"run", "demo.check", "path=src/bad.txt", "--color", "never"},
			dontWant: []string{"\x1b["}},
		{name: "color always", env: map[string]string{"NO_COLOR": "1"}, args: []string{"tools", "list", "--color", "always"},
			want: []string{"\x1b[1mID\x1b[0m"}},
		{name: "table", args: []string{"tools", "list", "--language", "demo"},
			want: []string{"ID            KIND  CATEGORIES    CONFIRM  DESCRIPTION\n", "demo.check    cli   demo,linting           Report lines", "demo.rewrite  cli   -             yes      Pretends"}},
		{name: "describe", args: []string{"tools", "describe", "demo.check"},
			want: []string{"inputs:\n  NAME     TYPE ", "  packet   string (raw|compact|guided)", "  path     string"}, dontWant: []string{"{"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.json, c.tty = false, tt.tty
			for k, v := range tt.env {
				c.env[k] = v
			}
			o := c.run(tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, o.stdout)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(o.stdout, w) {
					t.Errorf("stdout has %q:\n%s", w, o.stdout)
				}
			}
		})
	}
	c := newCLI(t)
	c.json = false
	if o := c.run("run", "demo.ghost"); o.code != 4 || !strings.Contains(o.stderr, "install: apt-get install langhost-no-such-binary  (pkg:deb/debian/langhost-no-such-binary)\n") {
		t.Errorf("missing executable: exit %d, stderr:\n%s", o.code, o.stderr)
	}
	if o := newCLI(t).run("tools", "list", "--color", "purple"); o.code != 2 || o.env.Errors[0].Field != "--color" {
		t.Errorf("bad --color: exit %d %+v", o.code, o.env.Errors)
	}
}

// A semantic operation's answer is rendered as fields, tables,
// diagnostics and a raw diff: never a JSON blob.
func TestRenderValue(t *testing.T) {
	data := `{"symbol": "Shape", "total": 2,
	  "references": [{"path": "a.go", "line": 3, "snippet": "x := Shape{}"}, {"path": "b.go", "line": 10, "container": "main"}],
	  "diagnostics": [{"path": "a.go", "line": 4, "column": 2, "severity": "error", "message": "undefined: y", "code": "UndeclaredName"}],
	  "diff": "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n",
	  "kinds": ["class", "struct"], "none": [], "nested": {"depth": {"n": 1}},
	  "doc": "line one\nline two", "items": [[1, 2], {"a": {"b": 1}}]}`
	var b bytes.Buffer
	if err := (renderer{w: &b}).renderJSON([]byte(data)); err != nil {
		t.Fatal(err)
	}
	want := `symbol: Shape
total: 2
references:
  PATH  LINE  SNIPPET       CONTAINER
  a.go  3     x := Shape{}  -
  b.go  10    -             main
diagnostics:
  a.go:4:2: error: undefined: y [UndeclaredName]
diff:
--- a/a.go
+++ b/a.go
@@ -1 +1 @@
-old
+new
kinds: class, struct
none: (none)
nested:
  depth:
    n: 1
doc:
  line one
  line two
items:
  -
    - 1
    - 2
  -
    a:
      b: 1
`
	if b.String() != want {
		t.Errorf("rendered:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := (renderer{w: &b, st: style{on: true}}).renderJSON([]byte(`{"diff": "--- a\n+++ b\n-x\n+y\n"}`)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\x1b[31m-x\x1b[0m\n\x1b[32m+y\x1b[0m\n") {
		t.Errorf("diff not coloured: %q", b.String())
	}
}

func TestJQ(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		code  int
		out   string
		field string
	}{
		{"raw strings", []string{"tools", "list", "--language", "demo", "--jq", ".data[] | select(.id == \"demo.check\") | .id"}, 0, "demo.check\n", ""},
		{"numbers", []string{"tools", "list", "--language", "demo", "--jq", ".data | length > 3"}, 0, "true\n", ""},
		{"objects", []string{"run", "demo.check", "path=src/bad.txt", "--jq", ".data.diagnostics[0] | {path, line}"}, 1, "{\n  \"line\": 2,\n  \"path\": \"src/bad.txt\"\n}\n", ""},
		{"implies json in text mode", []string{"version", "--format", "text", "--jq", ".ok"}, 0, "true\n", ""},
		{"parse error", []string{"run", "demo.rewrite", "--yes", "--jq", ".data["}, 2, "", "--jq"},
		{"runtime error", []string{"tools", "list", "--jq", ".data.id"}, 2, "", "--jq"},
		{"halt", []string{"tools", "list", "--jq", "halt"}, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.format = "-"
			o := c.run(tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", o.code, tt.code, o.stdout, o.stderr)
			}
			if tt.field != "" {
				if !strings.Contains(o.stdout+o.stderr, tt.field) {
					t.Errorf("error does not name %s:\nstdout: %s\nstderr: %s", tt.field, o.stdout, o.stderr)
				}
				return
			}
			if o.stdout != tt.out {
				t.Errorf("stdout %q, want %q", o.stdout, tt.out)
			}
		})
	}
}

// TestJQFailureIsNeverMute: a failed command filtered by --jq keeps its
// exit code and prints its message on stderr, whatever the filter selects
// (here .data, null for a failure; issue 25 item 12).
func TestJQFailureIsNeverMute(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		out    string
		stderr string
	}{
		{"not found", []string{"run", "demo.nosuch", "--jq", ".data"}, 3, "null\n", "demo.nosuch"},
		{"invalid input", []string{"run", "demo.check", "--input", "{\"nosuch\": 1}", "--jq", ".data"}, 2, "null\n", "nosuch"},
		{"filter keeps the errors", []string{"run", "demo.nosuch", "--jq", ".errors[0].code"}, 3, "not_found\n", "demo.nosuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.format = "-"
			o := c.run(tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", o.code, tt.code, o.stdout, o.stderr)
			}
			if o.stdout != tt.out {
				t.Errorf("stdout %q, want %q", o.stdout, tt.out)
			}
			if !strings.HasPrefix(o.stderr, "error: ") || !strings.Contains(o.stderr, tt.stderr) {
				t.Errorf("stderr %q, want the error naming %q", o.stderr, tt.stderr)
			}
		})
	}
}

func TestSchemaKinds(t *testing.T) {
	c := newCLI(t)
	c.format = "-"
	decode := func(o outcome) map[string]any {
		t.Helper()
		var s map[string]any
		if err := json.Unmarshal([]byte(o.stdout), &s); err != nil {
			t.Fatalf("exit %d: stdout is not a schema: %v\n%s%s", o.code, err, o.stdout, o.stderr)
		}
		return s
	}
	// `langhost schema > file` writes the schema itself.
	s := decode(c.run("schema"))
	if s["$schema"] == nil || s["properties"].(map[string]any)["tools"] == nil || s["ok"] != nil {
		t.Errorf("spec schema: %v", s)
	}
	s = decode(c.run("schema", "--kind", "envelope"))
	for _, k := range []string{"ok", "command_id", "version", "data", "errors", "warnings", "trace_id"} {
		if s["properties"].(map[string]any)[k] == nil {
			t.Errorf("envelope schema lacks %s: %v", k, s)
		}
	}
	s = decode(c.run("schema", "--kind", "result"))
	props := s["properties"].(map[string]any)
	if props["diagnostics"] == nil || props["counts"] == nil || props["data"] != nil {
		t.Errorf("result schema: %v", props)
	}
	diag := props["diagnostics"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	for _, k := range []string{"path", "line", "column", "end_line", "end_column", "severity", "code", "message", "source"} {
		if diag[k] == nil {
			t.Errorf("diagnostic schema lacks %s: %v", k, diag)
		}
	}
	if s := decode(c.run("schema", "--kind", "demo_check")); s["type"] != "object" {
		t.Errorf("tool output schema: %v", s)
	}
	// Explicit JSON wraps it in the envelope like everything else.
	o := c.run("schema", "--kind", "envelope", "--format", "json")
	if env := decode(o); env["ok"] != true || env["data"] == nil {
		t.Errorf("--format json: %v", env)
	}
	c = newCLI(t)
	for _, tc := range []struct {
		kind string
		code int
		msg  string
	}{{"nope", 2, "--kind"}, {"demo.chek", 3, "did you mean demo.check"}} {
		o := c.run("schema", "--kind", tc.kind)
		if o.code != tc.code || !strings.Contains(o.env.Errors[0].Message, tc.msg) {
			t.Errorf("--kind %s: exit %d %+v", tc.kind, o.code, o.env.Errors)
		}
	}
}

func TestVersion(t *testing.T) {
	o := newCLI(t).run("version")
	d := o.env.Data.(map[string]any)
	if o.code != 0 || d["go"] != runtime.Version() || d["os"] != runtime.GOOS || d["arch"] != runtime.GOARCH || d["version"] == "" {
		t.Errorf("version: exit %d %v", o.code, d)
	}
	c := newCLI(t)
	c.json = false
	if o := c.run("version"); !strings.HasPrefix(o.stdout, "langhost ") || !strings.Contains(o.stdout, "go:       "+runtime.Version()) {
		t.Errorf("version text:\n%s", o.stdout)
	}
}

func TestCompletion(t *testing.T) {
	ws, _ := filepath.Abs("testdata/ws")
	specs, _ := filepath.Abs("testdata/specs")
	tests := []struct {
		args     []string
		want     []string
		dontWant []string
	}{
		{[]string{"run", "demo.c"}, []string{"demo.check\tReport lines"}, []string{"demo.hang"}},
		{[]string{"tools", "describe", "demo."}, []string{"demo.check", "demo.hang"}, nil},
		{[]string{"validate-input", ""}, []string{"demo.check", "go.build"}, nil},
		{[]string{"parse", "demo.check", ""}, nil, []string{"demo.check"}},
		{[]string{"prereqs", "de"}, []string{"demo\tDemo"}, []string{"go"}},
		{[]string{"tools", "list", "--language", "py"}, []string{"python\tPython"}, nil},
		{[]string{"schema", "--kind", "env"}, []string{"envelope"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			c := newCLI(t)
			c.raw = true
			args := append([]string{"__complete", "--workspace", ws, "--languages", specs}, tt.args...)
			o := c.run(args...)
			if o.code != 0 {
				t.Fatalf("exit %d: %s %s", o.code, o.stdout, o.stderr)
			}
			lines := strings.Split(o.stdout, "\n")
			for _, w := range tt.want {
				if !containsLine(lines, w) {
					t.Errorf("completions lack %q:\n%s", w, o.stdout)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(o.stdout, w) {
					t.Errorf("completions have %q:\n%s", w, o.stdout)
				}
			}
		})
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		c := newCLI(t)
		c.raw = true
		if o := c.run("completion", shell); o.code != 0 || !strings.Contains(o.stdout, "langhost") {
			t.Errorf("completion %s: exit %d %s", shell, o.code, o.stderr)
		}
	}
}

func containsLine(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestToolIDSpellings(t *testing.T) {
	dir := t.TempDir()
	// a_b_c reads as a.b_c and as a_b.c: both exist.
	write(t, filepath.Join(dir, "a.yaml"), "language: {id: a}\ntools:\n  b_c: {command: \"true\"}\n")
	write(t, filepath.Join(dir, "a_b.yaml"), "language: {id: a_b}\ntools:\n  c: {command: \"true\"}\n  d_e: {command: \"true\"}\n")
	tests := []struct {
		args []string
		code int
		id   string // command_id or error text
	}{
		{[]string{"run", "demo_check", "path=src/good.txt"}, 0, "demo.check"},
		{[]string{"validate-input", "demo_check", "path=x"}, 0, "demo.check"},
		{[]string{"run", "a_b_d_e", "--languages", dir}, 0, "a_b.d_e"},
		{[]string{"run", "a_b_c", "--languages", dir}, 6, "matches several tools (a.b_c, a_b.c)"},
		{[]string{"run", "demo_chek"}, 3, "did you mean demo.check"},
		{[]string{"run", "demo_"}, 3, "unknown tool"},
		{[]string{"run", "_"}, 3, "unknown tool"},
		{[]string{"tools", "describe", "demo_check"}, 0, "tools.describe"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o := newCLI(t).run(tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d: %s %s", o.code, tt.code, o.stdout, o.stderr)
			}
			got := o.env.CommandID
			if tt.code != 0 {
				got = o.env.Errors[0].Message
			}
			if !strings.Contains(got, tt.id) {
				t.Errorf("got %q, want %q", got, tt.id)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "out.txt")
	write(t, saved, "src/bad.txt:2: error: here\nnoise\r\n\x1b[31msrc/x.txt:7: error: coloured\x1b[0m\n")
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		text   []string
		errMsg string
	}{
		{name: "file", args: []string{"parse", "demo.check", saved}, code: 0,
			text: []string{"src/bad.txt:2: error: here\n", "src/x.txt:7: error: coloured\n"}},
		{name: "stdin", args: []string{"parse", "demo_check", "-", "--exit-code", "1"}, stdin: "src/a.txt:1: error: from stdin", code: 0,
			text: []string{"src/a.txt:1: error: from stdin\n"}},
		{name: "no file is stdin", args: []string{"parse", "demo.check"}, stdin: "", code: 0},
		{name: "bad stream", args: []string{"parse", "demo.check", saved, "--stream", "stdin"}, code: 2, errMsg: "--stream"},
		{name: "missing file", args: []string{"parse", "demo.check", filepath.Join(dir, "nope")}, code: 3, errMsg: "does not exist"},
		{name: "directory", args: []string{"parse", "demo.check", dir}, code: 2, errMsg: "not a regular file"},
		{name: "no parsers", args: []string{"parse", "demo.noop", saved}, code: 2, errMsg: "declares no outputParsers"},
		{name: "unknown tool", args: []string{"parse", "demo.chek", saved}, code: 3, errMsg: "did you mean demo.check"},
		{name: "too many args", args: []string{"parse", "demo.check", saved, saved}, code: 2, errMsg: "accepts between 1 and 2 arg(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.stdin = tt.stdin
			o := c.run(tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d: %s %s", o.code, tt.code, o.stdout, o.stderr)
			}
			if tt.errMsg != "" {
				if e := o.env.Errors; len(e) == 0 || !strings.Contains(e[0].Message, tt.errMsg) {
					t.Errorf("errors %+v, want %q", e, tt.errMsg)
				}
				return
			}
			c.json = false
			o = c.run(tt.args...)
			for _, w := range tt.text {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("text lacks %q:\n%s", w, o.stdout)
				}
			}
		})
	}
	// The input is bounded: more than the limit is refused, not read.
	_, err := safefile.ReadAll(strings.NewReader(strings.Repeat("x", 101)), 100)
	if _, tooLarge := err.(*safefile.TooLargeError); !tooLarge {
		t.Errorf("ReadAll over the limit: %v", err)
	}
	if _, err := readSaved("-", strings.NewReader(strings.Repeat("x", maxParseInput+1))); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("readSaved over the limit: %v", err)
	}
}

func TestNotFoundAndMissingDirs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"tools list language", []string{"tools", "list", "--language", "dem"}, 3, "did you mean demo"},
		{"prereqs language", []string{"prereqs", "pyton"}, 3, "did you mean python"},
		{"run tool", []string{"run", "demo.chekc"}, 3, "did you mean demo.check"},
		{"describe tool", []string{"tools", "describe", "go.bulid"}, 3, "did you mean go.build"},
		{"validate-input tool", []string{"validate-input", "go.tset"}, 3, "did you mean go.test"},
		{"missing languages dir", []string{"tools", "list", "--languages", "/nonexistent/specs"}, 2, "/nonexistent/specs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newCLI(t).run(tt.args...)
			if o.code != tt.code || len(o.env.Errors) == 0 || !strings.Contains(o.env.Errors[0].Message, tt.msg) {
				t.Errorf("exit %d (want %d), errors %+v, want %q", o.code, tt.code, o.env.Errors, tt.msg)
			}
		})
	}
}

func TestPrereqsCommand(t *testing.T) {
	c := newCLI(t)
	c.json = false
	o := c.run("prereqs", "demo")
	for _, w := range []string{"LANGUAGE  TOOL", "demo.ghost    langhost-no-such-binary  missing  apt-get install langhost-no-such-binary\n",
		"demo.noop     true                     ok", "\n5 of 6 tools available\n"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("prereqs text lacks %q:\n%s", w, o.stdout)
		}
	}
	if o := c.run("prereqs", "demo", "--check"); o.code != 4 {
		t.Errorf("--check with a missing tool: exit %d", o.code)
	}
	c.format = "markdown"
	o = c.run("prereqs", "demo")
	if o.code != 0 || !strings.HasPrefix(o.stdout, "# Tool prerequisites\n") ||
		!strings.Contains(o.stdout, "`pkg:deb/debian/langhost-no-such-binary`: `apt-get install langhost-no-such-binary`") {
		t.Errorf("markdown: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if o := c.run("prereqs", "demo", "--jq", ".data"); o.code != 2 || !strings.Contains(o.stderr+o.stdout, "cannot be used with --format markdown") {
		t.Errorf("--jq with markdown: exit %d %s", o.code, o.stderr)
	}
	if o := c.run("tools", "list"); o.code != 2 || !strings.Contains(o.stderr+o.stdout, "only prereqs writes markdown") {
		t.Errorf("--format markdown elsewhere: exit %d %s", o.code, o.stderr)
	}
	c = newCLI(t)
	o = c.run("prereqs", "demo")
	d := o.env.Data.(map[string]any)
	if d["total"] != 6.0 || d["available"] != 5.0 {
		t.Errorf("summary: %v", d)
	}
	out := filepath.Join(t.TempDir(), "P.md")
	if o := c.run("prereqs", "demo", "-o", out); o.code != 0 {
		t.Errorf("-o: exit %d", o.code)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.HasPrefix(b, []byte("# Tool prerequisites")) {
		t.Errorf("-o wrote %q, %v", b, err)
	}
}

// Text from tools, servers and workspace files never drives the terminal:
// escape sequences and other controls are shown, not obeyed.
func TestTextIsInert(t *testing.T) {
	hostile := "\x1b]0;owned\x07\x1b[2J\rfake ok\u202egnp.exe\u009b31m"
	data, _ := json.Marshal(map[string]any{
		"message\x1b[8m": hostile,
		"rows":           []map[string]any{{"name": hostile, "n": 1}},
		"diagnostics":    []map[string]any{{"path": "a\x1b[1m.go", "line": 1, "severity": "error\x1b[0m", "message": hostile}},
		"doc":            hostile + "\nsecond line",
	})
	for _, on := range []bool{false, true} {
		var b bytes.Buffer
		if err := (renderer{w: &b, st: style{on: on}}).renderJSON(data); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if on {
			// Only our own colour sequences may remain.
			for _, ours := range []string{ansiReset, ansiBold, ansiRed, ansiGreen, ansiYellow, ansiBlue, ansiCyan, ansiDim} {
				out = strings.ReplaceAll(out, ours, "")
			}
		}
		for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\u009b"} {
			if strings.Contains(out, bad) {
				t.Errorf("colour %v: output holds %q:\n%q", on, bad, out)
			}
		}
		if !strings.Contains(out, `\x1b]0;owned\x07\x1b[2J\x0dfake ok\u202egnp.exe\x9b31m`) {
			t.Errorf("controls not shown:\n%q", out)
		}
	}
	if got := printable("a\r\nb\tc\n"); got != "a\nb\tc\n" {
		t.Errorf("printable kept %q", got)
	}
}

// TestTablesFitTheWidth: every list fits the width COLUMNS gives (a
// terminal's, where there is one), wrapping cells rather than lines.
func TestTablesFitTheWidth(t *testing.T) {
	for _, args := range [][]string{{"agent", "list"}, {"tools", "list"}, {"languages"}} {
		for _, width := range []int{80, 120} {
			c := newCLI(t)
			c.json = false
			c.env["COLUMNS"] = fmt.Sprint(width)
			o := c.run(append(args, "--format", "text")...)
			if o.code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, o.code, o.stderr)
			}
			for line := range strings.Lines(o.stdout) {
				if n := utf8.RuneCountInString(strings.TrimRight(line, "\n")); n > width {
					t.Errorf("%v at %d columns: a line of %d:\n%s", args, width, n, line)
					break
				}
			}
		}
	}
}
