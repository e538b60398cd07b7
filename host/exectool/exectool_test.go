package exectool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const demoSpec = `language: {id: demo}
tools:
  build:
    command: sh
    args: ["-c", "echo \"$@\"; echo 'main.c:3:5: error: boom' >&2; exit 1", "build"]
    pathArg: -1
    outputParsers:
      diagnostics:
        type: diagnostics
        pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning): (?P<message>.*)$'
      errors: {type: lineMatch, pattern: ": error: "}
  args:
    command: sh
    args: ["-c", "printf '%s|' \"$@\"", "argv", "first", "second"]
    projectArg: 4
    pathArg: -1
    configArg: ["--configuration"]
    inputs:
      run: {type: string, flag: "-run"}
      tags: {type: array, flag: "--tag="}
      verbose: {type: boolean, flag: "-v"}
      count: {type: integer, arg: 4}
      path: {required: true}
  fallback:
    command: langhost-missing-tool
    args: [x]
    fallback: {command: sh, args: ["-c", "echo fallback ran"]}
  noFallbackOnFailure:
    command: "false"
    fallback: {command: sh, args: ["-c", "echo fallback ran"]}
  missing:
    command: langhost-missing-tool
    install: pkg:npm/langhost-missing-tool@1.0.0
  format:
    command: "true"
    requiresConfirmation: true
  codes:
    command: sh
    args: ["-c", "exit 2"]
    successCodes: [0, 2]
  env:
    command: sh
    args: ["-c", "echo \"$NO_COLOR|$GREETING\""]
    env: {GREETING: hello}
  colour:
    command: sh
    args: ["-c", "echo \"$NO_COLOR\""]
    env: {NO_COLOR: ""}
`

func newRegistry(t *testing.T) (*registry.Registry, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	set := spec.Load([]spec.Source{{Name: "test", FS: fstest.MapFS{"demo.yaml": {Data: []byte(demoSpec)}}}})
	if len(set.Problems) > 0 {
		t.Fatalf("spec problems: %v", set.Problems[0])
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, set, Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	return reg, ws.Dir()
}

func TestCallParsesDiagnostics(t *testing.T) {
	reg, _ := newRegistry(t)
	res, err := reg.Call(context.Background(), "demo.build", registry.Call{WorkspaceCode: true, Input: map[string]any{"path": "src"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.ExitCode != 1 {
		t.Errorf("ok=%v exit=%d, want a failed run with exit 1", res.OK, res.ExitCode)
	}
	if res.Stdout != "./src\n" {
		t.Errorf("path passed as %q, want ./src relative to the workspace", res.Stdout)
	}
	if len(res.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %+v", res.Diagnostics)
	}
	d := res.Diagnostics[0]
	if d.Path != "main.c" || d.Line != 3 || d.Column != 5 || d.Severity != "error" || d.Message != "boom" {
		t.Errorf("diagnostic = %+v", d)
	}
	if got := res.Outputs["errors"].(map[string]any)["count"]; got != 1 {
		t.Errorf("errors count = %v", got)
	}
}

func TestCallBuildsArgv(t *testing.T) {
	reg, _ := newRegistry(t)
	tests := []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"path": "src"}, "first|second|./src|"},
		{map[string]any{"path": "src", "project": "src/app.proj", "configuration": "Release", "run": "TestX",
			"tags": []any{"a", "b"}, "verbose": true, "count": 3.0},
			"first|./src/app.proj|3|second|--configuration|Release|-run|TestX|--tag=a|--tag=b|-v|./src|"},
		{map[string]any{"path": "src", "verbose": false}, "first|second|./src|"},
		{map[string]any{"path": "src", "workdir": "src"}, "first|second|.|"},
	}
	for _, tt := range tests {
		res, err := reg.Call(context.Background(), "demo.args", registry.Call{WorkspaceCode: true, Input: tt.input})
		if err != nil {
			t.Errorf("input %v: %v", tt.input, err)
			continue
		}
		if res.Stdout != tt.want {
			t.Errorf("input %v: argv %q, want %q", tt.input, res.Stdout, tt.want)
		}
	}
}

func TestCallEnvironment(t *testing.T) {
	reg, _ := newRegistry(t)
	tests := []struct{ id, want string }{
		{"demo.env", "1|hello\n"}, // NO_COLOR by default, plus the spec's env
		{"demo.colour", "\n"},     // a spec's own NO_COLOR wins
	}
	for _, tt := range tests {
		res, err := reg.Call(context.Background(), tt.id, registry.Call{})
		if err != nil {
			t.Fatalf("%s: %v", tt.id, err)
		}
		if res.Stdout != tt.want {
			t.Errorf("%s: stdout %q, want %q", tt.id, res.Stdout, tt.want)
		}
	}
}

func TestCallRejectsBadInput(t *testing.T) {
	reg, root := newRegistry(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id    string
		input map[string]any
		code  failure.Code
		field string
	}{
		{"demo.args", map[string]any{}, failure.InvalidInput, "path"},                                 // required
		{"demo.args", map[string]any{"path": "src", "count": "three"}, failure.InvalidInput, "count"}, // wrong type
		{"demo.args", map[string]any{"path": "src", "bogus": 1}, failure.InvalidInput, "bogus"},       // unknown key
		{"demo.args", map[string]any{"path": "../etc"}, failure.Precondition, "path"},
		{"demo.args", map[string]any{"path": "/etc"}, failure.Precondition, "path"},
		{"demo.args", map[string]any{"path": "link/x"}, failure.Precondition, "path"},
		{"demo.args", map[string]any{"path": "src", "workdir": ".."}, failure.Precondition, "workdir"},
		{"demo.nope", map[string]any{}, failure.NotFound, ""},
		{"demo.format", map[string]any{}, failure.Precondition, ""}, // needs confirmation
	}
	for _, tt := range tests {
		_, err := reg.Call(context.Background(), tt.id, registry.Call{WorkspaceCode: true, Input: tt.input})
		if failure.CodeOf(err) != tt.code {
			t.Errorf("%s %v: err = %v, want %s", tt.id, tt.input, err, tt.code)
			continue
		}
		var fe *failure.Error
		if tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field) {
			t.Errorf("%s %v: error %v does not name key %q", tt.id, tt.input, err, tt.field)
		}
	}
}

