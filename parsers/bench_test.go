package parsers

import (
	"io"
	"runtime"
	"strconv"
	"testing"
)

// logSize is the size of the synthetic compiler log.
const logSize = 100 << 20

// writeLog writes about size bytes of a synthetic build log to w in 32 KiB
// chunks, as an exec.Cmd copy loop would: mostly ordinary progress lines,
// one error and one warning per 100 lines. It returns the bytes written
// and the number of error lines.
func writeLog(w io.Writer, size int) (written, errors int) {
	buf := make([]byte, 0, 32<<10)
	for i := 0; written < size; i++ {
		n := strconv.AppendInt(nil, int64(i), 10)
		switch i % 100 {
		case 7:
			errors++
			buf = append(buf, "src/net/conn_"...)
			buf = append(buf, n...)
			buf = append(buf, ".c:"...)
			buf = append(buf, n...)
			buf = append(buf, ":17: error: expected ';' before '}' token\n"...)
		case 42:
			buf = append(buf, "src/net/conn_"...)
			buf = append(buf, n...)
			buf = append(buf, ".c:12:5: warning: unused variable 'tmp' [-Wunused-variable]\n"...)
		case 3, 53:
			buf = append(buf, "make[2]: Entering directory '/home/build/project/src/net'\r\n"...)
		default:
			buf = append(buf, "  CC       src/net/module_"...)
			buf = append(buf, n...)
			buf = append(buf, ".o   (gcc -O2 -Wall -fPIC -Iinclude -DNDEBUG)\n"...)
		}
		if len(buf) >= 32<<10-256 {
			w.Write(buf)
			written += len(buf)
			buf = buf[:0]
		}
	}
	return written, errors
}

// benchLog returns a materialised log so the benchmark times parsing only.
func benchLog(b *testing.B) [][]byte {
	var chunks [][]byte
	writeLog(chunkWriter{&chunks}, logSize)
	return chunks
}

type chunkWriter struct{ chunks *[][]byte }

func (c chunkWriter) Write(p []byte) (int, error) {
	*c.chunks = append(*c.chunks, append([]byte(nil), p...))
	return len(p), nil
}

func benchParser(b *testing.B, spec Spec) {
	p := mustCompile(b, "out", spec)
	chunks := benchLog(b)
	size := 0
	for _, c := range chunks {
		size += len(c)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := p.Start()
		w := NewLineWriter(0, func(line []byte) { r.Line(Stdout, line) })
		for _, c := range chunks {
			w.Write(c)
		}
		w.Flush()
		if _, err := r.Finish(0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineWriter(b *testing.B) {
	chunks := benchLog(b)
	size := 0
	for _, c := range chunks {
		size += len(c)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		n := 0
		w := NewLineWriter(0, func(line []byte) { n++ })
		for _, c := range chunks {
			w.Write(c)
		}
		w.Flush()
	}
}

func BenchmarkLineMatch(b *testing.B) {
	benchParser(b, Spec{Type: KindLineMatch, Pattern: ": error: "})
}

func BenchmarkLineMatchIgnoreCase(b *testing.B) {
	benchParser(b, Spec{Type: KindLineMatch, Pattern: ": ERROR: ", IgnoreCase: true})
}

func BenchmarkRegexAll(b *testing.B) {
	benchParser(b, Spec{Type: KindRegex, Mode: ModeAll, Pattern: `^(\S+):(\d+):(\d+): error: (.*)$`, Groups: []string{"file", "line", "column", "message"}})
}

func BenchmarkRegexSumIgnoreCase(b *testing.B) {
	benchParser(b, Spec{Type: KindRegex, Mode: ModeSum, IgnoreCase: true, Pattern: `:(\d+):\d+: ERROR:`, Groups: []string{"lines"}})
}

func BenchmarkDiagnosticsGCCPreset(b *testing.B) {
	benchParser(b, Spec{Type: KindDiagnostics, Preset: "gcc"})
}

func BenchmarkDiagnosticsErrorformat(b *testing.B) {
	benchParser(b, Spec{Type: KindDiagnostics, Errorformat: []string{`%f:%l:%c: %trror: %m`, `%f:%l:%c: %tarning: %m`, `%-G%.%#`}})
}

func BenchmarkSetWriters(b *testing.B) {
	set := NewSet(map[string]*Parser{
		"errors":   mustCompile(b, "errors", Spec{Type: KindLineMatch, Pattern: ": error: "}),
		"warnings": mustCompile(b, "warnings", Spec{Type: KindLineMatch, Pattern: ": WARNING: ", IgnoreCase: true}),
		"diags":    mustCompile(b, "diags", Spec{Type: KindDiagnostics, Preset: "gcc"}),
		"success":  mustCompile(b, "success", Spec{Type: KindExitCode}),
	})
	chunks := benchLog(b)
	size := 0
	for _, c := range chunks {
		size += len(c)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		r := set.Start()
		w := r.Writer(Stderr)
		for _, c := range chunks {
			w.Write(c)
		}
		if _, _, err := r.Finish(1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLargeOutputBoundedMemory streams 100 MB through a Set and checks
// that counts cover everything while kept values and the heap stay capped.
func TestLargeOutputBoundedMemory(t *testing.T) {
	size := logSize
	if testing.Short() {
		size = 10 << 20
	}
	set := NewSet(map[string]*Parser{
		"errors": mustCompile(t, "errors", Spec{Type: KindLineMatch, Pattern: ": error: "}),
		"all":    mustCompile(t, "all", Spec{Type: KindRegex, Mode: ModeAll, Pattern: `:(\d+):17: error`, Groups: []string{"line"}}),
		"diags":  mustCompile(t, "diags", Spec{Type: KindDiagnostics, Preset: "gcc", MaxMatches: 50}),
	})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	r := set.Start()
	_, errorLines := writeLog(r.Writer(Stdout), size)
	outputs, diags, err := r.Finish(1)
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)

	errs := outputs["errors"].(map[string]any)
	if errs["count"] != errorLines || len(errs["lines"].([]string)) != DefaultMaxMatches || errs["truncated"] != true {
		t.Errorf("errors: count %v (want %d), %d lines kept (want %d), truncated %v",
			errs["count"], errorLines, len(errs["lines"].([]string)), DefaultMaxMatches, errs["truncated"])
	}
	if n := len(outputs["all"].([]any)); n != DefaultMaxMatches {
		t.Errorf("regex all kept %d matches, want %d", n, DefaultMaxMatches)
	}
	if len(diags) != 50 {
		t.Errorf("%d diagnostics kept, want 50", len(diags))
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Errorf("heap grew by %d MiB while parsing %d MiB", grew>>20, size>>20)
	}
	runtime.KeepAlive(outputs)
}

// BenchmarkRegexNoLiteral is the worst case: no literal to prefilter on,
// so the regexp runs on every line.
func BenchmarkRegexNoLiteral(b *testing.B) {
	benchParser(b, Spec{Type: KindRegex, Mode: ModeLast, Pattern: `^\s+(\w+)\s+(\S+)`, Groups: []string{"step", "target"}})
}
