package exectool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// injectSpec wraps the real go command and gcc the ways a spec can put an
// input into argv. Each tool is read-only in spirit; an input that became
// an option would run ./x.sh through go's -toolexec or make gcc write a
// file, both of which leave the marker file behind.
const injectSpec = `language: {id: inject}
tools:
  argN:
    command: go
    args: ["vet", "./..."]
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
    inputs:
      pkg: {type: string, arg: 1}
  array:
    command: go
    args: ["vet"]
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
    inputs:
      pkgs: {type: array, arg: -1}
  flag:
    # A flag that takes no value (go's -x) leaves its "value" to be parsed
    # as the next option.
    command: go
    args: ["vet"]
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
    inputs:
      trace: {type: string, flag: "-x"}
  number:
    command: go
    args: ["vet"]
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
    inputs:
      n: {type: integer, arg: -1}
  config:
    command: go
    args: ["vet"]
    configArg: ["-x"]
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
  project:
    command: go
    args: ["vet"]
    projectArg: -1
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
  path:
    command: go
    args: ["vet"]
    pathArg: 1
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
  script:
    command: go
    args: ["run"]
    scriptArg: -1
    env: {GOTOOLCHAIN: local, GOFLAGS: ""}
  responseFile:
    command: gcc
    args: ["-E"]
    inputs:
      source: {type: string, arg: -1}
`

