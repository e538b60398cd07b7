package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// files writes a workspace of empty files (and a directory for a name
// ending in /) and returns its root.
func files(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, name := range names {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// A root Makefile beside go.mod and Go sources (cli/cli) makes a Go
// project, not a C one; `languages --detected` says why, on stdout only.
func TestLanguagesDetected(t *testing.T) {
	c := newCLI(t)
	c.ws = files(t, "Makefile", "go.mod", "main.go", "pkg/cmd/a.go", "pkg/cmd/b.go")
	o := c.run("languages", "--detected")
	if o.code != 0 || o.stderr != "" {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	var res struct {
		Languages []struct {
			ID      string
			Files   int
			Project bool
			Reasons []string
		}
		Ignored []struct {
			ID      string
			Reasons []string
		}
	}
	b, _ := json.Marshal(o.env.Data)
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Languages) != 1 || res.Languages[0].ID != "go" || res.Languages[0].Files != 3 || !res.Languages[0].Project {
		t.Errorf("languages %+v", res.Languages)
	}
	if len(res.Ignored) != 1 || res.Ignored[0].ID != "c" || !strings.Contains(strings.Join(res.Ignored[0].Reasons, ""), "Makefile is a project file, but") {
		t.Errorf("ignored %+v", res.Ignored)
	}

	c.json = false
	o = c.run("languages", "--detected")
	if o.code != 0 || o.stderr != "" || !strings.Contains(o.stdout, "3 files with extension .go") ||
		!strings.Contains(o.stdout, "ignored") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", o.code, o.stderr, o.stdout)
	}
}

// closedURL is an http URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/v1"
}

