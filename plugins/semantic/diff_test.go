package semantic

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// The previews are real patches: git apply and patch -p1 turn the old file
// into the new one.
func TestUnifiedDiffApplies(t *testing.T) {
	for _, tool := range []string{"git", "patch"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to check the diffs: %v", tool, err)
		}
	}
	cases := []struct{ name, a, b string }{
		{"change", "one\ntwo\nthree\n", "one\n2\nthree\n"},
		{"delete all", "one\ntwo\n", ""},
		{"add final newline", "one\ntwo", "one\ntwo\n"},
		{"remove final newline", "one\ntwo\n", "one\ntwo"},
		{"crlf", "one\r\ntwo\r\n", "one\r\nTWO\r\n"},
		{"far apart", strings.Repeat("same\n", 50) + "x\n" + strings.Repeat("same\n", 50) + "y\n", strings.Repeat("same\n", 50) + "X\n" + strings.Repeat("same\n", 50) + "Y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, argv := range [][]string{{"git", "apply", "--whitespace=nowarn", "-"}, {"patch", "-p1", "-s", "--no-backup-if-mismatch"}} {
				dir := t.TempDir()
				file := filepath.Join(dir, "dir", "f.txt")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(c.a), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				cmd.Stdin = strings.NewReader(UnifiedDiff("dir/f.txt", c.a, c.b))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", argv[0], err, out)
				}
				if got, _ := os.ReadFile(file); string(got) != c.b {
					t.Errorf("%s made %q, want %q", argv[0], got, c.b)
				}
			}
		})
	}
}

// FuzzUnifiedDiff checks that the diff of any two texts, applied by a
// strict reader of the format, turns the first into the second.
func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\n")
	f.Add("x", "y")
	f.Add("", "new\n")
	f.Add("one\r\ntwo\r\n", "one\ntwo\n")
	f.Add("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := UnifiedDiff("f", a, b)
		if (d == "") != (a == b) {
			t.Fatalf("diff of %q and %q is %q", a, b, d)
		}
		got, err := applyUnified(a, d)
		if err != nil {
			t.Fatalf("diff of %q and %q does not apply: %v\n%s", a, b, err, d)
		}
		if got != b {
			t.Fatalf("diff of %q and %q applies to %q\n%s", a, b, got, d)
		}
	})
}

// applyUnified applies a unified diff of one file, checking every context
// and removed line against a and every hunk's line counts.
func applyUnified(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	old := splitKeepNL(a)
	lines := splitKeepNL(diff)
	if len(lines) < 2 || lines[0] != "--- a/f\n" || lines[1] != "+++ b/f\n" {
		return "", fmt.Errorf("bad headers")
	}
	var out strings.Builder
	next := 0 // index into old of the next line not yet copied
	for i := 2; i < len(lines); {
		start, oldCount, newCount, err := hunkHeader(lines[i])
		if err != nil {
			return "", err
		}
		i++
		if oldCount > 0 {
			start-- // 1-based, except for an empty range
		}
		if start < next || start > len(old) {
			return "", fmt.Errorf("hunk at line %d out of order", start+1)
		}
		for ; next < start; next++ {
			out.WriteString(old[next])
		}
		var seenOld, seenNew int
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			text := l[1:]
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(old) || old[next] != text {
					return "", fmt.Errorf("line %d: have %q, diff says %q", next+1, lineAt(old, next), text)
				}
				next++
				seenOld++
				if l[0] == ' ' {
					out.WriteString(text)
					seenNew++
				}
			case '+':
				out.WriteString(text)
				seenNew++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if seenOld != oldCount || seenNew != newCount {
			return "", fmt.Errorf("hunk counts -%d +%d, lines -%d +%d", oldCount, newCount, seenOld, seenNew)
		}
	}
	for ; next < len(old); next++ {
		out.WriteString(old[next])
	}
	return out.String(), nil
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end of file>"
}

// hunkHeader parses "@@ -start[,count] +start[,count] @@".
func hunkHeader(l string) (start, oldCount, newCount int, err error) {
	var ranges [2][2]int
	f := strings.Fields(strings.TrimSpace(l))
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
	}
	for i, r := range []string{f[1][1:], f[2][1:]} {
		s, c, ok := strings.Cut(r, ",")
		ranges[i][1] = 1
		if ranges[i][0], err = strconv.Atoi(s); err != nil {
			return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
		}
		if ok {
			if ranges[i][1], err = strconv.Atoi(c); err != nil {
				return 0, 0, 0, fmt.Errorf("bad hunk header %q", l)
			}
		}
	}
	return ranges[0][0], ranges[0][1], ranges[1][1], nil
}

// splitKeepNL splits s into lines that keep their "\n".
func splitKeepNL(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(lines, s)
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// BenchmarkUnifiedDiffLarge diffs a 20,000-line file with 2,000 changed
// lines, the size where the former hand-written Myers took 16.7 s and
// 2.5 GB.
func BenchmarkUnifiedDiffLarge(b *testing.B) {
	var before, after strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&before, "\tx%d := compute(%d) // line %d\n", i, i, i)
		if i%10 == 3 {
			fmt.Fprintf(&after, "\ty%d := recompute(%d)\n", i, i)
		} else {
			fmt.Fprintf(&after, "\tx%d := compute(%d) // line %d\n", i, i, i)
		}
	}
	a, c := before.String(), after.String()
	b.ReportAllocs()
	for b.Loop() {
		if UnifiedDiff("big.go", a, c) == "" {
			b.Fatal("no diff")
		}
	}
}
