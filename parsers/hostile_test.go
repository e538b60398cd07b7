package parsers

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
)

var endlessEntrySpec = Spec{Type: KindDiagnostics, Errorformat: []string{
	`%E%f:%l:%c: error: %m`, `%C  %m`, `%-G%.%#`}}

// endlessEntry writes one multi-line entry with n continuation lines, then
// a second entry.
func endlessEntry(w io.Writer, n int) {
	io.WriteString(w, "a.c:1:2: error: first\n")
	line := []byte("  continuation of the first entry\n")
	for range n {
		w.Write(line)
	}
	io.WriteString(w, "b.c:3:4: error: second\n")
}

// TestErrorformatEndlessEntry: an entry whose continuation lines never end
// used to be copied in full on every line (quadratic time; a megabyte took
// half a minute). Now it ends after 200 lines, and the entries
// after it are still found.
func TestErrorformatEndlessEntry(t *testing.T) {
	p := mustCompile(t, "efm", endlessEntrySpec)
	r := NewSet(map[string]*Parser{"efm": p}).Start()
	endlessEntry(r.Writer(Stdout), 100_000)
	_, diags, err := r.Finish(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 2 || diags[0].Path != "a.c" || diags[1].Path != "b.c" || diags[1].Message != "second" {
		t.Fatalf("diagnostics = %+v", diags)
	}
	if n := strings.Count(diags[0].Message, "\n") + 1; n > efmEntryLines {
		t.Errorf("the endless entry kept %d lines, want at most %d", n, efmEntryLines)
	}
	if !strings.HasPrefix(diags[0].Message, "first\ncontinuation of the first entry\n") {
		t.Errorf("message starts %q", diags[0].Message[:min(len(diags[0].Message), 80)])
	}
}

// TestErrorformatBoundedMemory: a scanner keeps every entry it produced,
// so one scanner over all of a long output held all of it. Entries across
// scanner replacements are all found, in order.
func TestErrorformatBoundedMemory(t *testing.T) {
	size := 64 << 20
	if testing.Short() {
		size = 16 << 20
	}
	p := mustCompile(t, "efm", Spec{Type: KindDiagnostics, MaxMatches: 5000,
		Errorformat: []string{`%E%f:%l:%c: error: %m`, `%Z  note: %m`, `%-G%.%#`}})
	// The heap is measured while the output streams: what a scanner
	// holds is freed when it ends.
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before, peak := heap(), int64(0)

	r := NewSet(map[string]*Parser{"efm": p}).Start()
	w := r.Writer(Stdout)
	var entry bytes.Buffer
	written, next := 0, 8<<20
	for i := 0; written < size; i++ {
		entry.Reset()
		fmt.Fprintf(&entry, "src/file%d.c:%d:7: error: something is wrong with line %d of a fairly long message\n  note: %d\n", i, i+1, i, i)
		written += entry.Len()
		w.Write(entry.Bytes())
		if written > next {
			peak, next = max(peak, heap()-before), next+8<<20
		}
	}
	_, diags, err := r.Finish(1)
	if err != nil {
		t.Fatal(err)
	}

	if len(diags) != 5000 {
		t.Fatalf("%d diagnostics, want 5000", len(diags))
	}
	for i, d := range diags {
		if d.Line != i+1 || d.Path != fmt.Sprintf("src/file%d.c", i) {
			t.Fatalf("diagnostic %d = %+v", i, d)
		}
	}
	if peak > 16<<20 {
		t.Errorf("heap grew by %d MiB while parsing %d MiB", peak>>20, size>>20)
	}
	runtime.KeepAlive(diags)
}

// TestPositionsDoNotWrap: positions at the edge of int (or beyond it, as
// JSON floats) are not turned into negative numbers.
func TestPositionsDoNotWrap(t *testing.T) {
	zero := 0
	maxInt := fmt.Sprint(math.MaxInt)
	tests := []struct {
		name string
		spec Spec
		out  string
	}{
		{"pattern, 0-based", Spec{Type: KindDiagnostics, LineBase: &zero,
			Pattern: `^(?P<file>\w+):(?P<line>\d+):(?P<column>\d+): (?P<message>.+)$`},
			"a:" + maxInt + ":" + maxInt + ": m\n"},
		{"json float", Spec{Type: KindJSON, Path: "$[*]", Fields: map[string]string{"line": "$.l", "column": "$.c", "message": "$.m"}},
			`[{"l": 1e300, "c": 9.3e18, "m": "x"}]`},
		{"json int, 0-based", Spec{Type: KindJSON, Path: "$[*]", LineBase: &zero, Fields: map[string]string{"line": "$.l", "message": "$.m"}},
			`[{"l": ` + maxInt + `, "m": "x"}]`},
	}
	for _, tt := range tests {
		res := run(t, tt.spec, tt.out, 1)
		if len(res.Diagnostics) != 1 {
			t.Fatalf("%s: diagnostics %+v", tt.name, res.Diagnostics)
		}
		if d := res.Diagnostics[0]; d.Line < 0 || d.Column < 0 {
			t.Errorf("%s: negative position in %+v", tt.name, d)
		}
	}
}

// BenchmarkErrorformatEndlessEntry measures the cost per byte of one
// endless multi-line entry, which was quadratic.
func BenchmarkErrorformatEndlessEntry(b *testing.B) {
	var buf bytes.Buffer
	endlessEntry(&buf, 30_000)
	p, err := Compile("efm", endlessEntrySpec)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		r := NewSet(map[string]*Parser{"efm": p}).Start()
		r.Writer(Stdout).Write(buf.Bytes())
		r.Finish(1)
	}
}

// TestMalformedJSONIsAnError: ojg's parser panicked on this output (found
// by FuzzParsers), which took the host down. It is a parse error now.
func TestMalformedJSONIsAnError(t *testing.T) {
	out := []string{`{"a": {"b":}, "c": 0}`, `{`}
	p := mustCompile(t, "json", Spec{Type: KindJSON, Path: "$.c"})
	r := p.Start()
	for _, line := range out {
		r.Line(Stdout, []byte(line))
	}
	if _, err := r.Finish(1); err == nil || !strings.Contains(err.Error(), "output is not JSON") {
		t.Errorf("json: err = %v", err)
	}
	p = mustCompile(t, "lines", Spec{Type: KindJSON, Path: "$.c", JSONLines: true})
	r = p.Start()
	for _, line := range append(out, `{"c": 1}`) {
		r.Line(Stdout, []byte(line))
	}
	res, err := r.Finish(1)
	if err != nil || asJSON(t, res.Value) != "[1]" {
		t.Errorf("jsonLines: value %v, err %v; want the good line's value", res.Value, err)
	}
}

// TestJSONInfinityIsNull: 1e999 parses to +Inf, which no JSON encoder
// takes, so the whole result of the run could not be sent.
func TestJSONInfinityIsNull(t *testing.T) {
	res := run(t, Spec{Type: KindJSON, Path: "$"}, `{"a": [1e999, -1e999, 2], "b": 1e400}`, 0)
	if got := asJSON(t, res.Value); got != `{"a":[null,null,2],"b":null}` {
		t.Errorf("value = %s", got)
	}
}
