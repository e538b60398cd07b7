package languages_test

import (
	"slices"
	"testing"
	"time"
)

// The .NET SDK cannot be installed on this machine, so the C# parsers are
// tested on output samples in the real dotnet CLI's formats.
func TestCSharpSamples(t *testing.T) {
	t.Parallel()

	t.Run("build", func(t *testing.T) {
		// Sample: dotnet build --nologo -clp:NoSummary (SDK 8/9, classic console logger).
		out := `  Determining projects to restore...
  All projects are up-to-date for restore.
/work/App/Program.cs(7,13): warning CS0168: The variable 'unused' is declared but never used [/work/App/App.csproj]
/work/App/Program.cs(10,17): error CS0103: The name 'missing' does not exist in the current context [/work/App/App.csproj]
`
		res := sample(t, "csharp.build", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 10, Column: 17, Severity: "error", Code: "CS0103", Message: "The name 'missing' does not exist in the current context"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "App/Program.cs", Line: 7, Column: 13, Severity: "warning", Code: "CS0168", Message: "The variable 'unused' is declared but never used"})
		wantCounts(t, res, map[string]int{"errors": 1, "warnings": 1})
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
		if csls.Command != "csharp-ls" || csls.Dialect != "csharp-ls" || len(csls.Args) != 0 || csls.Install != "pkg:nuget/csharp-ls" {
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
