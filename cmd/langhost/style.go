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
type style struct{ on bool }

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
func (s style) table(w io.Writer, rows [][]string, paint func(row, col int, cell string) string) error {
	widths := map[int]int{}
	clean := make([][]string, len(rows))
	for ri, r := range rows {
		clean[ri] = make([]string, len(r))
		for i, c := range r {
			c = printable(strings.ReplaceAll(c, "\n", " "))
			clean[ri][i] = c
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	rows = clean
	var b strings.Builder
	for ri, r := range rows {
		// Trailing empty cells get no padding: no trailing blanks.
		for len(r) > 1 && r[len(r)-1] == "" {
			r = r[:len(r)-1]
		}
		for ci, c := range r {
			text := c
			switch {
			case ri == 0:
				text = s.bold(c)
			case paint != nil:
				text = paint(ri, ci, c)
			}
			b.WriteString(text)
			if ci < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[ci]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := w.Write([]byte(b.String()))
	return err
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
