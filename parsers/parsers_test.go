package parsers

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// run compiles spec, feeds out line by line as stdout and returns the result.
func run(t *testing.T, spec Spec, out string, exitCode int) Result {
	t.Helper()
	p, err := Compile("out", spec)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	r := p.Start()
	w := NewLineWriter(0, func(line []byte) { r.Line(Stdout, line) })
	w.Write([]byte(out))
	w.Flush()
	res, err := r.Finish(exitCode)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return res
}

// asJSON normalises a value through encoding/json for comparison.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	return string(b)
}

func intp(n int) *int { return &n }

func TestParsersOnRealOutput(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		out  string
		code int
		want string // JSON of Result.Value
	}{
		{
			name: "lineMatch go build errors",
			spec: Spec{Type: KindLineMatch, Pattern: ".go:"},
			out: "# example.com/m\n" +
				"./main.go:5:2: undefined: fmt.Printn\n" +
				"./main.go:9:6: declared and not used: x\n",
			want: `{"count":2,"lines":["./main.go:5:2: undefined: fmt.Printn","./main.go:9:6: declared and not used: x"],"truncated":false}`,
		},
		{
			name: "lineMatch ignoreCase msbuild",
			spec: Spec{Type: KindLineMatch, Pattern: ": ERROR ", IgnoreCase: true},
			out: "  Determining projects to restore...\n" +
				"/p/Program.cs(10,5): error CS1002: ; expected [/p/x.csproj]\n" +
				"/p/Program.cs(3,1): warning CS8019: Unnecessary using directive. [/p/x.csproj]\n" +
				"Build FAILED.\n",
			want: `{"count":1,"lines":["/p/Program.cs(10,5): error CS1002: ; expected [/p/x.csproj]"],"truncated":false}`,
		},
		{
			name: "lineMatch ignoreCase with fold-unsafe letters",
			spec: Spec{Type: KindLineMatch, Pattern: "skipped", IgnoreCase: true},
			out:  "SKIPPED a\nſkipped b\nnothing\n",
			want: `{"count":2,"lines":["SKIPPED a","ſkipped b"],"truncated":false}`,
		},
		{
			name: "lineMatch maxMatches",
			spec: Spec{Type: KindLineMatch, Pattern: "warning", MaxMatches: 2},
			out:  "warning 1\nwarning 2\nwarning 3\n",
			want: `{"count":3,"lines":["warning 1","warning 2"],"truncated":true}`,
		},
		{
			name: "regex dotnet test summary",
			spec: Spec{Type: KindRegex, Pattern: `failed:\s*(\d+),\s*passed:\s*(\d+),\s*skipped:\s*(\d+)`, IgnoreCase: true, Groups: []string{"failed", "passed", "skipped"}},
			out: "Starting test execution, please wait...\n" +
				"A total of 1 test files matched the specified pattern.\n" +
				"Failed!  - Failed:     1, Passed:    41, Skipped:     2, Total:    44, Duration: 1 s - x.Tests.dll (net8.0)\n",
			want: `{"failed":1,"passed":41,"skipped":2}`,
		},
		{
			name: "regex pytest summary named groups",
			spec: Spec{Type: KindRegex, Pattern: `=+ (?:(?P<failed>\d+) failed, )?(?P<passed>\d+) passed(?:, (?P<skipped>\d+) skipped)? in (?P<seconds>[\d.]+)s`},
			out: "============================= test session starts ==============================\n" +
				"collected 7 items\n\n" +
				"test_a.py ..F....                                                        [100%]\n" +
				"=========================== short test summary info ============================\n" +
				"FAILED test_a.py::test_three - assert 1 == 2\n" +
				"========================= 1 failed, 6 passed in 0.12s ==========================\n",
			want: `{"failed":1,"passed":6,"seconds":0.12,"skipped":null}`,
		},
		{
			name: "regex no match gives nulls",
			spec: Spec{Type: KindRegex, Pattern: `(\d+) passed`, Groups: []string{"passed"}},
			out:  "error: could not compile\n",
			want: `{"passed":null}`,
		},
		{
			name: "regex last",
			spec: Spec{Type: KindRegex, Pattern: `progress (\d+)%`, Groups: []string{"pct"}, Mode: ModeLast},
			out:  "progress 10%\nprogress 55%\nprogress 100%\ndone\n",
			want: `{"pct":100}`,
		},
		{
			name: "regex all",
			spec: Spec{Type: KindRegex, Pattern: `^--- FAIL: (\w+) \(([\d.]+)s\)`, Groups: []string{"test", "seconds"}, Mode: ModeAll},
			out:  "=== RUN   TestA\n--- FAIL: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.01s)\n--- FAIL: TestC (1.50s)\nFAIL\n",
			want: `[{"seconds":0,"test":"TestA"},{"seconds":1.5,"test":"TestC"}]`,
		},
		{
			name: "regex sum cargo test",
			spec: Spec{Type: KindRegex, Pattern: `^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored`, Groups: []string{"passed", "failed", "ignored"}, Mode: ModeSum},
			out: "running 3 tests\ntest a ... ok\n\n" +
				"test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n" +
				"     Running tests/it.rs (target/debug/deps/it-123)\n" +
				"test result: FAILED. 4 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n",
			want: `{"failed":2,"ignored":1,"passed":7}`,
		},
		{
			name: "json coverage",
			spec: Spec{Type: KindJSON, Path: "$.summary.lineCoverage"},
			out:  "{\n  \"summary\": {\n    \"lineCoverage\": 83.5,\n    \"lines\": 200\n  }\n}\n",
			want: `83.5`,
		},
		{
			name: "json definite path missing gives null",
			spec: Spec{Type: KindJSON, Path: "$.summary.branchCoverage"},
			out:  `{"summary": {}}`,
			want: `null`,
		},
		{
			name: "json wildcard gives list",
			spec: Spec{Type: KindJSON, Path: "$.tests[*].name"},
			out:  `{"tests": [{"name": "a"}]}`,
			want: `["a"]`,
		},
		{
			name: "jsonLines go test -json failures",
			spec: Spec{Type: KindJSON, JSONLines: true, Path: "$[?(@.Action == 'fail')].Test"},
			out: `{"Time":"2025-01-01T00:00:00Z","Action":"start","Package":"m"}` + "\n" +
				`{"Action":"run","Package":"m","Test":"TestA"}` + "\n" +
				`{"Action":"fail","Package":"m","Test":"TestA","Elapsed":0}` + "\n" +
				`{"Action":"pass","Package":"m","Test":"TestB","Elapsed":0}` + "\n" +
				`{"Action":"fail","Package":"m","Elapsed":0.1}` + "\n",
			want: `["TestA"]`,
		},
		{
			name: "jsonLines skips plain lines",
			spec: Spec{Type: KindJSON, JSONLines: true, Path: "$.reason"},
			out:  "   Compiling m v0.1.0\n{\"reason\":\"compiler-artifact\"}\n{\"reason\":\"build-finished\",\"success\":true}\n",
			want: `["compiler-artifact","build-finished"]`,
		},
		{
			name: "exitCode success",
			spec: Spec{Type: KindExitCode},
			code: 0,
			want: `{"exit_code":0,"success":true}`,
		},
		{
			name: "exitCode custom codes",
			spec: Spec{Type: KindExitCode, SuccessCodes: []int{0, 5}},
			code: 1,
			want: `{"exit_code":1,"success":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := asJSON(t, run(t, tt.spec, tt.out, tt.code).Value)
			if got != tt.want {
				t.Errorf("value\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		out  string
		want []diagnostic.Diagnostic
	}{
		{
			name: "go vet with named pattern",
			spec: Spec{Type: KindDiagnostics, Pattern: `^(?P<file>[^:\s]+\.go):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$`, Severity: "warning", Source: "go vet"},
			out:  "# example.com/m\n# [example.com/m]\n./main.go:7:2: fmt.Printf format %d has arg s of wrong type string\n",
			want: []diagnostic.Diagnostic{{Path: "./main.go", Line: 7, Column: 2, Severity: "warning", Message: "fmt.Printf format %d has arg s of wrong type string", Source: "go vet"}},
		},
		{
			name: "go preset",
			spec: Spec{Type: KindDiagnostics, Preset: "go"},
			out:  "# example.com/m\n./main.go:5:2: undefined: fmt.Printn\nvet.go:3: something\nnote: module requires Go 1.22\n",
			want: []diagnostic.Diagnostic{
				{Path: "./main.go", Line: 5, Column: 2, Severity: "error", Message: "undefined: fmt.Printn"},
				{Path: "vet.go", Line: 3, Severity: "error", Message: "something"},
			},
		},
		{
			name: "gcc preset",
			spec: Spec{Type: KindDiagnostics, Preset: "gcc"},
			out: "main.c: In function 'main':\n" +
				"main.c:4:9: warning: unused variable 'x' [-Wunused-variable]\n" +
				"    4 |     int x;\n" +
				"      |         ^\n" +
				"main.c:5:5: error: 'y' undeclared (first use in this function)\n" +
				"main.c:1:10: fatal error: nope.h: No such file or directory\n" +
				"main.c:5:5: note: each undeclared identifier is reported only once\n",
			want: []diagnostic.Diagnostic{
				{Path: "main.c", Line: 4, Column: 9, Severity: "warning", Code: "-Wunused-variable", Message: "unused variable 'x'"},
				{Path: "main.c", Line: 5, Column: 5, Severity: "error", Message: "'y' undeclared (first use in this function)"},
				{Path: "main.c", Line: 1, Column: 10, Severity: "error", Message: "nope.h: No such file or directory"},
				{Path: "main.c", Line: 5, Column: 5, Severity: "info", Message: "each undeclared identifier is reported only once"},
			},
		},
		{
			name: "msbuild preset dedupes the summary",
			spec: Spec{Type: KindDiagnostics, Preset: "msbuild"},
			out: "  Determining projects to restore...\n" +
				"/p/Program.cs(10,5): error CS1002: ; expected [/p/x.csproj]\n" +
				`C:\src\App\Util.cs(3,1,3,12): warning CS8019: Unnecessary using directive. [C:\src\App\App.csproj]` + "\n" +
				"CSC : error CS5001: Program does not contain a static 'Main' method suitable for an entry point [/p/x.csproj]\n" +
				"\nBuild FAILED.\n\n" +
				"/p/Program.cs(10,5): error CS1002: ; expected [/p/x.csproj]\n" +
				"    1 Error(s)\n",
			want: []diagnostic.Diagnostic{
				{Path: "/p/Program.cs", Line: 10, Column: 5, Severity: "error", Code: "CS1002", Message: "; expected"},
				{Path: `C:\src\App\Util.cs`, Line: 3, Column: 1, EndLine: 3, EndColumn: 12, Severity: "warning", Code: "CS8019", Message: "Unnecessary using directive."},
				{Path: "CSC", Severity: "error", Code: "CS5001", Message: "Program does not contain a static 'Main' method suitable for an entry point"},
			},
		},
		{
			// A coverage threshold fails dotnet test with no failed test
			// and no code on its error (issue 25 item 11).
			name: "msbuild preset: an error with no code",
			spec: Spec{Type: KindDiagnostics, Preset: "msbuild"},
			out: "Passed!  - Failed:     0, Passed:     2, Skipped:     0, Total:     2, Duration: 4 ms - Calc.Tests.dll (net8.0)\n" +
				"/root/.nuget/packages/coverlet.msbuild/6.0.2/build/coverlet.msbuild.targets(72,5): error : The minimum line coverage is below the specified 80 [/w/Calc.Tests/Calc.Tests.csproj]\n" +
				"/w/Calc.Tests/Calc.Tests.csproj(20,5): error : coverage gate failed [/w/Calc.Tests/Calc.Tests.csproj]\n",
			want: []diagnostic.Diagnostic{
				{Path: "/root/.nuget/packages/coverlet.msbuild/6.0.2/build/coverlet.msbuild.targets", Line: 72, Column: 5, Severity: "error", Message: "The minimum line coverage is below the specified 80"},
				{Path: "/w/Calc.Tests/Calc.Tests.csproj", Line: 20, Column: 5, Severity: "error", Message: "coverage gate failed"},
			},
		},
		{
			name: "tsc preset both forms",
			spec: Spec{Type: KindDiagnostics, Preset: "tsc"},
			out: "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n" +
				"src/b.ts:1:1 - error TS2304: Cannot find name 'foo'.\n" +
				"\n1 foo();\n  ~~~\n\nFound 2 errors in 2 files.\n",
			want: []diagnostic.Diagnostic{
				{Path: "src/a.ts", Line: 3, Column: 7, Severity: "error", Code: "TS2322", Message: "Type 'string' is not assignable to type 'number'."},
				{Path: "src/b.ts", Line: 1, Column: 1, Severity: "error", Code: "TS2304", Message: "Cannot find name 'foo'."},
			},
		},
		{
			name: "rustc short preset",
			spec: Spec{Type: KindDiagnostics, Preset: "rustc"},
			out: "    Checking m v0.1.0 (/p)\n" +
				"src/main.rs:2:9: warning: unused variable: `x`\n" +
				"src/main.rs:3:5: error[E0425]: cannot find value `y` in this scope\n" +
				"error: could not compile `m` (bin \"m\") due to 1 previous error; 1 warning emitted\n",
			want: []diagnostic.Diagnostic{
				{Path: "src/main.rs", Line: 2, Column: 9, Severity: "warning", Message: "unused variable: `x`"},
				{Path: "src/main.rs", Line: 3, Column: 5, Severity: "error", Code: "E0425", Message: "cannot find value `y` in this scope"},
			},
		},
		{
			name: "javac preset",
			spec: Spec{Type: KindDiagnostics, Preset: "javac"},
			out: "Main.java:3: error: cannot find symbol\n" +
				"        Strin s = \"\";\n        ^\n  symbol:   class Strin\n  location: class Main\n" +
				"Main.java:5: warning: [deprecation] Integer(int) in Integer has been deprecated\n" +
				"1 error\n1 warning\n",
			want: []diagnostic.Diagnostic{
				{Path: "Main.java", Line: 3, Severity: "error", Message: "cannot find symbol"},
				{Path: "Main.java", Line: 5, Severity: "warning", Code: "deprecation", Message: "Integer(int) in Integer has been deprecated"},
			},
		},
		{
			name: "pyright preset",
			spec: Spec{Type: KindDiagnostics, Preset: "pyright"},
			out: "/p/a.py\n" +
				"  /p/a.py:3:9 - error: \"x\" is not defined (reportUndefinedVariable)\n" +
				"  /p/a.py:4:1 - warning: Import \"os\" is not accessed\n" +
				"1 error, 1 warning, 0 informations \n",
			want: []diagnostic.Diagnostic{
				{Path: "/p/a.py", Line: 3, Column: 9, Severity: "error", Code: "reportUndefinedVariable", Message: "\"x\" is not defined"},
				{Path: "/p/a.py", Line: 4, Column: 1, Severity: "warning", Message: "Import \"os\" is not accessed"},
			},
		},
		{
			name: "mypy preset",
			spec: Spec{Type: KindDiagnostics, Preset: "mypy"},
			out:  "a.py:3: error: Incompatible types in assignment (expression has type \"str\", variable has type \"int\")  [assignment]\nFound 1 error in 1 file (checked 1 source file)\n",
			want: []diagnostic.Diagnostic{{Path: "a.py", Line: 3, Severity: "error", Code: "assignment", Message: "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")"}},
		},
		{
			name: "eslint unix preset",
			spec: Spec{Type: KindDiagnostics, Preset: "eslint"},
			out:  "/p/a.js:1:5: 'x' is assigned a value but never used. [Error/no-unused-vars]\n/p/a.js:2:1: Unexpected console statement. [Warning/no-console]\n\n2 problems\n",
			want: []diagnostic.Diagnostic{
				{Path: "/p/a.js", Line: 1, Column: 5, Severity: "error", Code: "no-unused-vars", Message: "'x' is assigned a value but never used."},
				{Path: "/p/a.js", Line: 2, Column: 1, Severity: "warning", Code: "no-console", Message: "Unexpected console statement."},
			},
		},
		{
			name: "python traceback preset",
			spec: Spec{Type: KindDiagnostics, Preset: "python"},
			out: "Traceback (most recent call last):\n" +
				"  File \"/x/a.py\", line 10, in <module>\n    foo()\n" +
				"  File \"/x/b.py\", line 3, in foo\n    raise ValueError(\"bad\")\n" +
				"ValueError: bad\n",
			want: []diagnostic.Diagnostic{{Path: "/x/b.py", Line: 3, Severity: "error", Message: "ValueError: bad"}},
		},
		{
			name: "errorformat lines with type and continuation",
			spec: Spec{Type: KindDiagnostics, Errorformat: []string{`%E%f:%l:%c: %trror: %m`, `%W%f:%l:%c: %tarning: %m`, `%C  %m`, `%-G%.%#`}},
			out:  "a.c:1:2: error: first\n  more detail\nnoise\nb.c:3:4: warning: second\n",
			want: []diagnostic.Diagnostic{
				{Path: "a.c", Line: 1, Column: 2, Severity: "error", Message: "first\nmore detail"},
				{Path: "b.c", Line: 3, Column: 4, Severity: "warning", Message: "second"},
			},
		},
		{
			name: "reviewdog preset by name",
			spec: Spec{Type: KindDiagnostics, Preset: "golint"},
			out:  "a.go:1:2: exported X should have comment\n",
			want: []diagnostic.Diagnostic{{Path: "a.go", Line: 1, Column: 2, Severity: "error", Message: "exported X should have comment"}},
		},
		{
			name: "pattern with positional groups",
			spec: Spec{Type: KindDiagnostics, Pattern: `^(\S+):(\d+): (E|W)\d+ (.*)$`, Groups: []string{"file", "line", "severity", "message"}},
			out:  "x.py:4: W291 trailing whitespace\n",
			want: []diagnostic.Diagnostic{{Path: "x.py", Line: 4, Severity: "warning", Message: "trailing whitespace"}},
		},
		{
			name: "pyright json with lineBase 0",
			spec: Spec{Type: KindJSON, Path: "$.generalDiagnostics[*]", LineBase: intp(0), Source: "pyright", Fields: map[string]string{
				"file": "$.file", "line": "$.range.start.line", "column": "$.range.start.character",
				"endLine": "$.range.end.line", "endColumn": "$.range.end.character",
				"severity": "$.severity", "message": "$.message", "code": "$.rule",
			}},
			out: `{"version":"1.1.400","generalDiagnostics":[` +
				`{"file":"/p/a.py","severity":"error","message":"\"x\" is not defined","range":{"start":{"line":2,"character":8},"end":{"line":2,"character":9}},"rule":"reportUndefinedVariable"},` +
				`{"file":"/p/a.py","severity":"information","message":"note","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}` +
				`],"summary":{"errorCount":1}}`,
			want: []diagnostic.Diagnostic{
				{Path: "/p/a.py", Line: 3, Column: 9, EndLine: 3, EndColumn: 10, Severity: "error", Code: "reportUndefinedVariable", Message: "\"x\" is not defined", Source: "pyright"},
				{Path: "/p/a.py", Line: 1, Column: 1, EndLine: 1, EndColumn: 2, Severity: "info", Message: "note", Source: "pyright"},
			},
		},
		{
			name: "cargo json lines",
			spec: Spec{Type: KindJSON, JSONLines: true, Path: "$.message", ColumnBase: intp(1), Fields: map[string]string{
				"file": "$.spans[0].file_name", "line": "$.spans[0].line_start", "column": "$.spans[0].column_start",
				"severity": "$.level", "code": "$.code.code", "message": "$.message",
			}},
			out: `{"reason":"compiler-artifact","target":{"name":"dep"}}` + "\n" +
				`{"reason":"compiler-message","message":{"message":"cannot find value ` + "`y`" + `","level":"error","code":{"code":"E0425"},"spans":[{"file_name":"src/main.rs","line_start":3,"column_start":5}]}}` + "\n" +
				`{"reason":"build-finished","success":false}` + "\n",
			want: []diagnostic.Diagnostic{{Path: "src/main.rs", Line: 3, Column: 5, Severity: "error", Code: "E0425", Message: "cannot find value `y`"}},
		},
		{
			name: "LSP numeric severity and string positions",
			spec: Spec{Type: KindJSON, Path: "$[*]", LineBase: intp(0), ColumnBase: intp(1), Fields: map[string]string{
				"line": "$.l", "column": "$.c", "severity": "$.s", "message": "$.m",
			}},
			out:  `[{"l":"4","c":2,"s":2,"m":"w"},{"l":0,"s":4,"m":"h"},{"m":""}]`,
			want: []diagnostic.Diagnostic{{Line: 5, Column: 2, Severity: "warning", Message: "w"}, {Line: 1, Severity: "hint", Message: "h"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, tt.spec, tt.out, 0)
			if !reflect.DeepEqual(res.Diagnostics, tt.want) {
				t.Errorf("diagnostics\n got %s\nwant %s", asJSON(t, res.Diagnostics), asJSON(t, tt.want))
			}
			if asJSON(t, res.Value) != asJSON(t, tt.want) {
				t.Errorf("value %s differs from diagnostics", asJSON(t, res.Value))
			}
		})
	}
}

