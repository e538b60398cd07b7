package gitignore

import (
	"fmt"
	"strings"
	"testing"
)

// hostileIgnore is 1 MiB of distinct patterns, as a cloned repository
// may ship in each of its directories.
func hostileIgnore(seed int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20-32; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, "f%d-%d\n", seed, i)
		} else {
			fmt.Fprintf(&b, "*.x%d-%d\n", seed, i)
		}
	}
	return []byte(b.String())
}

// TestMatcherBounds: twelve 1 MiB .gitignore files leave a Matcher
// holding at most MaxPatterns patterns, the rest counted as dropped; the
// patterns kept still match, the dropped ones do not.
func TestMatcherBounds(t *testing.T) {
	var m Matcher
	m.Add("", []byte("keep.log\n*.tmp\n"))
	for i := range 12 {
		m.Add(fmt.Sprintf("d%d", i), hostileIgnore(i))
	}
	if len(m.patterns) > MaxPatterns || m.bytes > MaxPatternBytes+maxLine {
		t.Errorf("%d patterns of %d bytes kept, want at most %d of %d", len(m.patterns), m.bytes, MaxPatterns, MaxPatternBytes)
	}
	if !m.Full() || m.Dropped() == 0 {
		t.Errorf("Full = %v, Dropped = %d", m.Full(), m.Dropped())
	}
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"a/keep.log", true}, {"b/x.tmp", true}, {"d0/f0-0", true}, {"d0/a.x0-1", true},
		{"d11/f11-0", false}, // dropped: not ignored
		{"main.go", false},
	} {
		if got := m.Match(tt.path, false); got != tt.want {
			t.Errorf("Match(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestLongLineIsNoPattern: a line longer than any path is skipped
// without compiling it.
func TestLongLineIsNoPattern(t *testing.T) {
	var m Matcher
	m.Add("", []byte(strings.Repeat("*a", maxLine)+"\nx\n"))
	if len(m.patterns) != 1 || !m.Match("x", false) {
		t.Errorf("patterns %d, Match(x) = %v", len(m.patterns), m.Match("x", false))
	}
}

// BenchmarkAddHostile reports what twelve 1 MiB .gitignore files cost a
// Matcher (it was 4.2 GB before the bounds).
func BenchmarkAddHostile(b *testing.B) {
	files := make([][]byte, 12)
	for i := range files {
		files[i] = hostileIgnore(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		var m Matcher
		for i, f := range files {
			m.Add(fmt.Sprintf("d%d", i), f)
		}
		m.Match("d3/some/file.go", false)
	}
}
