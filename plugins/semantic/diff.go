package semantic

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

type lineOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// UnifiedDiff returns a unified diff of a and b labelled a/path and b/path,
// or "" when they are equal.
func UnifiedDiff(path, a, b string) string {
	if a == b {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", path, path)
	// Index of each op within a and b, to number hunks.
	aLine, bLine := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		aLine[i+1], bLine[i+1] = aLine[i], bLine[i]
		if op.kind != '+' {
			aLine[i+1]++
		}
		if op.kind != '-' {
			bLine[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// Extend the hunk while changes are close enough to share context.
		start := max(i-diffContext, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		stop := min(end+diffContext, len(ops))
		aStart, aCount := aLine[start], aLine[stop]-aLine[start]
		bStart, bCount := bLine[start], bLine[stop]-bLine[start]
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aCount), hunkRange(bStart, bCount))
		for _, op := range ops[start:stop] {
			out.WriteByte(op.kind)
			if strings.HasSuffix(op.text, "\n") {
				out.WriteString(op.text)
			} else {
				out.WriteString(op.text)
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
}

func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if count == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// splitLines splits s into lines that keep their "\n".
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// diffLines computes a shortest edit script with Myers' O(ND) algorithm.
func diffLines(a, b []string) []lineOp {
	n, m := len(a), len(b)
	maxD := n + m
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	// Walk back through the trace from (n, m) to (0, 0).
	var rev []lineOp
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		vd := trace[d]
		k := x - y
		var prevK int
		if k == -d || (k != d && vd[off+k-1] < vd[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := vd[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, lineOp{' ', a[x-1]})
			x--
			y--
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, lineOp{'+', b[y-1]})
			} else {
				rev = append(rev, lineOp{'-', a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	ops := make([]lineOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}
