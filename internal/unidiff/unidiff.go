// Package unidiff writes the unified diffs langhost shows (rename and
// code-action previews, transaction and gate diffs, agent workflow
// snapshots). Each hunk header's line numbers are those of the lines it
// covers on both sides, so git apply and patch place every hunk where its
// header says, with no offset or fuzz.
//
// go-udiff computes which lines differ; its own ToUnified miscounts the
// new-side start of a hunk that follows two changes merged into one hunk,
// so the hunks are laid out here.
package unidiff

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Context is the number of unchanged lines around each hunk.
const Context = 3

// Diff returns a unified diff from a to b whose headers name from and to
// ("a/path", "b/path", or "/dev/null" for a side that does not exist), or
// "" when a and b are equal.
func Diff(from, to, a, b string) string {
	if a == b {
		return ""
	}
	old, new := splitLines(a), splitLines(b)
	changes := lcs.DiffLines(old, new)
	if len(changes) == 0 {
		return ""
	}
	var out strings.Builder
	out.WriteString("--- " + from + "\n+++ " + to + "\n")
	for len(changes) > 0 {
		// Changes at most two contexts apart share a hunk, as in GNU diff.
		n := 1
		for n < len(changes) && changes[n].Start-changes[n-1].End <= 2*Context {
			n++
		}
		writeHunk(&out, old, new, changes[:n])
		changes = changes[n:]
	}
	return out.String()
}

// writeHunk writes one hunk covering changes (in order, all in the same
// hunk) and their context.
func writeHunk(out *strings.Builder, old, new []string, changes []lcs.Diff) {
	first, last := changes[0], changes[len(changes)-1]
	oldStart := max(first.Start-Context, 0)
	oldEnd := min(last.End+Context, len(old))
	// The context before the first change and after the last is the same
	// lines on both sides.
	newStart := first.ReplStart - (first.Start - oldStart)
	newEnd := last.ReplEnd + (oldEnd - last.End)
	out.WriteString("@@ -" + hunkRange(oldStart, oldEnd-oldStart) + " +" + hunkRange(newStart, newEnd-newStart) + " @@\n")
	at := oldStart
	for _, c := range changes {
		writeLines(out, ' ', old[at:c.Start])
		writeLines(out, '-', old[c.Start:c.End])
		writeLines(out, '+', new[c.ReplStart:c.ReplEnd])
		at = c.End
	}
	writeLines(out, ' ', old[at:oldEnd])
}

// hunkRange is "start,count" with a 1-based start, as diff -u writes it:
// the count is left out when it is 1, and an empty range names the line
// before it (0 at the top of the file).
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

func writeLines(out *strings.Builder, mark byte, lines []string) {
	for _, l := range lines {
		out.WriteByte(mark)
		out.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// splitLines splits s into lines that keep their "\n"; the last line has
// none when s does not end with one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