// The default provider, Ollama, not running: exit 4 (precondition) with
// how to start it and which hosted providers and variables to use instead,
// not a bare "connection refused", exit 1.
func TestAgentOllamaNotRunning(t *testing.T) {
	withoutGopls(t)
	c := newCLI(t)
	c.ws = agentWorkspace(t)
	o := c.run("agent", "run", "--provider", "ollama", "--base-url", closedURL(t), "--model", "qwen3", "--yes", "fix the tests")
	if o.code != 4 {
		t.Fatalf("exit %d, want 4\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	all := o.stdout + o.stderr
	for _, want := range []string{"ollama serve", "--provider openai", "OPENAI_API_KEY", "--provider anthropic", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(all, want) {
			t.Errorf("the error does not say %q:\n%s", want, all)
		}
	}
}

// prereqs: the text table carries commands, not package URLs; --check
// ends with one "missing — run these" list; -o reports this machine's
// count, not 0 of N.
func TestPrereqsMissingList(t *testing.T) {
	c := newCLI(t)
	c.json = false
	o := c.run("prereqs", "demo", "--check")
	if o.code != 4 || !strings.Contains(o.stdout, "\nmissing — run these:\n  apt-get install langhost-no-such-binary\n") ||
		strings.Contains(o.stdout, "pkg:") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	c.json = true
	o = c.run("prereqs", "demo", "-o", filepath.Join(t.TempDir(), "P.md"))
	d, _ := o.env.Data.(map[string]any)
	if o.code != 0 || d["available"] != 5.0 || d["total"] != 6.0 {
		t.Errorf("-o: exit %d, data %v", o.code, d)
	}
}

// The shipped C spec: clangd comes from Debian's clangd package (clangd-14
// installs only clangd-14), and clangd-14 is its fallback.
func TestPrereqsClangdFallback(t *testing.T) {
	c := newCLI(t)
	c.format = "markdown"
	o := c.run("prereqs", "c")
	if !strings.Contains(o.stdout, "`pkg:deb/debian/clangd`: `apt-get install clangd`") ||
		!strings.Contains(o.stdout, "`pkg:deb/debian/clangd-14`: `apt-get install clangd-14`") ||
		strings.Contains(o.stdout, "apt-get install clangd-14=") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// binRun runs the real binary in dir with an isolated user config and no
// daemon, and returns its exit code, stdout and stderr.
func binRun(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(langhostBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
	cmd.Env = append(cmd.Env, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// goModule writes a Go module with the given files.
func goModule(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, data := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, data)
	}
	return ws
}

// One exit code rule for every tool: a check that lists files it would
// change, and a diagnostics call that reports errors, exit 1; clean, 0.
func TestExitCodeRule(t *testing.T) {
	requireGopls(t)
	ws := goModule(t, map[string]string{"main.go": "package main\nfunc main() {  }\n", "ok/ok.go": "package ok\n"})
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unformatted files listed", []string{"run", "go.fmt_check"}, 1, "1 files would change: main.go"},
		{"formatted", []string{"run", "go.fmt_check", "path=ok"}, 0, ""},
		{"diagnostics without errors", []string{"run", "go.diagnostics", "file=ok/ok.go"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := binRun(t, ws, nil, append(tt.args, "--format", "json")...)
			if code != tt.code || !strings.Contains(stdout, tt.msg) {
				t.Errorf("exit %d, want %d with %q\n%s%s", code, tt.code, tt.msg, stdout, stderr)
			}
		})
	}
	// One verdict per call: the text status line agrees with the error and
	// the exit code (it said "ok (exit code 0)" beside "error: 1 files
	// would change"; issue 25 item 13).
	code, stdout, stderr := binRun(t, ws, nil, "run", "go.fmt_check", "--format", "text")
	if code != 1 || strings.Contains(stdout, "ok (exit code") || !strings.Contains(stdout, "failed (exit code 0") ||
		!strings.Contains(stderr, "error: go.fmt_check: 1 files would change: main.go") {
		t.Errorf("go.fmt_check in text: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	write(t, filepath.Join(ws, "ok", "bad.go"), "package ok\n\nvar X int = \"no\"\n")
	code, stdout, stderr = binRun(t, ws, nil, "run", "go.diagnostics", "file=ok/bad.go", "--format", "json")
	if code != 1 || !strings.Contains(stdout, "reported 1 errors") {
		t.Errorf("diagnostics with an error: exit %d\n%s%s", code, stdout, stderr)
	}
}

// Started in a subdirectory, langhost finds the module root, as gopls and
// git do; --workspace still wins.
func TestWorkspaceFoundUpward(t *testing.T) {
	ws := goModule(t, map[string]string{"pkg/a/a.go": "package a\n", "main.go": "package main\n\nfunc main() {}\n"})
	sub := filepath.Join(ws, "pkg", "a")
	code, stdout, stderr := binRun(t, sub, nil, "run", "go.fmt_check", "path=main.go", "--format", "json")
	if code != 0 || strings.Contains(stdout+stderr, "outside the workspace") {
		t.Errorf("from a subdirectory: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = binRun(t, sub, nil, "run", "go.fmt_check", "path=main.go", "--workspace", ".", "--format", "json")
	if code == 0 {
		t.Errorf("--workspace . did not win: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = binRun(t, sub, nil, "config", "show", "--format", "json")
	if code != 0 || !strings.Contains(stdout, "found upward (go.mod)") {
		t.Errorf("config show does not say where the workspace came from:\n%s", stdout)
	}
}

// Tables fit the terminal: wide columns wrap at spaces, nothing is cut.
func TestTableFitsWidth(t *testing.T) {
	desc := "List Go files whose formatting differs from gofmt's (changes nothing). A second sentence that is long too."
	rows := [][]string{{"ID", "DESCRIPTION"}, {"go.fmt_check", desc}, {"go.vet", "Report suspicious constructs"}}
	for _, width := range []int{40, 60, 200} {
		var b bytes.Buffer
		if err := (style{width: width}).table(&b, rows, nil); err != nil {
			t.Fatal(err)
		}
		var words []string
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if n := len([]rune(line)); n > width {
				t.Errorf("width %d: a %d-column line: %q", width, n, line)
			}
			if strings.HasSuffix(line, " ") {
				t.Errorf("width %d: trailing blanks: %q", width, line)
			}
			words = append(words, strings.Fields(line)...)
		}
		if got := strings.Join(words, " "); !strings.Contains(got, desc) {
			t.Errorf("width %d: the description is not whole:\n%s", width, b.String())
		}
	}
}

// Text output a newcomer reads: each diagnostic once (not again among the
// tool's raw error lines), and "did you mean" ranks the abbreviated input
// first (pkgs -> packages, not tags).
func TestTextOutputFirstHour(t *testing.T) {
	ws := goModule(t, map[string]string{"main.go": "package main\n\nfunc main() { var x int = \"s\" }\n"})
	code, stdout, stderr := binRun(t, ws, nil, "run", "go.build", "--format", "text")
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, msg := range []string{"declared and not used: x", "cannot use \"s\""} {
		if n := strings.Count(stdout, msg); n != 1 {
			t.Errorf("%q printed %d times:\n%s", msg, n, stdout)
		}
	}
	code, stdout, stderr = binRun(t, ws, nil, "run", "go.build", "pkgs=./...", "--format", "text")
	if code != 2 || !strings.Contains(stdout+stderr, "did you mean packages") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
