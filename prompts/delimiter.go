package prompts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// delimiterName is the tag that delimits workspace text in a prompt.
const delimiterName = "workspace-file"

// escapeDelimiter keeps a file from closing its own delimiter (or opening
// another) and continuing as if it were langhost's text. A model reads
// more than the exact tag as the tag: any case, spaces of every kind and
// invisible characters (zero-width spaces, joiners, BOM, combining marks,
// controls) around the "/" and inside the name, fullwidth and other
// look-alike forms of "<", "/", "-" and the letters: letters of other
// scripts drawn like the tag's (Cyrillic о, Greek ο), accented, small
// capital, superscript, circled and mathematical ones. Every "<" (or
// look-alike) that starts such a tag becomes "&lt;"; the rest of the text
// is kept as it is.
func escapeDelimiter(s string) string {
	var b strings.Builder
	last := 0
	for i, r := range s {
		if !isOpener(r) || !closesTag(s[i+utf8.RuneLen(r):]) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 8)
		}
		b.WriteString(s[last:i])
		b.WriteString("&lt;")
		last = i + utf8.RuneLen(r)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// closesTag reports whether s, right after a "<", goes on as the
// delimiter's name: filler, an optional slash, filler, then the name's
// letters with filler between them. Dashes count as filler, so
// "workspacefile", "workspace_file" and "<-work-space-file" read the same.
func closesTag(s string) bool {
	s = skipFiller(s)
	if r, n := utf8.DecodeRuneInString(s); isSlash(r) {
		s = skipFiller(s[n:])
	}
	for _, want := range delimiterName {
		if want == '-' {
			continue
		}
		s = skipFiller(s)
		r, n := utf8.DecodeRuneInString(s)
		if n == 0 || !sameLetter(fold(r), want) {
			return false
		}
		s = s[n:]
	}
	return true
}

// sameLetter reports whether r is the ASCII letter want in any case,
// including the look-alikes Unicode folds to it (the Kelvin sign K, the
// long s).
func sameLetter(r, want rune) bool {
	for f := r; ; {
		if f == want {
			return true
		}
		if f = unicode.SimpleFold(f); f == r {
			return false
		}
	}
}

// skipFiller skips what a reader passes over inside a tag: ignorable
// characters and dashes.
func skipFiller(s string) string {
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if !ignorable(r) && fold(r) != '-' {
			break
		}
		s = s[n:]
	}
	return s
}

// ignorable are the characters a reader of the text does not see, or sees
// as mere space: every Unicode space (\v, \f, U+00A0, U+2000-U+200A,
// U+3000, ...), format characters (U+200B-U+200F, U+2060, U+FEFF, bidi
// controls), controls, combining marks, and blank letters (Hangul
// fillers, the braille blank).
func ignorable(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0', '\u2800', '\u180E', utf8.RuneError:
		return true
	}
	return unicode.IsSpace(r) || unicode.IsControl(r) ||
		unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me, unicode.Zs, unicode.Zl, unicode.Zp)
}

// isOpener: "<" and the characters that look like it.
func isOpener(r rune) bool {
	switch r {
	case '<', '\uFF1C', '\uFE64', '\u2039', '\u3008', '\u27E8', '\u2329', '\u02C2', '\u1438', '\u276E',
		'\u276C', '\u2770', '\u29FC', '\u02F1', '\u300A', '\u27EA', '\u226A':
		return true
	}
	return false
}

// isSlash: "/" and the characters that look like it.
func isSlash(r rune) bool {
	switch r {
	case '/', '\uFF0F', '\u2215', '\u2044', '\u29F8', '\u2571', '\u1735', '\u0338',
		'\u27CB', '\u2F03', '\u30CE', '\u4E3F', '\u31D3', '\u0337':
		return true
	}
	return false
}

// fold maps fullwidth forms to ASCII, dashes (and "_") to "-", and
// letters of every script and style that look like a Latin letter to that
// letter in lower case (see latinLookalike).
func fold(r rune) rune {
	switch {
	case r >= '\uFF01' && r <= '\uFF5E': // fullwidth ASCII
		r -= 0xFF01 - 0x21
	case r >= '\u2010' && r <= '\u2015', r == '\u2212', r == '\uFE63', r == '\u2043', r == '\uFE58', r == '\u2E3A', r == '\u2E3B',
		r == '\u30FC', r == '\uFF70', r == '\u2500', r == '\u2501', r == '\u23AF', r == '\u05BE', r == '\u2796', r == '\u02D7':
		return '-'
	}
	if r == '_' {
		return '-'
	}
	if l := latinLookalike(r); l != 0 {
		return l
	}
	return r
}
