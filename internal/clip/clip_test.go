package clip

import (
	"testing"
	"unicode/utf8"
)

func TestHeadAndTail(t *testing.T) {
	tests := []struct {
		s          string
		n          int
		head, tail string
	}{
		{"hello", 10, "hello", "hello"},
		{"hello", 5, "hello", "hello"},
		{"hello", 3, "hel", "llo"},
		{"hello", 0, "", ""},
		{"hello", -1, "", ""},
		{"héllo", 2, "h", "lo"},   // é is 2 bytes: never split
		{"héllo", 3, "hé", "llo"}, // the cut falls after é / before l
		{"日本語", 4, "日", "語"},
		{"日本語", 2, "", ""},
		{"a\xffb", 2, "a\xff", "\xffb"}, // invalid bytes count as characters
	}
	for _, tt := range tests {
		if got := Head(tt.s, tt.n); got != tt.head {
			t.Errorf("Head(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.head)
		}
		if got := Tail(tt.s, tt.n); got != tt.tail {
			t.Errorf("Tail(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.tail)
		}
	}
}

func FuzzHeadTail(f *testing.F) {
	f.Add("héllo wörld 日本語", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		h, tl := Head(s, n), Tail(s, n)
		if len(h) > max(n, 0) || len(tl) > max(n, 0) || s[:len(h)] != h || s[len(s)-len(tl):] != tl {
			t.Fatalf("Head/Tail(%q, %d) = %q, %q", s, n, h, tl)
		}
		if utf8.ValidString(s) && (!utf8.ValidString(h) || !utf8.ValidString(tl)) {
			t.Fatalf("a character was split: %q, %q", h, tl)
		}
	})
}
