package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// threeProblems has an unknown field, an invalid regex and a missing
// command: validate must report all three, each at its line and column.
const threeProblems = `language: {id: broken}
tools:
  build:
    comand: make
    outputParsers:
      errors: {type: regex, pattern: '(unclosed'}
`

func badSpecDir(t *testing.T) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, "broken.yaml")
	write(t, file, threeProblems)
	return dir, file
}

func TestValidateReportsEveryProblem(t *testing.T) {
	_, file := badSpecDir(t)
	o := newCLI(t).run("validate", file)
	if o.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", o.code, o.stdout)
	}
	wants := []struct {
		line, column float64
		field, msg   string
	}{
		{4, 5, "tools.build.comand", `unknown field "comand"`},
		{4, 5, "tools.build.command", "missing required field"},
		{6, 38, "tools.build.outputParsers.errors.pattern", "missing closing )"},
	}
	problems := o.env.Data.(map[string]any)["problems"].([]any)
	if len(problems) != len(wants) {
		t.Fatalf("got %d problems, want %d: %v", len(problems), len(wants), problems)
	}
	for i, w := range wants {
		p := problems[i].(map[string]any)
		if p["file"] != file || p["line"] != w.line || p["column"] != w.column || p["field"] != w.field ||
			!strings.Contains(p["message"].(string), w.msg) {
			t.Errorf("problem %d = %v, want %s:%v:%v %s: %s", i, p, file, w.line, w.column, w.field, w.msg)
		}
	}

	c := newCLI(t)
	c.json = false
	o = c.run("validate", file)
	for _, w := range wants {
		if want := fmt.Sprintf("%s:%v:%v: %s: ", file, w.line, w.column, w.field); o.code != 2 || !strings.Contains(o.stdout, want) {
			t.Errorf("text output lacks %q (exit %d):\n%s", want, o.code, o.stdout)
		}
	}
}

func TestSkippedSpecsAreWarnings(t *testing.T) {
	dir, file := badSpecDir(t)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"run", []string{"run", "demo.check", "path=src/good.txt"}, 0},
		{"run a tool of the skipped spec", []string{"run", "broken.build"}, 3},
		{"tools list", []string{"tools", "list"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--languages", dir}, tt.args...)
			o := newCLI(t).run(args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", o.code, tt.code, o.stdout, o.stderr)
			}
			var got []string
			for _, w := range o.env.Warnings {
				got = append(got, w.Message)
				if w.Code != specSkipped || w.File != file || w.Line == 0 || w.Column == 0 {
					t.Errorf("warning %+v: want code, file, line and column", w)
				}
			}
			if len(got) != 3 || !strings.HasPrefix(got[0], file+":4:5: tools.build.comand: unknown field") {
				t.Errorf("warnings = %q", got)
			}

			c := newCLI(t)
			c.json = false
			o = c.run(args...)
			if want := "warning: skipped " + file + ": 3 problems\n  " + file + ":4:5: "; o.code != tt.code || !strings.Contains(o.stderr, want) ||
				!strings.Contains(o.stderr, "\n  "+file+":6:38: ") {
				t.Errorf("text mode: exit %d, stderr lacks %q and line 6:\n%s", o.code, want, o.stderr)
			}
		})
	}
}

func TestMCPWarnsAboutSkippedSpecs(t *testing.T) {
	f := newMCPFixture(t)
	write(t, filepath.Join(f.specs, "broken.yaml"), threeProblems)
	cs, stderr := startStdio(t, f, nil)
	// The protocol on stdout is intact: the good specs are served.
	if tools := listTools(t, cs); tools["mcptest_echo"] == nil {
		t.Errorf("tools = %v", tools)
	}
	file := filepath.Join(f.specs, "broken.yaml")
	if want := "warning: skipped " + file + ": 3 problems\n  " + file + ":4:5: tools.build.comand: "; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// TestCancelledLoad: a signal that arrives while the specs load (the
// command's context is cancelled) stops the command with exit 130.
func TestCancelledLoad(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{{"tools", "list"}, {"validate"}, {"run", "demo.check"}} {
		var out, errOut bytes.Buffer
		f := &factory{
			io:  &ioStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
			env: func(string) (string, bool) { return "", false },
		}
		full := append([]string{"--workspace", "testdata/ws", "--languages", "testdata/specs", "--format", "json"}, args...)
		if code := execute(ctx, f, full); code != 130 || !strings.Contains(out.String(), `"canceled"`) {
			t.Errorf("%v: exit %d, want 130\n%s%s", args, code, out.String(), errOut.String())
		}
	}
}
