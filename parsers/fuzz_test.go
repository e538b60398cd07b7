package parsers

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// fuzzMax is the maxMatches of every fuzzed parser: small, so that the
// bounds are reached quickly.
const fuzzMax = 3

// fuzzSpecs covers every parser kind and every diagnostics preset; tool
// output is hostile input, so none of them may panic or grow without
// bound on any bytes.
func fuzzSpecs() map[string]Spec {
	zero := 0
	specs := map[string]Spec{
		"lineMatch":     {Type: KindLineMatch, Pattern: ": error"},
		"lineMatchFold": {Type: KindLineMatch, Pattern: "ſTRASSE", IgnoreCase: true},
		"regexFirst":    {Type: KindRegex, Pattern: `(\d+) passed, (\d+) failed`, Groups: []string{"passed", "failed"}},
		"regexLast":     {Type: KindRegex, Pattern: `(?P<name>\w+)=(?P<value>\S*)`, Mode: ModeLast},
		"regexAll":      {Type: KindRegex, Pattern: `^--- FAIL: (\S+)`, Groups: []string{"test"}, Mode: ModeAll},
		"regexSum":      {Type: KindRegex, Pattern: `(-?\d+) ok; (\d*) failed`, Groups: []string{"ok", "failed"}, Mode: ModeSum},
		"regexFold":     {Type: KindRegex, Pattern: `total: (\d+)`, Groups: []string{"total"}, IgnoreCase: true},
		"jsonDefinite":  {Type: KindJSON, Path: "$.summary.errorCount"},
		"jsonRoot":      {Type: KindJSON, Path: "$", Stream: StreamBoth},
		"jsonWild":      {Type: KindJSON, Path: "$..message"},
		"jsonFilter":    {Type: KindJSON, Path: "$[?(@.severity == 'error')].file"},
		"jsonFields": {Type: KindJSON, Path: "$.generalDiagnostics[*]", LineBase: &zero, Fields: map[string]string{
			"file": "$.file", "line": "$.range.start.line", "column": "$.range.start.character",
			"endLine": "$.range.end.line", "endColumn": "$.range.end.character",
			"severity": "$.severity", "code": "$.rule", "message": "$.message", "source": "$.source"}},
		"jsonLines":       {Type: KindJSON, Path: "$.Test", JSONLines: true},
		"jsonLinesFilter": {Type: KindJSON, Path: "$[?(@.Action == 'fail')].Test", JSONLines: true},
		"jsonLinesFields": {Type: KindJSON, Path: "$", JSONLines: true, Fields: map[string]string{
			"file": "$.file", "line": "$.line", "column": "$.col", "message": "$.msg", "severity": "$.level"}},
		"exitCode": {Type: KindExitCode, SuccessCodes: []int{0, 2}},
		"gotest":   {Type: KindGotest},
		"pattern": {Type: KindDiagnostics, LineBase: &zero,
			Pattern: `^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+)(?:-(?P<endLine>\d+):(?P<endColumn>\d+))?: (?P<severity>\w+)(?: (?P<code>[A-Z]+\d+))?: (?P<message>.*)$`},
		"errorformat": {Type: KindDiagnostics, Errorformat: []string{
			`%E%f:%l:%c: error: %m`, `%W%f:%l: warning: %m`, `%C  %m`, `%Z%p^`, `%-G%.%#`}},
	}
	for _, name := range presetNames() {
		specs["preset "+name] = Spec{Type: KindDiagnostics, Preset: name}
	}
	for name, s := range specs {
		if s.Type != KindExitCode {
			s.MaxMatches = fuzzMax
			specs[name] = s
		}
	}
	return specs
}

