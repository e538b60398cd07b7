package parsers

import (
	"strings"
	"testing"
)

// goTestJSON is `go test -json -fullpath ./...` (go1.26) over a module
// whose root package does not build and whose sub package has a failing
// subtest, followed by a passing and a skipped test of a third package.
const goTestJSON = `{"ImportPath":"ex.com/b","Action":"build-output","Output":"# ex.com/b\n"}
{"ImportPath":"ex.com/b","Action":"build-output","Output":"./b.go:3:23: undefined: x\n"}
{"ImportPath":"ex.com/b","Action":"build-fail"}
{"Action":"output","Package":"ex.com/b","Output":"FAIL\tex.com/b [build failed]\n"}
{"Action":"fail","Package":"ex.com/b","Elapsed":0,"FailedBuild":"ex.com/b"}
{"Action":"run","Package":"ex.com/b/sub","Test":"TestP"}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP","Output":"=== RUN   TestP\n"}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP/inner","Output":"=== RUN   TestP/inner\n"}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP/inner","Output":"    /ws/sub/s_test.go:6: deep\n"}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP/inner","Output":"    /ws/sub/s_test.go:7: second line of the same test\n"}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP/inner","Output":"--- FAIL: TestP/inner (0.00s)\n"}
{"Action":"fail","Package":"ex.com/b/sub","Test":"TestP/inner","Elapsed":0}
{"Action":"output","Package":"ex.com/b/sub","Test":"TestP","Output":"--- FAIL: TestP (0.00s)\n"}
{"Action":"fail","Package":"ex.com/b/sub","Test":"TestP","Elapsed":0}
{"Action":"fail","Package":"ex.com/b/sub","Elapsed":0.184}
{"Action":"run","Package":"ex.com/b/ok","Test":"TestA"}
{"Action":"pass","Package":"ex.com/b/ok","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"ex.com/b/ok","Test":"TestS","Output":"    /ws/ok/ok_test.go:9: not yet\n"}
{"Action":"skip","Package":"ex.com/b/ok","Test":"TestS","Elapsed":0}
{"Action":"pass","Package":"ex.com/b/ok","Elapsed":0.01}
`

func TestGotest(t *testing.T) {
	res := run(t, Spec{Type: KindGotest}, goTestJSON, 1)
	got, ok := res.Value.(TestReport)
	if !ok {
		t.Fatalf("value %T, want TestReport", res.Value)
	}
	want := `{"passed":1,"failed":3,"skipped":1,"failures":[` +
		`{"name":"ex.com/b","message":"build failed"},` +
		`{"name":"TestP/inner","file":"/ws/sub/s_test.go","line":6,"message":"deep"}]}`
	if s := asJSON(t, got); s != want {
		t.Errorf("report\n got %s\nwant %s", s, want)
	}
	wantDiags := `[{"path":"./b.go","line":3,"column":23,"severity":"error","message":"undefined: x","source":"go test"},` +
		`{"path":"/ws/sub/s_test.go","line":6,"column":0,"severity":"error","message":"TestP/inner: deep","source":"go test"}]`
	if s := asJSON(t, res.Diagnostics); s != wantDiags {
		t.Errorf("diagnostics\n got %s\nwant %s", s, wantDiags)
	}
}

func TestGotestHostile(t *testing.T) {
	tests := []struct {
		name, out string
		want      string
	}{
		{"not JSON", "ok  \tex.com/b\t0.1s\n--- FAIL: TestX\n{broken\n[1]\n", `{"passed":0,"failed":0,"skipped":0,"failures":[]}`},
		{"wrong types", `{"Action":1,"Test":["x"]}` + "\n" + `{"Action":"fail","Test":{"a":1}}` + "\n", `{"passed":0,"failed":0,"skipped":0,"failures":[]}`},
		{"end without start", `{"Action":"fail","Package":"p","Test":"TestGhost"}` + "\n", `{"passed":0,"failed":1,"skipped":0,"failures":[{"name":"TestGhost"}]}`},
		{"package fails without tests", `{"Action":"fail","Package":"p"}` + "\n", `{"passed":0,"failed":1,"skipped":0,"failures":[{"name":"p","message":"failed with no failing test (a panic, or os.Exit in TestMain)"}]}`},
	}
	for _, tt := range tests {
		res := run(t, Spec{Type: KindGotest}, tt.out, 1)
		if s := asJSON(t, res.Value); s != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, s, tt.want)
		}
	}
}

// TestGotestBounded: a run with more failures than maxMatches keeps
// maxMatches of them but counts all, and a test that logs forever keeps
// one location.
func TestGotestBounded(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		b.WriteString(`{"Action":"output","Package":"p","Test":"TestLoud","Output":"    /ws/a_test.go:1: ` + strings.Repeat("x", 100) + `\n"}` + "\n")
		b.WriteString(`{"Action":"fail","Package":"p","Test":"TestF` + string(rune('a'+i%26)) + `"}` + "\n")
	}
	b.WriteString(`{"Action":"output","Package":"p","Test":"TestLong","Output":"    /ws/a_test.go:2: ` + strings.Repeat("y", 3*maxValueBytes) + `\n"}` + "\n")
	b.WriteString(`{"Action":"fail","Package":"p","Test":"TestLong"}` + "\n")
	res := run(t, Spec{Type: KindGotest, MaxMatches: 10}, b.String(), 1)
	got := res.Value.(TestReport)
	if got.Failed != 5001 || len(got.Failures) != 10 {
		t.Errorf("failed %d with %d listed, want 5001 with 10", got.Failed, len(got.Failures))
	}
	if len(res.Diagnostics) > 10 {
		t.Errorf("%d diagnostics, want at most 10", len(res.Diagnostics))
	}
}

// BenchmarkGotest measures the gotest parser over a large event stream
// (MB/s of go test -json output).
func BenchmarkGotest(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		sb.WriteString(goTestJSON)
	}
	out := []byte(sb.String())
	p, err := Compile("tests", Spec{Type: KindGotest})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		r := p.Start()
		w := NewLineWriter(0, func(line []byte) { r.Line(Stdout, line) })
		w.Write(out)
		w.Flush()
		if _, err := r.Finish(1); err != nil {
			b.Fatal(err)
		}
	}
}
