package semantic

import "bytes"

// detectIndent guesses a file's indentation the way editors do, so that
// formatting keeps a 2-space file at 2 spaces: tabs when more lines start
// with a tab than with spaces, else the most common step by which a line
// is indented more than the line before it. It returns 4 spaces when the
// file gives no hint.
func detectIndent(content []byte) (tabSize int, insertSpaces bool) {
	var tabLines, spaceLines, prev int
	steps := map[int]int{}
	for line := range bytes.Lines(content) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if line[0] == '\t' {
			tabLines++
			continue
		}
		n := len(line) - len(bytes.TrimLeft(line, " "))
		if n > 0 {
			spaceLines++
		}
		if step := n - prev; step > 0 && step <= 8 {
			steps[step]++
		}
		prev = n
	}
	if tabLines > spaceLines {
		return 4, false
	}
	best := 4
	for step, count := range steps {
		if count > steps[best] || (count == steps[best] && step < best) {
			best = step
		}
	}
	return best, true
}
