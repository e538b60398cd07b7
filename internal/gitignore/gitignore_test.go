package gitignore

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	type file struct {
		base, text string
	}
	tests := []struct {
		name   string
		files  []file
		path   string
		isDir  bool
		ignore bool
	}{
		{"name anywhere", []file{{"", "*.log"}}, "a/b/x.log", false, true},
		{"name no match", []file{{"", "*.log"}}, "a/b/x.go", false, false},
		{"star stays in component", []file{{"", "a/*.go"}}, "a/b/x.go", false, false},
		{"anchored slash", []file{{"", "/build"}}, "build", true, true},
		{"anchored not deeper", []file{{"", "/build"}}, "src/build", true, false},
		{"dir only skips files", []file{{"", "out/"}}, "out", false, false},
		{"dir only matches dirs", []file{{"", "out/"}}, "x/out", true, true},
		{"negation re-includes", []file{{"", "*.log\n!keep.log"}}, "keep.log", false, false},
		{"last match wins", []file{{"", "!keep.log\n*.log"}}, "keep.log", false, true},
		{"comment", []file{{"", "# x.go\nx.go"}}, "x.go", false, true},
		{"escaped hash", []file{{"", `\#x`}}, "#x", false, true},
		{"escaped bang", []file{{"", `\!x`}}, "!x", false, true},
		{"trailing spaces trimmed", []file{{"", "x.go   "}}, "x.go", false, true},
		{"escaped trailing space kept", []file{{"", `x\ `}}, "x ", false, true},
		{"leading double star", []file{{"", "**/gen"}}, "a/b/gen", true, true},
		{"inner double star", []file{{"", "a/**/z"}}, "a/z", false, true},
		{"inner double star deep", []file{{"", "a/**/z"}}, "a/b/c/z", false, true},
		{"trailing double star", []file{{"", "a/**"}}, "a/b/c", false, true},
		{"trailing double star not a", []file{{"", "a/**"}}, "a", true, false},
		{"question mark", []file{{"", "?.c"}}, "x.c", false, true},
		{"class", []file{{"", "[ab].c"}}, "b.c", false, true},
		{"negated class", []file{{"", "[!ab].c"}}, "b.c", false, false},
		{"range", []file{{"", "[0-9].txt"}}, "7.txt", false, true},
		{"unclosed class matches nothing, as in git", []file{{"", "[ab"}}, "[ab", false, false},
		{"posix class", []file{{"", "foo[[:digit:]]"}}, "foo1", false, true},
		{"posix class no match", []file{{"", "foo[[:digit:]]"}}, "fooa", false, false},
		{"reversed range matches nothing in it", []file{{"", "x[z-a]"}}, "xb", false, false},
		{"escaped slash is a separator", []file{{"", `a\/b`}}, "a/b", false, true},
		{"root double star", []file{{"", "/**"}}, "a/b", false, true},
		{"double star inside a name is a star", []file{{"", "a/x**y"}}, "a/xzzy", false, true},
		{"double star inside a name stays in it", []file{{"", "a/x**y"}}, "a/x/y", false, false},
		{"nested gitignore applies below", []file{{"sub", "*.tmp"}}, "sub/x/y.tmp", false, true},
		{"nested gitignore not beside", []file{{"sub", "*.tmp"}}, "other/y.tmp", false, false},
		{"nested anchored", []file{{"sub", "/gen"}}, "sub/gen", true, true},
		{"nested overrides root", []file{{"", "*.gen"}, {"sub", "!*.gen"}}, "sub/a.gen", false, false},
		{"regexp metacharacters are literal", []file{{"", "a+(b).c"}}, "a+(b).c", false, true},
		{"dot is literal", []file{{"", "a.c"}}, "abc", false, false},
		{"crlf", []file{{"", "x.go\r\n"}}, "x.go", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m Matcher
			for _, f := range tt.files {
				m.Add(f.base, []byte(f.text))
			}
			if got := m.Match(tt.path, tt.isDir); got != tt.ignore {
				t.Errorf("Match(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.ignore)
			}
		})
	}
}

// A hostile pattern costs linear time: matching never backtracks.
func TestMatchHostilePattern(t *testing.T) {
	var m Matcher
	m.Add("", []byte(strings.Repeat("*a", 200)+"b\n"))
	if m.Match(strings.Repeat("a", 5000), false) {
		t.Fatal("matched")
	}
}