func TestFallbackOnlyWhenMissing(t *testing.T) {
	reg, _ := newRegistry(t)
	res, err := reg.Call(context.Background(), "demo.fallback", registry.Call{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.UsedFallback || res.Stdout != "fallback ran\n" {
		t.Errorf("fallback not used for a missing executable: %+v", res)
	}
	res, err = reg.Call(context.Background(), "demo.noFallbackOnFailure", registry.Call{})
	if err != nil {
		t.Fatal(err)
	}
	if res.UsedFallback || res.OK || res.ExitCode != 1 {
		t.Errorf("a failing primary must not be masked by its fallback: %+v", res)
	}
	_, err = reg.Call(context.Background(), "demo.missing", registry.Call{})
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Code != failure.Precondition || fe.Details["install"] != "pkg:npm/langhost-missing-tool@1.0.0" {
		t.Errorf("missing executable: err = %#v", err)
	}
}

func TestConfirmedAndSuccessCodes(t *testing.T) {
	reg, _ := newRegistry(t)
	res, err := reg.Call(context.Background(), "demo.format", registry.Call{WorkspaceCode: true, Confirmed: true})
	if err != nil || !res.OK {
		t.Errorf("confirmed format: %v %+v", err, res)
	}
	res, err = reg.Call(context.Background(), "demo.codes", registry.Call{})
	if err != nil || !res.OK || res.ExitCode != 2 {
		t.Errorf("exit 2 is a success code: %v %+v", err, res)
	}
}

func TestInputSchema(t *testing.T) {
	reg, _ := newRegistry(t)
	tool, _ := reg.Tool("demo.args")
	var names []string
	for name := range tool.InputSchema.Properties {
		names = append(names, name)
	}
	want := []string{"configuration", "count", "path", "project", "run", "tags", "verbose", "workdir"}
	if !sameSet(names, want) {
		t.Errorf("properties = %v, want %v", names, want)
	}
	if !reflect.DeepEqual(tool.InputSchema.Required, []string{"path"}) {
		t.Errorf("required = %v", tool.InputSchema.Required)
	}
	if tool.InputSchema.Properties["count"].Type != "integer" || tool.InputSchema.Properties["tags"].Type != "array" {
		t.Errorf("types wrong: %+v", tool.InputSchema.Properties)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, s := range a {
		seen[s] = true
	}
	for _, s := range b {
		if !seen[s] {
			return false
		}
	}
	return true
}
