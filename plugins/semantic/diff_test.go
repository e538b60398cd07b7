package semantic

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
				continue
			}
			b.WriteString("line" + string(rune('a'+i-1)) + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name, a, b, want string
	}{
		{"equal", "x\n", "x\n", ""},
		{"one change", lines(10, nil), lines(10, map[int]string{5: "FIVE\n"}),
			"--- a/f.go\n+++ b/f.go\n@@ -2,7 +2,7 @@\n lineb\n linec\n lined\n-linee\n+FIVE\n linef\n lineg\n lineh\n"},
		{"two hunks", lines(20, nil), lines(20, map[int]string{2: "", 19: "19\n"}),
			"--- a/f.go\n+++ b/f.go\n@@ -1,5 +1,4 @@\n linea\n-lineb\n linec\n lined\n linee\n@@ -16,5 +15,5 @@\n linep\n lineq\n liner\n-lines\n+19\n linet\n"},
		{"merged when close", lines(10, nil), lines(10, map[int]string{2: "B\n", 8: "H\n"}),
			"--- a/f.go\n+++ b/f.go\n@@ -1,10 +1,10 @@\n linea\n-lineb\n+B\n linec\n lined\n linee\n linef\n lineg\n-lineh\n+H\n linei\n linej\n"},
		{"insert into empty", "", "new\n", "--- a/f.go\n+++ b/f.go\n@@ -0,0 +1 @@\n+new\n"},
		{"no final newline", "a\nb", "a\nc", "--- a/f.go\n+++ b/f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := UnifiedDiff("f.go", c.a, c.b); got != c.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestDiffLinesIsMinimal(t *testing.T) {
	a := splitLines("a\nb\nc\na\nb\nb\na\n")
	b := splitLines("c\nb\na\nb\na\nc\n")
	ops := diffLines(a, b)
	var edits int
	var gotA, gotB []string
	for _, op := range ops {
		if op.kind != ' ' {
			edits++
		}
		if op.kind != '+' {
			gotA = append(gotA, op.text)
		}
		if op.kind != '-' {
			gotB = append(gotB, op.text)
		}
	}
	if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
		t.Fatalf("edit script does not reproduce inputs: %+v", ops)
	}
	if edits != 5 { // Myers' classic example: D = 5
		t.Errorf("%d edits, want 5", edits)
	}
}
