package languages_test

import (
	"github.com/langhost/langhost/plugins/builtin/builtintest"
	"os"
	"path/filepath"
	"testing"
)

func TestJavaTools(t *testing.T) {
	t.Parallel()
	builtintest.RequireTools(t, "javac", "java")

	t.Run("compile reports errors and lint warnings", func(t *testing.T) {
		dir := fixture(t, "java/broken")
		res := call(t, newHost(t, dir), "java.compile", map[string]any{"path": "src/app/App.java", "sourcepath": "src"})
		wantOK(t, res, false)
		file := "src/app/App.java"
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 10, Column: 21, Severity: "error", Message: "incompatible types: String cannot be converted to int"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 11, Column: 50, Severity: "error", Message: "cannot find symbol"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 8, Column: 9, Severity: "warning", Message: "[rawtypes] found raw type: List"})
		wantDiagnostic(t, res.Diagnostics, diag{File: file, Line: 9, Column: 18, Severity: "warning", Message: "[unchecked] unchecked call to add(E)"})
		if len(res.Diagnostics) != 5 {
			t.Errorf("want 5 diagnostics, got:\n%s", formatDiags(res.Diagnostics))
		}
		wantCounts(t, res, map[string]int{"errors.count": 2, "warnings.count": 3})
	})

	t.Run("compile writes classes", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "src", "Hello.java"), "public class Hello {\n    public static void main(String[] args) {}\n}\n")
		res := call(t, newHost(t, dir), "java.compile", map[string]any{"path": "src/Hello.java"})
		wantOK(t, res, true)
		if _, err := os.Stat(filepath.Join(dir, "build", "classes", "Hello.class")); err != nil {
			t.Errorf("no class file: %v", err)
		}
	})

	t.Run("run passes arguments and reports exceptions and compile errors", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "Echo.java"), "public class Echo {\n    public static void main(String[] args) {\n        System.out.println(String.join(\"|\", args));\n    }\n}\n")
		writeFile(t, filepath.Join(dir, "Crash.java"), "public class Crash {\n    public static void main(String[] args) {\n        int zero = args.length;\n        System.out.println(10 / zero);\n    }\n}\n")
		writeFile(t, filepath.Join(dir, "Bad.java"), "public class Bad {\n    public static void main(String[] args) {\n        int x = \"s\";\n    }\n}\n")
		h := newHost(t, dir)

		res := call(t, h, "java.run", map[string]any{"script": "Echo.java", "args": []any{"a", "b c"}})
		wantOK(t, res, true)
		if res.Stdout != "a|b c\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}

		crash := call(t, h, "java.run", map[string]any{"script": "Crash.java"})
		wantOK(t, crash, false)
		wantDiagnostic(t, crash.Diagnostics, diag{File: "Crash.java", Line: 4, Severity: "error", Message: "java.lang.ArithmeticException: / by zero"})

		bad := call(t, h, "java.run", map[string]any{"script": "Bad.java"})
		wantOK(t, bad, false)
		wantDiagnostic(t, bad.Diagnostics, diag{File: "Bad.java", Line: 3, Column: 17, Severity: "error", Message: "incompatible types: String cannot be converted to int"})
	})
}

// Maven runs offline here with no local repository and gradle and
// google-java-format are not installed, so their parsers are tested on
// output samples in the real tools' formats.
func TestJavaSamples(t *testing.T) {
	t.Parallel()

	t.Run("maven compile", func(t *testing.T) {
		// Sample: Maven 3.9 -B compile with maven-compiler-plugin 3.13.
		out := `[INFO] --- compiler:3.13.0:compile (default-compile) @ calc ---
[INFO] Recompiling the module because of changed source code.
[INFO] Compiling 2 source files with javac [debug target 17] to target/classes
[WARNING] /work/calc/src/main/java/app/Names.java:[8,9] found raw type: java.util.List
[INFO] -------------------------------------------------------------
[ERROR] COMPILATION ERROR :
[INFO] -------------------------------------------------------------
[ERROR] /work/calc/src/main/java/app/App.java:[10,21] incompatible types: java.lang.String cannot be converted to int
[INFO] 1 error
[INFO] -------------------------------------------------------------
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project calc: Compilation failure
[ERROR] /work/calc/src/main/java/app/App.java:[10,21] incompatible types: java.lang.String cannot be converted to int
`
		res := sample(t, "java.build", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "calc/src/main/java/app/App.java", Line: 10, Column: 21, Severity: "error", Message: "incompatible types: java.lang.String cannot be converted to int"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "calc/src/main/java/app/Names.java", Line: 8, Column: 9, Severity: "warning", Message: "found raw type: java.util.List"})
		if len(res.Diagnostics) != 2 {
			t.Errorf("want 2 diagnostics (the summary repeats the error), got:\n%s", formatDiags(res.Diagnostics))
		}
		if got := res.Outputs["result"].(map[string]any)["status"]; got != "BUILD FAILURE" {
			t.Errorf("result = %v, want BUILD FAILURE", got)
		}
	})

	t.Run("gradle compile", func(t *testing.T) {
		// Sample: Gradle 8 --console=plain classes (the fallback).
		out := `> Task :compileJava FAILED
/work/calc/src/main/java/app/App.java:10: error: incompatible types: String cannot be converted to int
        int count = "three";
                    ^
1 error

FAILURE: Build failed with an exception.
`
		res := sample(t, "java.build", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "calc/src/main/java/app/App.java", Line: 10, Column: 21, Severity: "error", Message: "incompatible types: String cannot be converted to int"})
	})

	t.Run("surefire", func(t *testing.T) {
		// Sample: Maven 3.9 -B test with Surefire 3.2 and JUnit 5.
		out := `[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running app.CalcTest
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 1, Time elapsed: 0.041 s <<< FAILURE! -- in app.CalcTest
[ERROR] app.CalcTest.subtracts -- Time elapsed: 0.006 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <2> but was: <8>
	at app.CalcTest.subtracts(CalcTest.java:14)
[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   CalcTest.subtracts:14 expected: <2> but was: <8>
[INFO]
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 1
[INFO]
[INFO] BUILD FAILURE
`
		res := sample(t, "java.test", out, "", 1)
		wantTests(t, res, 2, 1, 1, "CalcTest.subtracts")
		if f := res.Tests.Failures[0]; f.Line != 14 || f.Message != "expected: <2> but was: <8>" {
			t.Errorf("failure = %+v", f)
		}
	})

	t.Run("gradle test", func(t *testing.T) {
		// Sample: gradle --console=plain test (the fallback) with one failing and one skipped test.
		out := `> Task :compileJava
> Task :test FAILED

CalcTest > subtracts() FAILED
    org.opentest4j.AssertionFailedError at CalcTest.java:14

3 tests completed, 1 failed, 1 skipped

FAILURE: Build failed with an exception.
`
		res := sample(t, "java.test", out, "", 1)
		wantTests(t, res, 1, 1, 1, "CalcTest > subtracts()")
	})

	t.Run("google-java-format", func(t *testing.T) {
		// Sample: google-java-format --dry-run --set-exit-if-changed lists the files it would change.
		res := sample(t, "java.format_check", "src/main/java/app/App.java\n", "", 1)
		wantFiles(t, res, "src/main/java/app/App.java")
	})
}
