package languages_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// requireDotnet skips where the .NET SDK is not installed: C# is optional
// for a langhost user. Where dotnet is on PATH the tests run, and fail if
// anything else they need is missing.
func requireDotnet(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("dotnet"); err != nil {
		t.Skip("dotnet is not on PATH: install the .NET SDK 10 to run the C# tests")
	}
}

// TestCSharpTools runs the C# CLI tools against real dotnet on one copy of
// testdata/csharp/calc (a library, an xunit project with one failing and one
// skipped test, and a console program), restored once from the machine's
// NuGet folder (its nuget.config). The subtests share that copy and run in
// order, each undoing what it adds, because every dotnet build costs tens of
// seconds here.
func TestCSharpTools(t *testing.T) {
	t.Parallel()
	requireDotnet(t)
	dir := fixture(t, "csharp/calc")
	restore := exec.Command("dotnet", "restore", "Calc.sln")
	restore.Dir = dir
	if out, err := restore.CombinedOutput(); err != nil {
		t.Fatalf("dotnet restore: %v\n%s", err, out)
	}
	h := newHost(t, dir)

	t.Run("test counts and the failing assertion's line", func(t *testing.T) {
		res := call(t, h, "csharp.test", map[string]any{"project": "Calc.Tests/Calc.Tests.csproj"})
		wantOK(t, res, false)
		wantTests(t, res, 1, 1, 1, "Calc.Tests.CalculatorTests.Subtract_TwoNumbers_ReturnsDifference")
		wantDiagnostic(t, res.Diagnostics, diag{File: "Calc.Tests/CalculatorTests.cs", Line: 14, Severity: "error", Message: "Calc.Tests.CalculatorTests.Subtract_TwoNumbers_ReturnsDifference"})
		if f := res.Tests.Failures[0]; f.File != "Calc.Tests/CalculatorTests.cs" || f.Line != 14 {
			t.Errorf("failure = %+v, want Calc.Tests/CalculatorTests.cs:14", f)
		}

		only := call(t, h, "csharp.test", map[string]any{"project": "Calc.Tests/Calc.Tests.csproj", "filter": "FullyQualifiedName~Add_", "noBuild": true})
		wantOK(t, only, true)
		wantTests(t, only, 1, 0, 0)
	})

	// A gate after the tests (coverlet.msbuild's threshold hooks VSTest
	// the same way; the machine's NuGet folder has only the collector)
	// fails the run with every test passed: the result says why (issue 25
	// item 11).
	t.Run("a failed coverage gate says so", func(t *testing.T) {
		gate := filepath.Join(dir, "Calc.Tests", "Directory.Build.targets")
		writeFile(t, gate, "<Project>\n  <Target Name=\"CoverageGate\" AfterTargets=\"VSTest\">\n"+
			"    <Error Text=\"The minimum line coverage is below the specified 80\" />\n  </Target>\n</Project>\n")
		defer os.Remove(gate)
		res := call(t, h, "csharp.test", map[string]any{"project": "Calc.Tests/Calc.Tests.csproj", "filter": "FullyQualifiedName~Add_"})
		wantOK(t, res, false)
		wantTests(t, res, 1, 0, 0)
		wantDiagnostic(t, res.Diagnostics, diag{File: "Calc.Tests/Directory.Build.targets", Line: 3, Column: 5, Severity: "error", Message: "The minimum line coverage is below the specified 80"})
		if why := res.Failure("csharp.test", false); !strings.Contains(why, "no failed test") || !strings.Contains(why, "The minimum line coverage is below the specified 80") {
			t.Errorf("failure reason %q does not name the coverage gate", why)
		}
	})

	t.Run("build reports compile errors", func(t *testing.T) {
		broken := filepath.Join(dir, "Calc", "Broken.cs")
		writeFile(t, broken, "namespace Calc;\n\npublic static class Broken\n{\n    public static int Value() => missing;\n}\n")
		defer os.Remove(broken)
		res := call(t, h, "csharp.build", map[string]any{"project": "Calc/Calc.csproj", "noRestore": true})
		wantOK(t, res, false)
		wantDiagnostic(t, res.Diagnostics, diag{File: "Calc/Broken.cs", Line: 5, Column: 34, Severity: "error", Code: "CS0103", Message: "The name 'missing' does not exist in the current context"})
		wantCounts(t, res, map[string]int{"errors": 1})
		for _, d := range res.Diagnostics {
			if d.Source != "msbuild" || strings.HasSuffix(d.Message, "]") || filepath.IsAbs(d.Path) {
				t.Errorf("diagnostic %+v: want source msbuild, a workspace-relative path and no project suffix", d)
			}
		}
	})

	t.Run("build succeeds", func(t *testing.T) {
		res := call(t, h, "csharp.build", map[string]any{"project": "Calc/Calc.csproj", "noRestore": true})
		wantOK(t, res, true)
		if len(res.Diagnostics) != 0 {
			t.Errorf("diagnostics of a clean build: %s", formatDiags(res.Diagnostics))
		}
	})

	t.Run("format check then format", func(t *testing.T) {
		ugly := filepath.Join(dir, "Calc", "Ugly.cs")
		writeFile(t, ugly, "namespace Calc;\n\npublic static class Ugly\n{\n        public static int One()   =>   1;\n}\n")
		defer os.Remove(ugly)
		input := map[string]any{"project": "Calc/Calc.csproj", "include": []any{"Calc/Ugly.cs"}}

		check := call(t, h, "csharp.format_check", input)
		wantOK(t, check, false)
		wantDiagnostic(t, check.Diagnostics, diag{File: "Calc/Ugly.cs", Line: 5, Column: 5, Severity: "error", Code: "WHITESPACE", Message: "Fix whitespace formatting. Delete 4 characters."})
		wantCounts(t, check, map[string]int{"changes": 3})
		wantFiles(t, check, "Calc/Ugly.cs")
		before, err := os.ReadFile(ugly)
		if err != nil {
			t.Fatal(err)
		}

		wantOK(t, call(t, h, "csharp.format", input), true)
		after, err := os.ReadFile(ugly)
		if err != nil {
			t.Fatal(err)
		}
		if string(after) == string(before) {
			t.Fatal("csharp.format left Ugly.cs unchanged")
		}
		clean := call(t, h, "csharp.format_check", input)
		wantOK(t, clean, true)
		if len(clean.Diagnostics) != 0 {
			t.Errorf("format_check after format: %s", formatDiags(clean.Diagnostics))
		}
	})

	t.Run("run passes program arguments", func(t *testing.T) {
		res := call(t, h, "csharp.run", map[string]any{"workdir": "Echo", "args": []any{"a", "b c", "--flag"}})
		wantOK(t, res, true)
		if res.Stdout != "a|b c|--flag\n" {
			t.Errorf("stdout = %q, want %q", res.Stdout, "a|b c|--flag\n")
		}
	})
}

