package languages_test

import (
	"strings"
	"testing"
)

// Elm's tools cannot be installed on this machine (the elm npm package
// downloads its binary at install time), so the Elm parsers are tested on
// output samples in the real tools' formats.
func TestElmSamples(t *testing.T) {
	t.Parallel()

	// Sample: elm 0.19.1 make src/Main.elm --output=/dev/null with two problems.
	makeOut := `Detected problems in 1 module.
-- NAMING ERROR ------------------------------------------------------ src/Main.elm

I cannot find a ` + "`tex`" + ` variable:

8|     tex "Hello"
       ^^^
These names seem close though:

    text
    Html.text

Hint: Read <https://elm-lang.org/0.19.1/imports> to see how ` + "`import`" + `
declarations work in Elm.

-- TYPE MISMATCH ----------------------------------------------------- src/Main.elm

The 1st argument to ` + "`add`" + ` is not what I expect:

12| total = add "1" 2
                ^^^
This argument is a string of type:

    String

But ` + "`add`" + ` needs the 1st argument to be:

    Int

`

	t.Run("make", func(t *testing.T) {
		res := sample(t, "elm.make", "", makeOut, 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/Main.elm", Line: 8, Severity: "error", Message: "NAMING ERROR\nI cannot find a `tex` variable:"})
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/Main.elm", Line: 12, Severity: "error", Message: "TYPE MISMATCH\nThe 1st argument to `add` is not what I expect:"})
		if len(res.Diagnostics) != 2 {
			t.Fatalf("want 2 diagnostics, got:\n%s", formatDiags(res.Diagnostics))
		}
		for _, d := range res.Diagnostics {
			if strings.Contains(d.Message, "^^^") || strings.Contains(d.Message, "8|") {
				t.Errorf("code or caret lines in message %q", d.Message)
			}
		}
		problems, _ := res.Outputs["problems"].([]any)
		if len(problems) != 2 || problems[1].(map[string]any)["title"] != "TYPE MISMATCH" {
			t.Errorf("problems = %v", res.Outputs["problems"])
		}
		wantCounts(t, res, map[string]int{"modules.count": 1})
	})

	t.Run("test", func(t *testing.T) {
		// Sample: elm-test 0.19.1-revision12 with one failing test.
		out := `elm-test 0.19.1-revision12
--------------------------

Running 3 tests. To reproduce these results, run: elm-test --fuzz 100 --seed 402781577


↓ CalcTest
↓ sub
✗ subtracts

    8
    ╷
    │ Expect.equal
    ╵
    2



TEST RUN FAILED

Duration: 182 ms
Passed:   2
Failed:   1
`
		res := sample(t, "elm.test", out, "", 2)
		wantTests(t, res, 2, 1, 0, "subtracts")
	})

	t.Run("format check", func(t *testing.T) {
		// Sample: elm-format 0.8.7 --validate src prints a JSON list.
		out := `[{"path":"src/Main.elm","message":"File is not formatted with elm-format-0.8.7 --elm-version=0.19"}]` + "\n"
		res := sample(t, "elm.format_check", out, "", 1)
		wantDiagnostic(t, res.Diagnostics, diag{File: "src/Main.elm", Severity: "warning", Message: "File is not formatted with elm-format"})
		wantFiles(t, res, "src/Main.elm")
	})
}