// argvFixture is a workspace holding a Go module, the ./x.sh that go's
// -toolexec would run, and a gcc response file that writes the marker.
func argvFixture(t *testing.T) (root, marker string) {
	t.Helper()
	root = t.TempDir()
	marker = filepath.Join(root, "MARKER")
	files := map[string]string{
		"go.mod":  "module example.com/inject\n\ngo 1.21\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
		"x.sh":    "#!/bin/sh\ntouch \"" + marker + "\"\nexec \"$@\"\n",
		"c/a.c":   "int main(void) { return 0; }\n", // not in the Go package
		"opts":    "-x c ./c/a.c -o ./MARKER\n",
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, marker
}

// argvRegistry registers the shipped go spec and injectSpec.
func argvRegistry(t *testing.T, root string) *registry.Registry {
	t.Helper()
	set := spec.Load([]spec.Source{
		{Name: "embedded", FS: languages.FS, Files: []string{"go.yaml"}},
		{Name: "test", FS: fstest.MapFS{"inject.yaml": {Data: []byte(injectSpec)}}},
	})
	if len(set.Problems) > 0 {
		t.Fatalf("spec problems: %v", set.Problems)
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, set, Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestOptionInjectionRefused feeds option-like values through every way an
// input reaches argv. Each would have run ./x.sh or written the marker on
// the code before values were checked; now each is refused as invalid
// input naming the key, before anything runs.
func TestOptionInjectionRefused(t *testing.T) {
	for _, tool := range []string{"go", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: %v", tool, err)
		}
	}
	root, marker := argvFixture(t)
	reg := argvRegistry(t, root)

	tests := []struct {
		name  string
		id    string
		input map[string]any
		key   string
		value string
	}{
		{"go.vet packages (arg -1)", "go.vet", map[string]any{"packages": "-toolexec=./x.sh"}, "packages", "-toolexec=./x.sh"},
		{"go.build packages", "go.build", map[string]any{"packages": "-toolexec=./x.sh"}, "packages", "-toolexec=./x.sh"},
		{"go.lint packages", "go.lint", map[string]any{"packages": "-debug.cpuprofile=./MARKER"}, "packages", "-debug.cpuprofile=./MARKER"},
		{"go.run package", "go.run", map[string]any{"package": "-toolexec=./x.sh"}, "package", "-toolexec=./x.sh"},
		{"go.test count (negative number)", "go.test", map[string]any{"count": -1.0}, "count", "-1"},
		{"arg: N inside args", "inject.argN", map[string]any{"pkg": "-toolexec=./x.sh"}, "pkg", "-toolexec=./x.sh"},
		{"array element", "inject.array", map[string]any{"pkgs": []any{".", "-toolexec=./x.sh"}}, "pkgs", "-toolexec=./x.sh"},
		{"array first element", "inject.array", map[string]any{"pkgs": []any{"-toolexec=./x.sh", "."}}, "pkgs", "-toolexec=./x.sh"},
		{"flag value", "inject.flag", map[string]any{"trace": "-toolexec=./x.sh"}, "trace", "-toolexec=./x.sh"},
		{"configArg", "inject.config", map[string]any{"configuration": "-toolexec=./x.sh"}, "configuration", "-toolexec=./x.sh"},
		{"positional number", "inject.number", map[string]any{"n": -5.0}, "n", "-5"},
		{"response file", "inject.responseFile", map[string]any{"source": "@opts"}, "source", "@opts"},
		{"NUL byte", "inject.argN", map[string]any{"pkg": "./...\x00-toolexec=./x.sh"}, "pkg", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Call(context.Background(), tt.id, registry.Call{WorkspaceCode: true, Input: tt.input})
			if _, statErr := os.Stat(marker); statErr == nil {
				os.Remove(marker)
				t.Fatalf("the value became an option: the marker was written (result %+v, err %v)", res, err)
			}
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != tt.key {
				t.Fatalf("err = %v (result %+v), want invalid_input naming %q", err, res, tt.key)
			}
			if res != nil {
				t.Errorf("something ran: %+v", res)
			}
			if failure.CodeOf(err).ExitCode() != 2 {
				t.Errorf("exit code %d, want 2", failure.CodeOf(err).ExitCode())
			}
			if !strings.HasPrefix(err.Error(), tt.key+": ") || !strings.Contains(err.Error(), "nothing was run") {
				t.Errorf("message %q does not name key %q and say nothing ran", err, tt.key)
			}
			if tt.value != "" && !strings.Contains(err.Error(), tt.value) {
				t.Errorf("message %q does not quote the value %q", err, tt.value)
			}
		})
	}
}

// TestOptionLikeValuesThatAreSafe checks the placements where a value
// starting with "-" cannot become an option: it reaches the tool as data,
// and the tool runs, without running ./x.sh.
func TestOptionLikeValuesThatAreSafe(t *testing.T) {
	root, marker := argvFixture(t)
	reg := argvRegistry(t, root)

	tests := []struct {
		name     string
		id       string
		input    map[string]any
		wantArgv []string // a run of elements that must appear in argv
		stdout   string   // substring of the tool's stdout
	}{
		// -run always takes the next argument (allowDash in go.yaml).
		{"flag with allowDash", "go.test", map[string]any{"packages": ".", "run": "-toolexec=./x.sh"},
			[]string{"-run", "-toolexec=./x.sh", "."}, "example.com/inject"},
		// A value joined to "-tags=" is never an option.
		{"joined flag", "go.build", map[string]any{"tags": "-toolexec=./x.sh"},
			[]string{"-tags=-toolexec=./x.sh", "--", "./..."}, ""},
		// Program arguments after go run's "--" and package.
		{"positional after --", "go.run", map[string]any{"args": []any{"-toolexec=./x.sh", "@opts"}},
			[]string{"--", ".", "-toolexec=./x.sh", "@opts"}, "hello"},
		// Paths are passed as ./relative and never look like options.
		{"projectArg", "inject.project", map[string]any{"project": "-toolexec=x.sh"},
			[]string{"vet", "./-toolexec=x.sh"}, ""},
		{"pathArg", "inject.path", map[string]any{"path": "-toolexec=x.sh"},
			[]string{"vet", "./-toolexec=x.sh"}, ""},
		{"scriptArg", "inject.script", map[string]any{"script": "-toolexec=x.sh"},
			[]string{"run", "./-toolexec=x.sh"}, ""},
		{"go.fmt_check path", "go.fmt_check", map[string]any{"path": "-l"},
			[]string{"-l", "--", "./-l"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Call(context.Background(), tt.id, registry.Call{WorkspaceCode: true, Input: tt.input})
			if _, statErr := os.Stat(marker); statErr == nil {
				os.Remove(marker)
				t.Fatalf("the value became an option: the marker was written")
			}
			if res == nil {
				t.Fatalf("nothing ran: %v", err)
			}
			if !containsRun(res.Command[1:], tt.wantArgv) {
				t.Errorf("argv %q lacks %q", res.Command, tt.wantArgv)
			}
			if !strings.Contains(res.Stdout, tt.stdout) {
				t.Errorf("stdout %q lacks %q (stderr %q)", res.Stdout, tt.stdout, res.Stderr)
			}
		})
	}
}

func containsRun(argv, run []string) bool {
	for i := 0; i+len(run) <= len(argv); i++ {
		if slices.Equal(argv[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// TestOptionLikeDefaultRefused covers a spec that escaped validation (built
// in code): its default is checked like any input.
func TestOptionLikeDefaultRefused(t *testing.T) {
	root, marker := argvFixture(t)
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	tool := New("inject", &spec.Tool{ID: "inject.default", Command: "go", Args: []string{"vet"},
		Inputs:     map[string]*spec.Input{"pkg": {Type: "string", Arg: &last, Default: "-toolexec=./x.sh"}},
		InputOrder: []string{"pkg"}}, Options{Workspace: ws})
	res, err := tool.Call(context.Background(), registry.Call{WorkspaceCode: true, Input: map[string]any{}})
	if _, statErr := os.Stat(marker); statErr == nil {
		t.Fatal("the default became an option: the marker was written")
	}
	if res != nil || failure.CodeOf(err) != failure.InvalidInput || !strings.HasPrefix(err.Error(), "pkg: ") {
		t.Errorf("res %+v, err %v; want invalid_input naming pkg", res, err)
	}
}
