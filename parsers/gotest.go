package parsers

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// TestReport is the value of a gotest parser, and the shape every test
// tool's outcome takes: counts and the tests that failed.
type TestReport struct {
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Failures []TestFailure `json:"failures"`
}

// TestFailure is one failed test, with where it failed when the output
// says.
type TestFailure struct {
	Name    string `json:"name"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message,omitempty"`
}

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Action      string
	Package     string
	ImportPath  string // build-output events
	Test        string
	Output      string
	FailedBuild string
}

// maxTrackedTests bounds the tests whose first failure location is kept
// while they run: a run may have millions of (sub)tests.
const maxTrackedTests = 10000

var (
	actionOutput = []byte(`"Action":"output"`)
	actionRun    = []byte(`"Action":"run"`)
	actionStart  = []byte(`"Action":"start"`)

	// testLogLine is an indented t.Error/t.Log line: "    x_test.go:12: text".
	testLogLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s+(\S+?\.go):(\d+): (.*)$`) })
	// buildErrorLine is a compiler error: "./x.go:3:5: text".
	buildErrorLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+?\.go):(\d+)(?::(\d+))?: (.*)$`) })
)

// gotestSink reads test2json events. Lines that are not events (a plain
// text line, a truncated line) are ignored.
type gotestSink struct {
	max    int
	report TestReport
	diags  diagnosticList
	// where holds the first log line of each running test, by package
	// and name.
	where map[[2]string]TestFailure
	// failedPkgs counts test failures per package, to tell a package
	// that failed with no failing test (build error, panic in init).
	failedPkgs map[string]int
}

func newGotestSink(max int) *gotestSink {
	return &gotestSink{max: max, diags: diagnosticList{max: max},
		where: map[[2]string]TestFailure{}, failedPkgs: map[string]int{},
		report: TestReport{Failures: []TestFailure{}}}
}

func (s *gotestSink) line(line []byte) {
	if len(line) == 0 || line[0] != '{' {
		return
	}
	// Most events are output without a file:line or the start of a test;
	// test2json writes compact JSON, so they are skipped undecoded.
	if bytes.Contains(line, actionOutput) && !bytes.Contains(line, []byte(".go:")) ||
		bytes.Contains(line, actionRun) || bytes.Contains(line, actionStart) {
		return
	}
	var ev testEvent
	if json.Unmarshal(line, &ev) != nil {
		return
	}
	key := [2]string{ev.Package, ev.Test}
	switch ev.Action {
	case "build-output":
		s.buildOutput(ev.Output)
	case "output":
		if ev.Test == "" {
			return
		}
		if _, seen := s.where[key]; seen || len(s.where) >= maxTrackedTests {
			return
		}
		if m := testLogLine().FindStringSubmatch(strings.TrimRight(ev.Output, "\n")); m != nil {
			n, _ := strconv.Atoi(m[2])
			s.where[key] = TestFailure{File: clip(m[1]), Line: n, Message: clip(strings.TrimSpace(m[3]))}
		}
	case "pass", "fail", "skip":
		if ev.Test == "" {
			if ev.Action == "fail" && s.failedPkgs[ev.Package] == 0 {
				s.packageFailed(ev)
			}
			return
		}
		f := s.where[key]
		delete(s.where, key)
		switch ev.Action {
		case "pass":
			s.report.Passed++
		case "skip":
			s.report.Skipped++
		case "fail":
			s.report.Failed++
			s.failedPkgs[ev.Package]++
			f.Name = clip(ev.Test)
			s.addFailure(f)
		}
	}
}

// addFailure keeps a failed test, dropping a parent whose subtest failed
// already: the subtest says where.
func (s *gotestSink) addFailure(f TestFailure) {
	fs := s.report.Failures
	if n := len(fs); n > 0 && strings.HasPrefix(fs[n-1].Name, f.Name+"/") {
		return
	}
	if len(fs) < s.max {
		s.report.Failures = append(fs, f)
	}
	if f.File != "" {
		s.diags.add(diagnostic.Diagnostic{Path: f.File, Line: f.Line, Severity: diagnostic.Error,
			Message: f.Name + ": " + f.Message, Source: "go test"})
	}
}

func (s *gotestSink) packageFailed(ev testEvent) {
	msg := "failed with no failing test (a panic, or os.Exit in TestMain)"
	if ev.FailedBuild != "" {
		msg = "build failed"
	}
	s.report.Failed++
	s.failedPkgs[ev.Package]++
	if len(s.report.Failures) < s.max {
		s.report.Failures = append(s.report.Failures, TestFailure{Name: clip(ev.Package), Message: msg})
	}
}

func (s *gotestSink) buildOutput(out string) {
	m := buildErrorLine().FindStringSubmatch(strings.TrimRight(out, "\n"))
	if m == nil {
		return
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	s.diags.add(diagnostic.Diagnostic{Path: clip(m[1]), Line: line, Column: col, Severity: diagnostic.Error,
		Message: clip(strings.TrimSpace(m[4])), Source: "go test"})
}

func (s *gotestSink) finish(int) (Result, error) {
	return Result{Value: s.report, Diagnostics: s.diags.result().Diagnostics}, nil
}