func TestNormalizeSeverity(t *testing.T) {
	for in, want := range map[string]string{
		"E": "error", "ERROR": "error", "fatal error": "error", "warn": "warning", "Warning": "warning",
		"note": "info", "information": "info", "help": "hint", "4": "hint", "bogus": "",
	} {
		if got := NormalizeSeverity(in); got != want {
			t.Errorf("NormalizeSeverity(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name, out, wantErr string
		spec               Spec
	}{
		{"not json", "Build FAILED.\n", "not JSON", Spec{Type: KindJSON, Path: "$.a"}},
		{"empty", "\n  \n", "printed no JSON", Spec{Type: KindJSON, Path: "$.a"}},
		{"json lines all bad", "{nope\n[1,\n", "none of 2 JSON lines parsed", Spec{Type: KindJSON, JSONLines: true, Path: "$.a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile("cov", tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Start()
			for _, line := range strings.Split(tt.out, "\n") {
				r.Line(Stdout, []byte(line))
			}
			_, err = r.Finish(0)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), `"cov"`) {
				t.Fatalf("Finish error = %v, want one naming the output and containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestJSONSizeCap(t *testing.T) {
	p, err := Compile("big", Spec{Type: KindJSON, Path: "$"})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Start()
	r.sink.(*jsonSink).maxBytes = 100
	r.Line(Stdout, []byte(`{"a": "`+strings.Repeat("x", 200)+`"}`))
	if _, err := r.Finish(0); err == nil || !strings.Contains(err.Error(), "exceeds 100 bytes") {
		t.Fatalf("Finish error = %v, want size cap error", err)
	}
}

func TestRegexMatchesEmptyLine(t *testing.T) {
	res := run(t, Spec{Type: KindRegex, Pattern: `^(?P<blank>)$`}, "x\n\ny\n", 0)
	if got := asJSON(t, res.Value); got != `{"blank":""}` {
		t.Errorf("value = %s, want the empty group of the blank line", got)
	}
}
