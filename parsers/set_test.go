package parsers

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

func mustCompile(t testing.TB, name string, s Spec) *Parser {
	t.Helper()
	p, err := Compile(name, s)
	if err != nil {
		t.Fatalf("Compile %s: %v", name, err)
	}
	return p
}

func TestSetStreams(t *testing.T) {
	set := NewSet(map[string]*Parser{
		"all":     mustCompile(t, "all", Spec{Type: KindLineMatch, Pattern: "error"}),
		"out":     mustCompile(t, "out", Spec{Type: KindLineMatch, Pattern: "error", Stream: StreamStdout}),
		"err":     mustCompile(t, "err", Spec{Type: KindLineMatch, Pattern: "error", Stream: StreamStderr}),
		"report":  mustCompile(t, "report", Spec{Type: KindJSON, Path: "$.ok"}),
		"diags":   mustCompile(t, "diags", Spec{Type: KindDiagnostics, Preset: "go"}),
		"success": mustCompile(t, "success", Spec{Type: KindExitCode}),
	})
	r := set.Start()
	io.WriteString(r.Writer(Stdout), "{\"ok\": true,\n\"note\": \"error on stdout\"}\n")
	io.WriteString(r.Writer(Stderr), "./a.go:1:2: error on stderr\r\n./b.go:3:4: unterminated error")
	outputs, diags, err := r.Finish(2)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	counts := map[string]int{"all": 3, "out": 1, "err": 2}
	for name, want := range counts {
		if got := outputs[name].(map[string]any)["count"]; got != want {
			t.Errorf("%s count = %v, want %d", name, got, want)
		}
	}
	if outputs["report"] != true {
		t.Errorf("report = %v, want true (json reads stdout only)", outputs["report"])
	}
	if got := asJSON(t, outputs["success"]); got != `{"exit_code":2,"success":false}` {
		t.Errorf("success = %s", got)
	}
	if len(diags) != 2 || diags[1].Path != "./b.go" || diags[1].Message != "unterminated error" {
		t.Errorf("diagnostics = %+v, want the two stderr lines incl. the unterminated one", diags)
	}
}

func TestSetConcurrentStreams(t *testing.T) {
	set := NewSet(map[string]*Parser{
		"errors": mustCompile(t, "errors", Spec{Type: KindLineMatch, Pattern: "error", MaxMatches: 10}),
		"diags":  mustCompile(t, "diags", Spec{Type: KindDiagnostics, Preset: "gcc", MaxMatches: 5000}),
	})
	r := set.Start()
	var wg sync.WaitGroup
	for _, s := range []Stream{Stdout, Stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := r.Writer(s)
			for i := range 1000 {
				fmt.Fprintf(w, "%s.c:%d:1: error: e\n", s, i+1)
			}
		}()
	}
	wg.Wait()
	outputs, diags, err := r.Finish(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputs["errors"].(map[string]any)["count"]; got != 2000 {
		t.Errorf("count = %v, want 2000", got)
	}
	if len(diags) != 2000 {
		t.Errorf("%d diagnostics, want 2000", len(diags))
	}
	r.Line(Stdout, []byte("late error")) // ignored after Finish
}

func TestSetKeepsOtherOutputsWhenOneFails(t *testing.T) {
	set := NewSet(map[string]*Parser{
		"coverage": mustCompile(t, "coverage", Spec{Type: KindJSON, Path: "$.total"}),
		"errors":   mustCompile(t, "errors", Spec{Type: KindLineMatch, Pattern: "error"}),
	})
	r := set.Start()
	r.Line(Stdout, []byte("error: build failed"))
	outputs, _, err := r.Finish(1)
	if err == nil || !strings.Contains(err.Error(), `output "coverage"`) {
		t.Fatalf("err = %v, want the coverage parser's error", err)
	}
	if _, ok := outputs["coverage"]; ok {
		t.Error("failed output present in outputs")
	}
	if outputs["errors"].(map[string]any)["count"] != 1 {
		t.Errorf("errors = %v", outputs["errors"])
	}
}

func TestRunFiltersStream(t *testing.T) {
	r := mustCompile(t, "e", Spec{Type: KindLineMatch, Pattern: "x", Stream: StreamStderr}).Start()
	r.Line(Stdout, []byte("x"))
	r.Line(Stderr, []byte("x"))
	res, _ := r.Finish(0)
	if res.Value.(map[string]any)["count"] != 1 {
		t.Errorf("value = %v, want count 1", res.Value)
	}
}

func TestLongLinesAreClipped(t *testing.T) {
	long := "error " + strings.Repeat("é", maxValueBytes)
	res := run(t, Spec{Type: KindLineMatch, Pattern: "error"}, long+"\n", 0)
	line := res.Value.(map[string]any)["lines"].([]string)[0]
	if len(line) > maxValueBytes+len("…") || !strings.HasSuffix(line, "…") || !strings.HasPrefix(line, "error é") {
		t.Errorf("kept line of %d bytes, want clipped to %d with an ellipsis", len(line), maxValueBytes)
	}
	if !strings.HasSuffix(strings.TrimSuffix(line, "…"), "é") {
		t.Error("line cut inside a UTF-8 sequence")
	}
}

func TestFinishTwice(t *testing.T) {
	set := NewSet(map[string]*Parser{"d": mustCompile(t, "d", Spec{Type: KindDiagnostics, Errorformat: []string{"%f:%l: %m"}})})
	r := set.Start()
	r.Line(Stdout, []byte("a.go:1: x"))
	if _, diags, err := r.Finish(0); err != nil || len(diags) != 1 {
		t.Fatalf("Finish = %v, %v", diags, err)
	}
	if _, _, err := r.Finish(0); err == nil {
		t.Error("second Finish succeeded")
	}
	run := mustCompile(t, "d", Spec{Type: KindDiagnostics, Errorformat: []string{"%f:%l: %m"}}).Start()
	run.Finish(0)
	run.Line(Stdout, []byte("a.go:1: late"))
	if _, err := run.Finish(0); err == nil {
		t.Error("second Run.Finish succeeded")
	}
}
