package lsp

import (
	"errors"
	"testing"
)

func TestMapperRoundTrip(t *testing.T) {
	// "é" is one UTF-16 unit, "😀" two; columns count code points.
	m := NewMapper([]byte("ab\r\né😀x\n\nlast"))
	cases := []struct {
		line, col int
		want      Position
	}{
		{1, 1, Position{0, 0}},
		{1, 3, Position{0, 2}}, // just past "ab", before "\r\n"
		{2, 2, Position{1, 1}}, // before 😀
		{2, 3, Position{1, 3}}, // after 😀 (two units)
		{2, 4, Position{1, 4}},
		{3, 1, Position{2, 0}},
		{4, 5, Position{3, 4}},
	}
	for _, c := range cases {
		got, err := m.Position(c.line, c.col)
		if err != nil || got != c.want {
			t.Errorf("Position(%d,%d) = %v, %v; want %v", c.line, c.col, got, err, c.want)
		}
		if l, col := m.LineColumn(got); l != c.line || col != c.col {
			t.Errorf("LineColumn(%v) = %d:%d, want %d:%d", got, l, col, c.line, c.col)
		}
	}
	if _, err := m.Position(5, 1); !errors.Is(err, ErrLineOutOfRange) {
		t.Errorf("line 5: %v", err)
	}
	if _, err := m.Position(2, 5); !errors.Is(err, ErrColumnOutOfRange) {
		t.Errorf("column 5: %v", err)
	}
	if got := m.LineText(1); got != "ab" {
		t.Errorf("LineText(1) = %q", got)
	}
	if off, _ := m.Offset(Position{1, 3}); off != 4+2+4 {
		t.Errorf("Offset after emoji = %d", off)
	}
}

func TestApplyEdits(t *testing.T) {
	in := []byte("hello wörld\nsecond\n")
	out, err := ApplyEdits(in, []TextEdit{
		{Range: Range{Position{1, 0}, Position{1, 6}}, NewText: "2nd"},
		{Range: Range{Position{0, 6}, Position{0, 11}}, NewText: "there"},
		{Range: Range{Position{0, 0}, Position{0, 0}}, NewText: ">> "},
	})
	if err != nil || string(out) != ">> hello there\n2nd\n" {
		t.Errorf("ApplyEdits = %q, %v", out, err)
	}
	_, err = ApplyEdits(in, []TextEdit{
		{Range: Range{Position{0, 0}, Position{0, 4}}},
		{Range: Range{Position{0, 2}, Position{0, 6}}},
	})
	if err == nil {
		t.Error("overlapping edits accepted")
	}
}

func TestURIs(t *testing.T) {
	for _, p := range []string{"/tmp/a b/c#d.go", "/x/ü.py"} {
		u := URIFromPath(p)
		back, err := u.Path()
		if err != nil || back != p {
			t.Errorf("%q -> %q -> %q, %v", p, u, back, err)
		}
	}
	if got := URIFromPath("/tmp/a b"); got != "file:///tmp/a%20b" {
		t.Errorf("URI = %s", got)
	}
	if _, err := DocumentURI("untitled:1").Path(); err == nil {
		t.Error("non-file URI accepted")
	}
}

func TestMapperPositionAt(t *testing.T) {
	// Byte offsets: "ab" 0-1, "\r\n" 2-3, "é" 4-5, "😀" 6-9, "x" 10,
	// "\n" 11, "\n" 12, "last" 13-16.
	m := NewMapper([]byte("ab\r\né😀x\n\nlast"))
	cases := []struct {
		offset int
		want   Position
	}{
		{-1, Position{0, 0}},
		{0, Position{0, 0}},
		{2, Position{0, 2}},  // the "\r" of the terminator
		{3, Position{0, 2}},  // the "\n": still the end of line 0
		{4, Position{1, 0}},  // "é"
		{6, Position{1, 1}},  // before 😀
		{10, Position{1, 3}}, // after 😀 (two units)
		{12, Position{2, 0}}, // the empty line
		{13, Position{3, 0}},
		{17, Position{3, 4}}, // the end
		{99, Position{3, 4}}, // past the end
	}
	for _, c := range cases {
		if got := m.PositionAt(c.offset); got != c.want {
			t.Errorf("PositionAt(%d) = %v, want %v", c.offset, got, c.want)
		}
	}
	// Every offset Offset returns maps back to its position.
	for _, p := range []Position{{0, 1}, {1, 1}, {1, 3}, {1, 4}, {3, 2}} {
		off, err := m.Offset(p)
		if err != nil || m.PositionAt(off) != p {
			t.Errorf("PositionAt(Offset(%v) = %d, %v) = %v", p, off, err, m.PositionAt(off))
		}
	}
}
