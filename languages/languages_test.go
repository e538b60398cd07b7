package languages_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// newHost builds a host over workspace dir the way the CLI does.
func newHost(t *testing.T, dir string) *host.Host {
	t.Helper()
	env := func(key string) (string, bool) {
		if key == config.EnvName("workspace") {
			return dir, true
		}
		return "", false
	}
	cfg, err := config.Load(config.Paths{}, nil, env)
	if err != nil {
		t.Fatalf("config.Load: %v", err)
	}
	h, err := host.New(context.Background(), cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatalf("host.New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// fixture copies testdata/<name> into a fresh temporary directory, so that
// tools may write build artefacts or rewrite files.
func fixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", filepath.FromSlash(name))
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy fixture %s: %v", name, err)
	}
	return dst
}

// call runs a registered tool and fails the test if it could not run at
// all; a tool that ran and reported failure is a normal result.
func call(t *testing.T, h *host.Host, id string, input map[string]any) *registry.Result {
	t.Helper()
	if input == nil {
		input = map[string]any{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := h.Registry.Call(ctx, id, registry.Call{WorkspaceCode: true, Input: input, Confirmed: true})
	if err != nil {
		t.Fatalf("%s %v: %v", id, input, err)
	}
	return res
}

// diag is an expected diagnostic. Message is a substring; an empty Code or
// zero Column must be absent in the actual diagnostic too.
type diag struct {
	File     string
	Line     int
	Column   int
	Severity string
	Code     string
	Message  string
}

// wantDiagnostic fails unless diags holds one diagnostic matching want.
func wantDiagnostic(t *testing.T, diags []diagnostic.Diagnostic, want diag) {
	t.Helper()
	for _, d := range diags {
		if d.Path == want.File && d.Line == want.Line && d.Column == want.Column &&
			d.Severity == want.Severity && d.Code == want.Code && strings.Contains(d.Message, want.Message) {
			return
		}
	}
	t.Errorf("no diagnostic %+v among:\n%s", want, formatDiags(diags))
}

func formatDiags(diags []diagnostic.Diagnostic) string {
	if len(diags) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "  %s:%d:%d %s %s %q\n", d.Path, d.Line, d.Column, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// wantCounts checks named integer outputs. A name is either a lineMatch
// output ("passed" -> its count) or "output.group" for a regex group.
func wantCounts(t *testing.T, res *registry.Result, want map[string]int) {
	t.Helper()
	for name, n := range want {
		got, ok := countOf(res.Outputs, name)
		if !ok {
			t.Errorf("output %s missing or not a number in %v", name, res.Outputs)
			continue
		}
		if got != n {
			t.Errorf("output %s = %d, want %d (outputs %v)", name, got, n, res.Outputs)
		}
	}
}

func countOf(outputs map[string]any, name string) (int, bool) {
	output, group, grouped := strings.Cut(name, ".")
	v := outputs[output]
	m, ok := v.(map[string]any)
	if !ok {
		return 0, false
	}
	if grouped {
		return number(m[group])
	}
	return number(m["count"])
}

func number(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	}
	return 0, false
}

// wantOK checks the result's success flag and prints the output when it is
// not the expected one.
func wantOK(t *testing.T, res *registry.Result, ok bool) {
	t.Helper()
	if res.OK != ok {
		t.Errorf("%v: ok = %v (exit %d), want %v\nstdout:\n%s\nstderr:\n%s", res.Command, res.OK, res.ExitCode, ok, res.Stdout, res.Stderr)
	}
}

// shipped loads the embedded specs alone.
func shipped(t *testing.T) *spec.Set {
	t.Helper()
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded:languages"}})
	for _, p := range set.Problems {
		t.Errorf("shipped spec problem: %v", p)
	}
	return set
}

// toolSpec finds a shipped tool by id.
func toolSpec(t *testing.T, id string) *spec.Tool {
	t.Helper()
	lang, _, _ := strings.Cut(id, ".")
	f, ok := shipped(t).Language(lang)
	if !ok {
		t.Fatalf("no shipped language %q", lang)
	}
	for _, tool := range f.Tools {
		if tool.ID == id {
			return tool
		}
	}
	t.Fatalf("no tool %s in %s", id, f.Source)
	return nil
}

// sample runs a tool's output parsers over captured output of the real
// tool. It stands in for a real run where the tool cannot be installed on
// this machine.
func sample(t *testing.T, id, stdout, stderr string, exitCode int) *registry.Result {
	t.Helper()
	run := parsers.NewSet(toolSpec(t, id).Parsers).Start()
	for stream, text := range map[parsers.Stream]string{parsers.Stdout: stdout, parsers.Stderr: stderr} {
		w := run.Writer(stream)
		if _, err := w.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	outputs, diags, err := run.Finish(exitCode)
	if err != nil {
		t.Fatalf("%s: parse sample: %v", id, err)
	}
	res := &registry.Result{Outputs: outputs, Diagnostics: diags, ExitCode: exitCode}
	// The samples were captured in directories under /work.
	exectool.Shape(res, "/work", "/work")
	return res
}

// wantTests checks the result's test outcome: the counts and the names of
// the failed tests, in order.
func wantTests(t *testing.T, res *registry.Result, passed, failed, skipped int, failures ...string) {
	t.Helper()
	if res.Tests == nil {
		t.Errorf("no tests in the result (outputs %v)", res.Outputs)
		return
	}
	got := res.Tests
	if got.Passed != passed || got.Failed != failed || got.Skipped != skipped {
		t.Errorf("tests = passed %d, failed %d, skipped %d; want %d, %d, %d", got.Passed, got.Failed, got.Skipped, passed, failed, skipped)
	}
	var names []string
	for _, f := range got.Failures {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, failures) {
		t.Errorf("failures = %+v, want %q", got.Failures, failures)
	}
}

// wantFiles checks the files a check reports it would change.
func wantFiles(t *testing.T, res *registry.Result, files ...string) {
	t.Helper()
	if res.Files == nil || !slices.Equal(res.Files, append([]string{}, files...)) {
		t.Errorf("files = %#v, want %q", res.Files, files)
	}
}

func TestMain(m *testing.M) { builtintest.Main(m) }
