package unidiff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
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
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n lineb\n linec\n lined\n-linee\n+FIVE\n linef\n lineg\n lineh\n"},
		{"two hunks", lines(20, nil), lines(20, map[int]string{2: "", 19: "19\n"}),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,4 @@\n linea\n-lineb\n linec\n lined\n linee\n@@ -16,5 +15,5 @@\n linep\n lineq\n liner\n-lines\n+19\n linet\n"},
		{"merged when close", lines(10, nil), lines(10, map[int]string{2: "B\n", 8: "H\n"}),
			"--- a/f\n+++ b/f\n@@ -1,10 +1,10 @@\n linea\n-lineb\n+B\n linec\n lined\n linee\n linef\n lineg\n-lineh\n+H\n linei\n linej\n"},
		// Two changes merged into one hunk, then a third far below: the
		// third hunk's new start counts the lines between the first two
		// (the headers went wrong here, issue 25 item 6).
		{"hunk after a merged hunk", lines(26, nil), lines(26, map[int]string{2: "B\nB2\n", 7: "G\nG2\n", 22: "V\n"}),
			"--- a/f\n+++ b/f\n@@ -1,10 +1,12 @@\n linea\n-lineb\n+B\n+B2\n linec\n lined\n linee\n linef\n-lineg\n+G\n+G2\n lineh\n linei\n linej\n" +
				"@@ -19,7 +21,7 @@\n lines\n linet\n lineu\n-linev\n+V\n linew\n linex\n liney\n"},
		{"insert into empty", "", "new\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+new\n"},
		{"delete all", "one\n", "", "--- a/f\n+++ b/f\n@@ -1 +0,0 @@\n-one\n"},
		{"pure insertion", lines(8, nil), lines(8, map[int]string{4: "lined\nNEW\n"}),
			"--- a/f\n+++ b/f\n@@ -2,6 +2,7 @@\n lineb\n linec\n lined\n+NEW\n linee\n linef\n lineg\n"},
		{"no final newline", "a\nb", "a\nc", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Diff("a/f", "b/f", c.a, c.b); got != c.want {
				t.Errorf("diff:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestDiffGitApplyExact applies the diffs of random edits of random files
// with git apply, which places a hunk at its header's new-side start and
// reports any other place it had to look ("with offset", "fuzz"). Every
// hunk must land where its header says, and the result must be the edited
// file.
func TestDiffGitApplyExact(t *testing.T) {
	git := needGit(t)
	r := rand.New(rand.NewPCG(25, 6))
	for i := range 80 {
		a := randomFile(r)
		b := randomEdit(r, a)
		if err := gitApplyExact(git, t.TempDir(), a, b); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
	}
}

// FuzzDiffGitApplyExact is TestDiffGitApplyExact driven by the fuzzer:
// the file and its edit come from the seed bytes.
func FuzzDiffGitApplyExact(f *testing.F) {
	git := needGit(f)
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(25), uint64(6))
	f.Add(uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		a := randomFile(r)
		if err := gitApplyExact(git, t.TempDir(), a, randomEdit(r, a)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzDiff checks that the diff of any two texts, read strictly (every
// context and removed line, every count and both starts of every header),
// turns the first into the second.
func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\n")
	f.Add("x", "y")
	f.Add("", "new\n")
	f.Add("one\r\ntwo\r\n", "one\ntwo\n")
	f.Add("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n", "1\nX\nY\n3\n4\n5\n6\nZ\n8\n9\n10\n11\n12\n13\n14\n15\nW\n17\n18\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Diff("a/f", "b/f", a, b)
		if (d == "") != (a == b) {
			t.Fatalf("diff of %q and %q is %q", a, b, d)
		}
		got, err := applyStrict(a, d)
		if err != nil {
			t.Fatalf("diff of %q and %q does not apply: %v\n%s", a, b, err, d)
		}
		if got != b {
			t.Fatalf("diff of %q and %q applies to %q\n%s", a, b, got, d)
		}
	})
}

func needGit(tb testing.TB) string {
	git, err := exec.LookPath("git")
	if err != nil {
		tb.Fatalf("git is needed to check the diffs: %v", err)
	}
	return git
}

// gitApplyExact writes a to dir/f, applies Diff(a, b) with git apply -v and
// fails on any hunk placed with an offset or fuzz, or a result other than b.
func gitApplyExact(git, dir, a, b string) error {
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte(a), 0o644); err != nil {
		return err
	}
	d := Diff("a/f", "b/f", a, b)
	if d == "" {
		if a != b {
			return fmt.Errorf("empty diff of different texts %q, %q", a, b)
		}
		return nil
	}
	cmd := exec.Command(git, "apply", "-v", "--whitespace=nowarn", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(d)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git apply: %v\n%s\ndiff:\n%s", err, out, d)
	}
	if bytes.Contains(out, []byte("offset")) || bytes.Contains(out, []byte("fuzz")) {
		return fmt.Errorf("git apply placed a hunk elsewhere than its header says:\n%s\ndiff:\n%s", out, d)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if string(got) != b {
		return fmt.Errorf("git apply made %q, want %q\ndiff:\n%s", got, b, d)
	}
	return nil
}

// randomFile is 0 to 60 lines drawn from a small alphabet, so that lines
// repeat and the diff has choices to make, sometimes with no final
// newline or with CRLF endings.
func randomFile(r *rand.Rand) string {
	words := []string{"a", "b", "c", "func f() {", "}", "", "\treturn x", "x := 1"}
	nl := "\n"
	if r.IntN(8) == 0 {
		nl = "\r\n"
	}
	var s strings.Builder
	for range r.IntN(61) {
		s.WriteString(words[r.IntN(len(words))] + nl)
	}
	out := s.String()
	if r.IntN(6) == 0 {
		out = strings.TrimSuffix(out, nl)
	}
	return out
}

// randomEdit makes 1 to 6 edits of a (replace, insert or delete up to 3
// lines), placed close together often enough that their hunks merge.
func randomEdit(r *rand.Rand, a string) string {
	lines := strings.SplitAfter(a, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	at := r.IntN(len(lines) + 1)
	for range 1 + r.IntN(6) {
		// Mostly within two contexts of the previous edit, sometimes anywhere.
		if r.IntN(4) == 0 {
			at = r.IntN(len(lines) + 1)
		} else {
			at = min(max(at+r.IntN(15)-4, 0), len(lines))
		}
		n := min(r.IntN(4), len(lines)-at)
		var repl []string
		for range r.IntN(4) {
			repl = append(repl, "new"+strconv.Itoa(r.IntN(1000))+"\n")
		}
		lines = append(lines[:at:at], append(repl, lines[at+n:]...)...)
	}
	out := strings.Join(lines, "")
	if r.IntN(8) == 0 {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

// applyStrict applies a unified diff of one file, checking every context
// and removed line against a, every hunk's line counts, and that each hunk
// starts, on both sides, where the lines before it put it.
func applyStrict(a, diff string) (string, error) {
	if diff == "" {
		return a, nil
	}
	old := splitKeepNL(a)
	lines := splitKeepNL(diff)
	if len(lines) < 2 || lines[0] != "--- a/f\n" || lines[1] != "+++ b/f\n" {
		return "", fmt.Errorf("bad headers")
	}
	var out strings.Builder
	next, written := 0, 0 // lines of old consumed, lines of new written
	for i := 2; i < len(lines); {
		h, err := parseHeader(lines[i])
		if err != nil {
			return "", err
		}
		i++
		oldStart, newStart := h.oldStart, h.newStart
		if h.oldCount > 0 {
			oldStart-- // 1-based, except for an empty range
		}
		if h.newCount > 0 {
			newStart--
		}
		if oldStart < next || oldStart > len(old) {
			return "", fmt.Errorf("hunk at line %d out of order", oldStart+1)
		}
		for ; next < oldStart; next++ {
			out.WriteString(old[next])
			written++
		}
		if newStart != written {
			return "", fmt.Errorf("hunk %q starts at new line %d, the lines before it put it at %d", strings.TrimSpace(lines[i-1]), newStart+1, written+1)
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
		if seenOld != h.oldCount || seenNew != h.newCount {
			return "", fmt.Errorf("hunk counts -%d +%d, lines -%d +%d", h.oldCount, h.newCount, seenOld, seenNew)
		}
		written += seenNew
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

type header struct{ oldStart, oldCount, newStart, newCount int }

// parseHeader parses "@@ -start[,count] +start[,count] @@".
func parseHeader(l string) (header, error) {
	var r [2][2]int
	f := strings.Fields(strings.TrimSpace(l))
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return header{}, fmt.Errorf("bad hunk header %q", l)
	}
	for i, s := range []string{f[1][1:], f[2][1:]} {
		start, count, ok := strings.Cut(s, ",")
		r[i][1] = 1
		var err error
		if r[i][0], err = strconv.Atoi(start); err != nil {
			return header{}, fmt.Errorf("bad hunk header %q", l)
		}
		if ok {
			if r[i][1], err = strconv.Atoi(count); err != nil {
				return header{}, fmt.Errorf("bad hunk header %q", l)
			}
		}
	}
	return header{r[0][0], r[0][1], r[1][0], r[1][1]}, nil
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

// BenchmarkDiffLarge diffs a 20,000-line file with 2,000 changed lines.
func BenchmarkDiffLarge(b *testing.B) {
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
		if Diff("a/big.go", "b/big.go", a, c) == "" {
			b.Fatal("no diff")
		}
	}
}
