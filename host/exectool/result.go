package exectool

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/parsers"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// Output names with a meaning beyond the parser that fills them: they
// become the result's test outcome and the files a check would change.
const (
	// OutputTests holds test counts: a gotest parser, or a regex with
	// groups among passed, failed, errors, skipped and total (passed is
	// total less the others when the tool prints no passed count).
	// Outputs named passed, failed, errors and skipped (a regex with that
	// group, or a lineMatch counting lines) give the counts it lacks.
	OutputTests = "tests"
	// OutputFailures lists failed tests: a regex with mode all and groups
	// among name, file, line and message. Outputs whose names start with
	// it (failuresGradle) add theirs, for a tool and its fallback.
	OutputFailures = "failures"
	// OutputFiles lists files a check would change: a lineMatch (each
	// line a path), a regex with mode all and a group path, or a json
	// parser selecting paths.
	OutputFiles = "files"
)

// Shape puts a run's parsed output into the one result model: every
// diagnostic path workspace-relative (to root) with "/" separators,
// sorted without duplicates, counted; tests and changed files from the
// outputs that give them, and OK false when they report a failure. dir is the directory the tool ran in: tools
// print paths relative to it.
func Shape(res *registry.Result, root, dir string) {
	for i := range res.Diagnostics {
		res.Diagnostics[i].Path = workspacePath(root, dir, res.Diagnostics[i].Path)
	}
	res.Diagnostics = diagnostic.Normalize(res.Diagnostics)
	res.Counts = diagnostic.Count(res.Diagnostics)
	if reportsTests(res.Outputs) {
		res.Tests = tests(res.Outputs)
		for i := range res.Tests.Failures {
			f := &res.Tests.Failures[i]
			f.File = workspacePath(root, dir, f.File)
			if f.File == "" {
				locateFailure(f, res.Diagnostics)
			}
		}
	}
	if v, ok := res.Outputs[OutputFiles]; ok {
		res.Files = files(v, root, dir)
	}
	// One verdict per run: a check that lists files it would change, or a
	// runner that reports failed tests, failed whatever its exit code.
	if len(res.Files) > 0 || res.Tests != nil && res.Tests.Failed > 0 {
		res.OK = false
	}
	// What the result now holds in its own shape is not repeated, in the
	// tool's own paths, among the outputs.
	for name, v := range res.Outputs {
		switch v.(type) {
		case []diagnostic.Diagnostic, parsers.TestReport:
			delete(res.Outputs, name)
		}
	}
	if res.Tests != nil {
		for _, name := range failureOutputs(res.Outputs) {
			delete(res.Outputs, name)
		}
	}
	delete(res.Outputs, OutputFiles)
}

var windowsDrive = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z]:[\\/]`) })

// workspacePath turns a path as a tool printed it (relative to dir,
// "./x", absolute, or with Windows separators) into a workspace path.
func workspacePath(root, dir, p string) string {
	if p == "" {
		return ""
	}
	if filepath.Separator == '/' && strings.Contains(p, `\`) {
		if windowsDrive().MatchString(p) {
			// A Windows absolute path cannot be inside a Unix workspace.
			return strings.ReplaceAll(p, `\`, "/")
		}
		p = strings.ReplaceAll(p, `\`, "/")
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, filepath.FromSlash(p))
	}
	return diagnostic.RelPath(root, p)
}

// locateFailure gives a failed test without a place the place of the
// diagnostic that names it: runners such as dotnet test print the name and
// the failing line apart (a multi-line errorformat joins them into one
// diagnostic whose message is the test's name).
func locateFailure(f *parsers.TestFailure, diags []diagnostic.Diagnostic) {
	for _, d := range diags {
		if d.Path != "" && d.Line > 0 && d.Message == f.Name {
			f.File, f.Line = d.Path, d.Line
			return
		}
	}
}

// failureOutputs names the outputs that list failed tests, sorted.
func failureOutputs(outputs map[string]any) []string {
	var names []string
	for name := range outputs {
		if strings.HasPrefix(name, OutputFailures) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// reportsTests reports whether a tool's outputs include test counts.
func reportsTests(outputs map[string]any) bool {
	for _, name := range []string{OutputTests, "passed", "failed"} {
		if _, ok := outputs[name]; ok {
			return true
		}
	}
	return false
}

// tests builds the test outcome from the outputs that give it.
func tests(outputs map[string]any) *parsers.TestReport {
	if r, ok := outputs[OutputTests].(parsers.TestReport); ok {
		r.Failures = slices.Clone(r.Failures)
		return &r
	}
	n := func(name string) int {
		// A regex that did not match has its groups, with null values.
		if m, ok := outputs[OutputTests].(map[string]any); ok && m[name] != nil {
			return count(m[name])
		}
		switch m := outputs[name].(type) {
		case map[string]any:
			if _, ok := m[name]; ok { // regex group
				return count(m[name])
			}
			return count(m["count"]) // lineMatch
		}
		return 0
	}
	t := &parsers.TestReport{Passed: n("passed"), Failed: n("failed") + n("errors"), Skipped: n("skipped"), Failures: []parsers.TestFailure{}}
	if total := n("total"); t.Passed == 0 && total > t.Failed+t.Skipped {
		t.Passed = total - t.Failed - t.Skipped
	}
	var list []any
	for _, name := range failureOutputs(outputs) {
		l, _ := outputs[name].([]any)
		list = append(list, l...)
	}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		f := parsers.TestFailure{Name: text(m["name"]), File: text(m["file"]), Line: count(m["line"]), Message: text(m["message"])}
		if f.Name != "" || f.File != "" {
			t.Failures = append(t.Failures, f)
		}
	}
	if t.Failed < len(t.Failures) {
		t.Failed = len(t.Failures)
	}
	return t
}

// files lists the paths a check output names, workspace-relative,
// sorted and without duplicates; never nil.
func files(v any, root, dir string) []string {
	var raw []string
	switch v := v.(type) {
	case map[string]any: // lineMatch
		if lines, ok := v["lines"].([]string); ok {
			raw = lines
		}
	case []any: // regex with mode all, or json
		for _, e := range v {
			switch e := e.(type) {
			case map[string]any:
				raw = append(raw, text(e["path"]))
			case string:
				raw = append(raw, e)
			}
		}
	}
	out := []string{}
	for _, p := range raw {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, workspacePath(root, dir, p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// count reads a number a parser gave as a number or as captured text.
func count(v any) int {
	switch v := v.(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(strings.TrimSpace(v))
		return n
	}
	return 0
}
