package parsers

import (
	"bytes"
	"strings"
	"testing"
)

// collect writes chunks to a LineWriter with the given cap and returns the lines.
func collect(max int, chunks ...string) []string {
	var lines []string
	w := NewLineWriter(max, func(line []byte) { lines = append(lines, string(line)) })
	for _, c := range chunks {
		w.Write([]byte(c))
	}
	w.Close()
	return lines
}

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		chunks []string
		want   []string
	}{
		{"simple", 0, []string{"a\nb\n"}, []string{"a", "b"}},
		{"unterminated last line", 0, []string{"a\nb"}, []string{"a", "b"}},
		{"partial lines across writes", 0, []string{"ab", "c\nd", "e", "\nf"}, []string{"abc", "de", "f"}},
		{"crlf", 0, []string{"a\r\nb\r\n"}, []string{"a", "b"}},
		{"crlf split between writes", 0, []string{"a\r", "\nb\r", "\n"}, []string{"a", "b"}},
		{"lone cr kept inside line", 0, []string{"50%\r100%\n"}, []string{"50%\r100%"}},
		{"empty lines", 0, []string{"\n\r\n\n"}, []string{"", "", ""}},
		{"long line cut", 4, []string{"abcdefgh\nxy\n"}, []string{"abcd", "xy"}},
		{"long line cut across writes", 4, []string{"ab", "cdef", "gh\r", "\nxy"}, []string{"abcd", "xy"}},
		{"line of cap plus cr", 4, []string{"abcd\r\n"}, []string{"abcd"}},
		{"nothing", 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := collect(tt.max, tt.chunks...)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLineWriterBoundedMemory(t *testing.T) {
	var n, longest int
	w := NewLineWriter(1<<10, func(line []byte) {
		n++
		longest = max(longest, len(line))
	})
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for range 256 { // one 16 MiB line
		w.Write(chunk)
	}
	if cap(w.buf) > 2<<10 {
		t.Errorf("buffer grew to %d bytes for a 1 KiB cap", cap(w.buf))
	}
	w.Write([]byte("\nshort\n"))
	if n != 2 || longest != 1<<10 {
		t.Errorf("got %d lines, longest %d; want 2 lines, longest 1024", n, longest)
	}
}

// referenceLines is the obvious, whole-input definition of LineWriter.
func referenceLines(data []byte, max int) []string {
	if len(data) == 0 {
		return nil
	}
	parts := strings.Split(string(data), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		p = strings.TrimSuffix(p, "\r")
		if len(p) > max {
			p = p[:max]
		}
		parts[i] = p
	}
	return parts
}

func FuzzLineWriter(f *testing.F) {
	f.Add([]byte("a\r\nbb\nccc"), uint8(3), uint8(2))
	f.Add([]byte("\r\r\n\n"), uint8(1), uint8(1))
	f.Add([]byte("abcdefgh\r\n"), uint8(5), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, chunk, max uint8) {
		maxLine := int(max%16) + 1
		step := int(chunk%7) + 1
		var got []string
		w := NewLineWriter(maxLine, func(line []byte) {
			if len(line) > maxLine {
				t.Fatalf("line of %d bytes exceeds cap %d", len(line), maxLine)
			}
			got = append(got, string(line))
		})
		for i := 0; i < len(data); i += step {
			w.Write(data[i:min(i+step, len(data))])
		}
		w.Flush()
		want := referenceLines(data, maxLine)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("lines = %q, want %q", got, want)
		}
	})
}
