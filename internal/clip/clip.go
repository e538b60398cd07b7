// Package clip cuts text to a byte budget without splitting a UTF-8
// encoded character: tool output, server messages and model text quoted in
// results and errors must stay valid text wherever they are cut.
package clip

import "unicode/utf8"

// Head returns the longest prefix of s of at most n bytes that does not
// end inside a character. Callers mark the cut as they see fit.
func Head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tail returns the longest suffix of s of at most n bytes that does not
// start inside a character.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - max(n, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
