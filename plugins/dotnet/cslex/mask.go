// Package cslex does the small amount of C# lexing that regex-based
// scanners need: it blanks out comments and literals so that a pattern
// such as `namespace X` or an identifier search never matches inside them.
package cslex

// Mask returns a copy of src in which the contents of comments, string
// literals (regular, verbatim, interpolated and raw) and character literals
// are replaced by spaces. Newlines are kept, and so are the literal
// delimiters, so byte offsets and line numbers in the result match src.
// Interpolation holes are masked too; the scanners that use Mask only look
// at declarations, which never appear inside a literal.
func Mask(src []byte) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	blank := func(from, to int) {
		for i := from; i < to && i < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '/' && i+1 < n && src[i+1] == '/':
			j := i
			for j < n && src[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case c == '/' && i+1 < n && src[i+1] == '*':
			j := i + 2
			for j+1 < n && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			j = min(j+2, n)
			blank(i, j)
			i = j
		case c == '\'':
			j := i + 1
			for j < n && src[j] != '\'' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = min(j+1, n)
		case c == '"' || ((c == '@' || c == '$') && stringStart(src, i)):
			i = skipString(src, i, blank)
		default:
			i++
		}
	}
	return out
}

// stringStart reports whether a '@' or '$' at i starts a string literal
// prefix such as @", $", $@", @$" or $$""".
func stringStart(src []byte, i int) bool {
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '@', '$':
			continue
		case '"':
			return true
		}
		return false
	}
	return false
}

// skipString blanks the string literal starting at i (which may begin with
// '@'/'$' prefixes) and returns the index just past it.
func skipString(src []byte, i int, blank func(from, to int)) int {
	n := len(src)
	verbatim := false
	for i < n && src[i] != '"' {
		if src[i] == '@' {
			verbatim = true
		}
		i++
	}
	// Raw string literal: three or more quotes.
	q := 0
	for i+q < n && src[i+q] == '"' {
		q++
	}
	if q >= 3 {
		start := i + q
		for j := start; j < n; j++ {
			if src[j] != '"' {
				continue
			}
			k := 0
			for j+k < n && src[j+k] == '"' {
				k++
			}
			if k >= q {
				blank(start, j)
				return j + q
			}
			j += k - 1
		}
		blank(start, n)
		return n
	}
	j := i + 1
	for j < n {
		switch {
		case verbatim && src[j] == '"' && j+1 < n && src[j+1] == '"':
			j += 2
			continue
		case !verbatim && src[j] == '\\':
			j += 2
			continue
		case src[j] == '"':
			blank(i+1, j)
			return j + 1
		case !verbatim && src[j] == '\n':
			// Unterminated regular string: stop at the end of the line
			// so one typo does not swallow the rest of the file.
			blank(i+1, j)
			return j
		}
		j++
	}
	blank(i+1, n)
	return n
}
