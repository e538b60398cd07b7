package parsers

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// substring is a fast "does the line contain this text" test, exact or
// ASCII case-insensitive.
type substring struct {
	needle []byte // lower-cased when fold
	fold   bool
	// For fold: the needle byte to scan for, its offset, and both cases.
	anchorOff          int
	anchorLo, anchorUp byte
}

func newSubstring(needle string, fold bool) *substring {
	s := &substring{needle: []byte(needle), fold: fold}
	if !fold {
		return s
	}
	s.needle = []byte(strings.ToLower(needle))
	// Scan for the rarest needle byte so that few candidates need checking.
	best := -1
	for i, c := range s.needle {
		if best < 0 || byteRank(c) < byteRank(s.needle[best]) {
			best = i
		}
	}
	c := s.needle[best]
	s.anchorOff, s.anchorLo, s.anchorUp = best, c, c
	if 'a' <= c && c <= 'z' {
		s.anchorUp = c - 'a' + 'A'
	}
	return s
}

// commonBytes lists bytes from most to least frequent in build logs and
// prose; bytes not listed count as rare.
const commonBytes = " etaoinsrlcdu/.hmpgf:_01-2yb\tw3v4k5("

func byteRank(c byte) int {
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return len(commonBytes) - i
	}
	return 0
}

func (s *substring) match(line []byte) bool {
	if !s.fold {
		return bytes.Contains(line, s.needle)
	}
	n := len(s.needle)
	if n == 0 {
		return true
	}
	if s.anchorLo == s.anchorUp {
		for i := s.anchorOff; i+n-s.anchorOff <= len(line); {
			j := bytes.IndexByte(line[i:], s.anchorLo)
			if j < 0 {
				return false
			}
			i += j
			if s.verify(line, i-s.anchorOff) {
				return true
			}
			i++
		}
		return false
	}
	// Two cursors, one per case of the anchor letter; each scans forward
	// with IndexByte so the whole search stays linear.
	lo, up := -1, -1
	for i := s.anchorOff; i+n-s.anchorOff <= len(line); {
		if lo < i {
			if lo = indexFrom(line, i, s.anchorLo); lo < 0 {
				lo = len(line)
			}
		}
		if up < i {
			if up = indexFrom(line, i, s.anchorUp); up < 0 {
				up = len(line)
			}
		}
		i = min(lo, up)
		if i+n-s.anchorOff > len(line) {
			return false
		}
		if s.verify(line, i-s.anchorOff) {
			return true
		}
		i++
	}
	return false
}

func indexFrom(b []byte, from int, c byte) int {
	j := bytes.IndexByte(b[from:], c)
	if j < 0 {
		return -1
	}
	return from + j
}

// verify reports whether line[at:] starts with the lower-cased needle,
// ignoring ASCII case.
func (s *substring) verify(line []byte, at int) bool {
	if at < 0 || at+len(s.needle) > len(line) {
		return false
	}
	for k, c := range s.needle {
		b := line[at+k]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != c {
			return false
		}
	}
	return true
}

// asciiFoldSafe reports whether r is ASCII and every rune that folds to it
// under Unicode simple folding is ASCII too. 'k' (Kelvin sign) and 's'
// (long s) are not, so an ASCII-only search could miss their matches.
func asciiFoldSafe(r rune) bool {
	if r >= utf8.RuneSelf {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lineTest is what lineMatch and the regex prefilter run per line.
type lineTest interface {
	match(line []byte) bool
}

// regexTest matches a regexp after a cheap prefilter.
type regexTest struct {
	pre *substring // nil when no literal is required
	re  *regexp.Regexp
}

func (t *regexTest) match(line []byte) bool {
	if t.pre != nil && !t.pre.match(line) {
		return false
	}
	return t.re.Match(line)
}

// newLineTest builds the lineMatch test for needle. Case-insensitive
// matching follows Unicode simple folding (like strings.EqualFold); the
// fast ASCII search is exact for needles whose letters only fold to ASCII,
// other needles go through an equivalent regexp.
func newLineTest(needle string, fold bool) lineTest {
	if !fold {
		return newSubstring(needle, false)
	}
	for _, r := range needle {
		if !asciiFoldSafe(r) {
			re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(needle))
			return &regexTest{pre: prefilter(re), re: re}
		}
	}
	return newSubstring(needle, true)
}

// prefilter returns a substring every match of re must contain, or nil.
func prefilter(re *regexp.Regexp) *substring {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	lit := requiredLiteral(tree.Simplify())
	if lit.text == "" {
		return nil
	}
	return newSubstring(lit.text, lit.fold)
}

// literal is text a match must contain; fold means ASCII case-insensitive.
type literal struct {
	text string
	fold bool
}

// better prefers longer literals, and exact ones over folded ones.
func (l literal) better(m literal) bool {
	if len(l.text) != len(m.text) {
		return len(l.text) > len(m.text)
	}
	return !l.fold && m.fold
}

// requiredLiteral walks a regexp syntax tree for the best literal that
// every match contains. It looks through concatenations, captures and
// repetitions of at least one; alternations and optional parts give
// nothing. Folded literals keep only letters whose folds are ASCII.
func requiredLiteral(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		return literalRun([]*syntax.Regexp{re})
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best literal
		start := 0
		for i := 0; i <= len(re.Sub); i++ {
			if i < len(re.Sub) && re.Sub[i].Op == syntax.OpLiteral {
				continue
			}
			if i > start {
				if l := literalRun(re.Sub[start:i]); l.better(best) {
					best = l
				}
			}
			if i < len(re.Sub) {
				if l := requiredLiteral(re.Sub[i]); l.better(best) {
					best = l
				}
			}
			start = i + 1
		}
		return best
	}
	return literal{}
}

// literalRun joins adjacent literal nodes. With case folding, runes whose
// folds leave ASCII split the run and the longest safe piece is kept.
func literalRun(nodes []*syntax.Regexp) literal {
	fold := false
	for _, n := range nodes {
		if n.Flags&syntax.FoldCase != 0 {
			fold = true
		}
	}
	var b strings.Builder
	var best string
	for _, n := range nodes {
		for _, r := range n.Rune {
			if fold && !asciiFoldSafe(r) {
				if b.Len() > len(best) {
					best = b.String()
				}
				b.Reset()
				continue
			}
			b.WriteRune(r)
		}
	}
	if b.Len() > len(best) {
		best = b.String()
	}
	return literal{text: best, fold: fold}
}