// The samples keep the parsers' coverage of output the fixture does not
// produce: older SDKs' loggers and several test projects in one run.
func TestCSharpSamples(t *testing.T) {
	t.Parallel()

	t.Run("build", func(t *testing.T) {
		// Sample: dotnet build --nologo (SDK 10, classic console logger: the
		// output is not a terminal). The summary repeats each diagnostic.
		out := `  Determining projects to restore...
  All projects are up-to-date for restore.
/work/App/Program.cs(7,13): warning CS0168: The variable 'unused' is declared but never used [/work/App/App.csproj]
/work/App/Program.cs(10,17): error CS0103: The name 'missing' does not exist in the current context [/work/App/App.csproj]

Build FAILED.

/work/App/Program.cs(7,13): warning CS0168: The variable 'unused' is declared but never used [/work/App/App.csproj]
/work/App/Program.cs(10,17): error CS0103: The name 'missing' does not exist in the current context [/work/App/App.csproj]
    1 Warning(s)
    1 Error(s)

Time Elapsed 00:00:07.59
`
		res := sample(t, "csharp.build", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 10, Column: 17, Severity: "error", Code: "CS0103", Message: "The name 'missing' does not exist in the current context"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 7, Column: 13, Severity: "warning", Code: "CS0168", Message: "The variable 'unused' is declared but never used"})
		wantCounts(t, res, map[string]int{"errors": 1, "warnings": 1})
		if len(res.Diagnostics) != 2 {
			t.Errorf("want the summary's repeats dropped: %s", formatDiags(res.Diagnostics))
		}
		for _, d := range res.Diagnostics {
			if d.Message != "" && d.Message[len(d.Message)-1] == ']' {
				t.Errorf("project suffix left in message %q", d.Message)
			}
		}
	})

	t.Run("test failed run", func(t *testing.T) {
		// Sample: dotnet test --nologo (VSTest 17.11, xUnit) with one failing test.
		out := `  Calc -> /work/Calc/bin/Debug/net8.0/Calc.dll
  Calc.Tests -> /work/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll
Test run for /work/Calc.Tests/bin/Debug/net8.0/Calc.Tests.dll (.NETCoreApp,Version=v8.0)
Starting test execution, please wait...
A total of 1 test files matched the specified pattern.
  Failed Calc.Tests.CalcTests.Subtracts [4 ms]
  Error Message:
   Assert.Equal() Failure: Values differ
Expected: 2
Actual:   8
  Stack Trace:
     at Calc.Tests.CalcTests.Subtracts() in /work/Calc.Tests/CalcTests.cs:line 14
   at System.RuntimeMethodHandle.InvokeMethod(Object target, Void** arguments, Signature sig, Boolean isConstructor)
   at System.Reflection.MethodBaseInvoker.InvokeWithNoArgs(Object obj, BindingFlags invokeAttr)

Failed!  - Failed:     1, Passed:     4, Skipped:     0, Total:     5, Duration: 12 ms - Calc.Tests.dll (net8.0)
`
		res := sample(t, "csharp.test", out, "", 1)
		wantTests(t, res, 4, 1, 0, "Calc.Tests.CalcTests.Subtracts")
		wantDiagnostic(t, res.Diagnostics, diag{File: "Calc.Tests/CalcTests.cs", Line: 14, Severity: "error", Message: "Calc.Tests.CalcTests.Subtracts"})
		if f := res.Tests.Failures[0]; f.File != "Calc.Tests/CalcTests.cs" || f.Line != 14 {
			t.Errorf("failure = %+v, want Calc.Tests/CalcTests.cs:14", f)
		}
	})

	t.Run("test sums projects", func(t *testing.T) {
		// Sample: the closing lines of dotnet test over a solution with two test projects.
		out := "Passed!  - Failed:     0, Passed:     5, Skipped:     0, Total:     5, Duration: 31 ms - Calc.Tests.dll (net8.0)\n" +
			"Passed!  - Failed:     0, Passed:    12, Skipped:     2, Total:    14, Duration: 88 ms - Web.Tests.dll (net8.0)\n"
		res := sample(t, "csharp.test", out, "", 0)
		wantTests(t, res, 17, 0, 2)
	})

	t.Run("format check", func(t *testing.T) {
		// Sample: dotnet format --verify-no-changes.
		out := `/work/App/Program.cs(5,1): error WHITESPACE: Fix whitespace formatting. Replace 9 characters with '\n\s\s\s\s\s\s\s\s'. [/work/App/App.csproj]
/work/App/Program.cs(1,1): error IMPORTS: Fix imports ordering. [/work/App/App.csproj]
/work/App/Program.cs(8,13): warning IDE0059: Unnecessary assignment of a value to 'x' [/work/App/App.csproj]
`
		res := sample(t, "csharp.format_check", out, "", 2)
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 5, Column: 1, Severity: "error", Code: "WHITESPACE", Message: "Fix whitespace formatting."})
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 1, Column: 1, Severity: "error", Code: "IMPORTS", Message: "Fix imports ordering."})
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 8, Column: 13, Severity: "warning", Code: "IDE0059", Message: "Unnecessary assignment of a value to 'x'"})
		wantCounts(t, res, map[string]int{"changes": 2})
	})

	t.Run("semantic block", func(t *testing.T) {
		f, ok := shipped(t).Language("csharp")
		if !ok {
			t.Fatal("no csharp spec")
		}
		s := f.Semantic
		if s == nil || !s.ProjectOperations || len(s.Candidates) != 2 {
			t.Fatalf("semantic = %+v", s)
		}
		// roslyn-language-server when installed, else csharp-ls with its
		// own dialect.
		roslyn, csls := s.Candidates[0], s.Candidates[1]
		if roslyn.Command != "roslyn-language-server" || roslyn.Dialect != "roslyn" {
			t.Errorf("first server = %+v", roslyn)
		}
		wantArgs := []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", ".langhost/roslyn-logs"}
		if !slices.Equal(roslyn.Args, wantArgs) {
			t.Errorf("args = %q, want %q", roslyn.Args, wantArgs)
		}
		if csls.Command != "csharp-ls" || csls.Dialect != "csharp-ls" || len(csls.Args) != 0 || csls.Install != "pkg:nuget/csharp-ls@0.28.0" {
			t.Errorf("second server = %+v", csls)
		}
		for _, srv := range s.Candidates {
			if !slices.Equal(srv.RootMarkers, []string{"*.sln", "*.slnx", "*.csproj"}) {
				t.Errorf("%s: rootMarkers = %q", srv.Name, srv.RootMarkers)
			}
			if srv.LanguageIDs[".cs"] != "csharp" || time.Duration(srv.ReadyTimeout) != 3*time.Minute {
				t.Errorf("%s: languageIds = %v, readyTimeout = %v", srv.Name, srv.LanguageIDs, time.Duration(srv.ReadyTimeout))
			}
		}
	})
}