// FuzzParsers feeds arbitrary bytes, cut into arbitrary writes, through one
// Set holding every parser kind. It checks that nothing panics, that every
// list stays within maxMatches, every kept text within maxValueBytes, every
// diagnostic is well formed, and that the outputs still encode as JSON
// (they go to MCP clients as JSON).
func FuzzParsers(f *testing.F) {
	compiled := map[string]*Parser{}
	for name, s := range fuzzSpecs() {
		p, err := Compile(name, s)
		if err != nil {
			f.Fatalf("%s: %v", name, err)
		}
		compiled[name] = p
	}
	set := NewSet(compiled)

	for _, seed := range []string{
		"main.go:3:5: undefined: x\n./a.go:10:2: error: boom\n",
		"a.c:1:2: error: expected ';' [-Werror]\nIn file included from b.h:3:\n",
		"Program.cs(10,17): error CS0103: The name 'x' does not exist [/src/App.csproj]\r\n",
		"src/a.ts(3,9): error TS2322: Type 'string' is not assignable\n",
		"  File \"a.py\", line 3, in <module>\n    x = (\nSyntaxError: '(' was never closed\n",
		"A.java:3: error: cannot find symbol\n    foo();\n    ^\n1 error\n",
		"{\"generalDiagnostics\":[{\"file\":\"a.py\",\"severity\":\"error\",\"message\":\"m\",\"range\":{\"start\":{\"line\":9223372036854775807,\"character\":1e300},\"end\":{\"line\":-1,\"character\":\"7\"}}}],\"summary\":{\"errorCount\":1}}",
		"{\"Action\":\"fail\",\"Test\":\"TestX\"}\n{\"Action\":\"pass\",\"Test\":\"TestY\"}\n[1,2]\n{bad\n",
		"{\"Action\":\"output\",\"Package\":\"p\",\"Test\":\"T\",\"Output\":\"    a_test.go:99999999999999999999: x\\n\"}\n{\"Action\":\"fail\",\"Package\":\"p\",\"Test\":\"T\"}\n{\"ImportPath\":\"p\",\"Action\":\"build-output\",\"Output\":\"./b.go:3:23: undefined: x\\n\"}\n",
		"{\"file\":\"a\",\"line\":\"99999999999999999999\",\"col\":-3,\"msg\":\"x\",\"level\":\"warn\"}\n",
		"a:9223372036854775807:9223372036854775807-9223372036854775807:1: error E1: huge\n",
		"3 passed, 1 failed\n9223372036854775807 ok; 9223372036854775807 failed\n-9223372036854775808 ok; 1 failed\n",
		"\x1b[31merror\x1b[0m: red\n\x1b]8;;http://x\x07link\x1b]8;;\x07\n",
		"\xff\xfe\x00 binary \x00\n\r\n\r\r\n",
		"[NaN, Infinity, -0, 1e999, 123456789012345678901234567890]",
		"{\"summary\": {\"errorCount\": -1e999}, \"message\": [1e999]}\n{\"Test\": 1e400}",
		"[123456789012345678901234567890, -123456789012345678901234567890.5e-400, 1.5e308, \"\\ud800\"]",
	} {
		f.Add([]byte(seed), uint8(7), 1)
	}

	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, exitCode int) {
		run := set.Start()
		// Stdout gets the bytes in writes of chunk+1 bytes, stderr the
		// same bytes in one write, so that line splitting across writes
		// and both streams are exercised.
		step := int(chunk) + 1
		for i := 0; i < len(data); i += step {
			if _, err := run.Writer(Stdout).Write(data[i:min(i+step, len(data))]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := run.Writer(Stderr).Write(data); err != nil {
			t.Fatal(err)
		}
		outputs, diags, _ := run.Finish(exitCode) // output that is not JSON is an error, not a crash

		if _, err := json.Marshal(outputs); err != nil {
			t.Fatalf("outputs do not encode as JSON: %v", err)
		}
		if len(diags) > fuzzMax*len(compiled) {
			t.Errorf("%d diagnostics from %d parsers with maxMatches %d", len(diags), len(compiled), fuzzMax)
		}
		for _, d := range diags {
			checkDiagnostic(t, d)
		}
		for name, v := range outputs {
			if name == "jsonDefinite" || name == "jsonRoot" {
				continue // the tool's own JSON value, bounded by MaxJSONBytes
			}
			checkBounded(t, name, compiled[name].Kind(), v, 0)
		}
	})
}

func checkDiagnostic(t *testing.T, d diagnostic.Diagnostic) {
	t.Helper()
	if d.Line < 0 || d.Column < 0 || d.EndLine < 0 || d.EndColumn < 0 {
		t.Errorf("negative position in %+v", d)
	}
	switch d.Severity {
	case diagnostic.Error, diagnostic.Warning, diagnostic.Info, diagnostic.Hint:
	default:
		t.Errorf("severity %q in %+v", d.Severity, d)
	}
	for _, s := range []string{d.Path, d.Code, d.Message} {
		checkText(t, "diagnostic", s)
	}
}

func checkText(t *testing.T, where, s string) {
	t.Helper()
	if len(s) > maxValueBytes+utf8.UTFMax {
		t.Errorf("%s: kept text of %d bytes, more than %d", where, len(s), maxValueBytes)
	}
}

// checkBounded walks an output value. Lists made by the parsers hold at
// most fuzzMax items; the items a json parser selects are the tool's own
// JSON, so only their number is checked.
func checkBounded(t *testing.T, name string, kind Kind, v any, depth int) {
	t.Helper()
	where := fmt.Sprintf("output %s", name)
	switch v := v.(type) {
	case []diagnostic.Diagnostic:
		if len(v) > fuzzMax {
			t.Errorf("%s: %d diagnostics, maxMatches is %d", where, len(v), fuzzMax)
		}
		for _, d := range v {
			checkDiagnostic(t, d)
		}
	case TestReport:
		if len(v.Failures) > fuzzMax {
			t.Errorf("%s: %d failures, maxMatches is %d", where, len(v.Failures), fuzzMax)
		}
		for _, f := range v.Failures {
			checkText(t, where, f.Name)
			checkText(t, where, f.File)
			checkText(t, where, f.Message)
			if f.Line < 0 {
				t.Errorf("%s: negative line in %+v", where, f)
			}
		}
	case []string:
		if len(v) > fuzzMax {
			t.Errorf("%s: %d lines, maxMatches is %d", where, len(v), fuzzMax)
		}
		for _, s := range v {
			checkText(t, where, s)
		}
	case []any:
		if depth == 0 && len(v) > fuzzMax {
			t.Errorf("%s: %d items, maxMatches is %d", where, len(v), fuzzMax)
		}
		if kind != KindJSON {
			for _, e := range v {
				checkBounded(t, name, kind, e, depth+1)
			}
		}
	case map[string]any:
		if kind != KindJSON {
			for _, e := range v {
				checkBounded(t, name, kind, e, depth+1)
			}
		}
	case string:
		if kind != KindJSON {
			checkText(t, where, v)
		}
	}
}
