package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// style colours text output. Colour is on only when it can be seen: on a
// terminal, without NO_COLOR (https://no-color.org) and TERM=dumb, unless
// --color always or never says otherwise.
type style struct {
	on bool
	// width is the width tables fit in, in columns; 0 is no limit.
	width int
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
)

// colorMode checks a --color value.
func colorMode(v string) error {
	switch v {
	case "", "auto", "always", "never":
		return nil
	}
	return &failure.Error{Code: failure.InvalidInput, Field: "--color",
		Message: fmt.Sprintf("--color: %q is not auto, always or never", v)}
}

// newStyle decides whether to colour from the --color flag, the
// environment and whether stdout is a terminal.
func newStyle(mode string, tty bool, env func(string) (string, bool)) style {
	switch mode {
	case "always":
		return style{on: true}
	case "never":
		return style{}
	}
	if _, set := env("NO_COLOR"); set {
		return style{}
	}
	if term, _ := env("TERM"); term == "dumb" {
		return style{}
	}
	return style{on: tty}
}

func (s style) paint(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return code + text + ansiReset
}

func (s style) bold(text string) string { return s.paint(ansiBold, text) }
func (s style) dim(text string) string  { return s.paint(ansiDim, text) }

// severity colours a diagnostic severity or a status word.
func (s style) severity(sev string) string {
	switch sev {
	case "error", "failed", "missing":
		return s.paint(ansiRed, sev)
	case "warning":
		return s.paint(ansiYellow, sev)
	case "info", "information", "hint", "note":
		return s.paint(ansiBlue, sev)
	case "ok", "yes":
		return s.paint(ansiGreen, sev)
	}
	return sev
}

// diffLine colours one line of a unified diff.
func (s style) diffLine(line string) string {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "diff "):
		return s.bold(line)
	case strings.HasPrefix(line, "@@"):
		return s.paint(ansiCyan, line)
	case strings.HasPrefix(line, "+"):
		return s.paint(ansiGreen, line)
	case strings.HasPrefix(line, "-"):
		return s.paint(ansiRed, line)
	}
	return line
}

// table writes aligned columns; the first row is the header. Widths are
// counted in runes of the uncoloured text (text/tabwriter would count the
// escape sequences of a coloured header), and each cell is passed through
// paint when set, so colour never shifts a column.
//
// On a terminal narrower than the table, the widest columns shrink to fit
// and their cells wrap at spaces onto continuation lines: a description is
// never cut off mid-sentence, and a line never wraps across the terminal.
func (s style) table(w io.Writer, rows [][]string, paint func(row, col int, cell string) string) error {
	widths := map[int]int{}
	ncols := 0
	clean := make([][]string, len(rows))
	for ri, r := range rows {
		clean[ri] = make([]string, len(r))
		ncols = max(ncols, len(r))
		for i, c := range r {
			c = printable(strings.ReplaceAll(c, "\n", " "))
			clean[ri][i] = c
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	rows = clean
	fit(widths, ncols, s.width)
	var b strings.Builder
	for ri, r := range rows {
		// Trailing empty cells get no padding: no trailing blanks.
		for len(r) > 1 && r[len(r)-1] == "" {
			r = r[:len(r)-1]
		}
		cells := make([][]string, len(r))
		height := 1
		for ci, c := range r {
			cells[ci] = wrap(c, widths[ci])
			height = max(height, len(cells[ci]))
		}
		for line := range height {
			last := len(r) - 1
			for last > 0 && line >= len(cells[last]) {
				last-- // no trailing blanks on continuation lines either
			}
			for ci := 0; ci <= last; ci++ {
				c := ""
				if line < len(cells[ci]) {
					c = cells[ci][line]
				}
				text := c
				switch {
				case ri == 0:
					text = s.bold(c)
				case paint != nil && line == 0 && len(cells[ci]) == 1:
					text = paint(ri, ci, c)
				}
				b.WriteString(text)
				if ci < last {
					b.WriteString(strings.Repeat(" ", widths[ci]-utf8.RuneCountInString(c)+2))
				}
			}
			b.WriteByte('\n')
		}
	}
	_, err := w.Write([]byte(b.String()))
	return err
}

// minColumn is the narrowest a column shrinks to; minLast, the last one
// before any other shrinks.
const (
	minColumn = 12
	minLast   = 30
)

// fit shrinks the widest columns until the table, with two spaces between
// columns, is at most limit wide (0: no limit), none below minColumn.
func fit(widths map[int]int, ncols, limit int) {
	if limit <= 0 || ncols == 0 {
		return
	}
	total := func() int {
		t := 2 * (ncols - 1)
		for i := range ncols {
			t += widths[i]
		}
		return t
	}
	// The last column (a description, a reason) wraps first: ids and
	// names in the others read better whole.
	if over := total() - limit; over > 0 {
		last := ncols - 1
		widths[last] = max(widths[last]-over, min(widths[last], minLast))
	}
	for over := total() - limit; over > 0; over = total() - limit {
		widest := 0
		for i := range ncols {
			if widths[i] > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= minColumn {
			return // as narrow as it gets; the terminal wraps the rest
		}
		// Down to the next widest column at most, so that the width is
		// shared out among the wide columns.
		next := minColumn
		for i := range ncols {
			if i != widest && widths[i] < widths[widest] {
				next = max(next, widths[i])
			}
		}
		widths[widest] = max(widths[widest]-over, next, minColumn)
	}
}

// wrap breaks text into lines of at most width runes at spaces; a word
// longer than width is split.
func wrap(text string, width int) []string {
	if width <= 0 || utf8.RuneCountInString(text) <= width {
		return []string{text}
	}
	var lines []string
	var cur []rune
	for _, word := range strings.Fields(text) {
		wr := []rune(word)
		for len(wr) > width {
			if len(cur) > 0 {
				lines, cur = append(lines, string(cur)), nil
			}
			lines, wr = append(lines, string(wr[:width])), wr[width:]
		}
		switch {
		case len(cur) == 0:
			cur = wr
		case len(cur)+1+len(wr) <= width:
			cur = append(append(cur, ' '), wr...)
		default:
			lines, cur = append(lines, string(cur)), wr
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// printable makes text from tools, language servers and workspace files
// safe to write to a terminal: control characters other than newline and
// tab (escape sequences that could retitle the window, clear the screen,
// rewrite earlier lines with \r, or hide text) are shown as \xNN instead of
// acting. Colour is added after, by style.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
			// A CRLF line end is just a line end.
		case unsafeRune(r) && r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' ||
		(r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069')
}
