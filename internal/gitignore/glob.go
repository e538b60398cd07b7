package gitignore

import "strings"

// A glob is matched the way git's wildmatch matches it (with
// WM_PATHNAME), byte by byte, but in time linear in the path for each
// pattern: "*" splits a component's pattern into fixed-length pieces, and
// the pieces between the first and the last are found leftmost, one after
// the other, which never needs to reconsider a piece (each "*" can absorb
// whatever a later placement would skip). "**" between slashes does the
// same one level up, over whole components. So no line, however many
// stars it holds, makes a match backtrack.

// token kinds of a compiled glob.
const (
	tByte  = iota // one literal byte
	tAny          // "?": any byte
	tClass        // "[...]"
	tStar         // a run of "*"
	tSep          // "/"
)

type token struct {
	kind  uint8
	b     byte
	class *byteSet
	run   int // stars in a tStar run
}

// byteSet is a set of bytes, for a bracket expression.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// tokenize reads glob as git's wildmatch does. ok is false where git
// gives up on the pattern (an unclosed bracket, an unknown "[:class:]", a
// trailing backslash): such a pattern matches nothing.
func tokenize(glob string) (toks []token, ok bool) {
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '\\':
			if i+1 == len(glob) {
				return nil, false
			}
			i++
			if glob[i] == '/' {
				toks = append(toks, token{kind: tSep})
			} else {
				toks = append(toks, token{kind: tByte, b: glob[i]})
			}
		case '?':
			toks = append(toks, token{kind: tAny})
		case '*':
			n := 1
			for i+1 < len(glob) && glob[i+1] == '*' {
				i++
				n++
			}
			toks = append(toks, token{kind: tStar, run: n})
		case '/':
			toks = append(toks, token{kind: tSep})
		case '[':
			set, n, ok := bracket(glob[i:])
			if !ok {
				return nil, false
			}
			toks = append(toks, token{kind: tClass, class: set})
			i += n - 1
		default:
			toks = append(toks, token{kind: tByte, b: c})
		}
	}
	return toks, true
}

// bracket reads the bracket expression at the start of s as wildmatch
// does: "!" or "^" negates, a first "]" is literal, "\" escapes, "a-z" is
// a range of bytes and "[:alpha:]" and its kin are POSIX classes (ASCII).
// It returns the set and the length read, or ok false where git aborts.
// A negated set never holds "/".
func bracket(s string) (set *byteSet, n int, ok bool) {
	set = new(byteSet)
	p := 1
	negated := false
	if p < len(s) && (s[p] == '!' || s[p] == '^') {
		negated = true
		p++
	}
	prev := -1 // the byte a "-" ranges from, -1 for none
	for first := true; ; first = false {
		if p >= len(s) {
			return nil, 0, false
		}
		c := s[p]
		switch {
		case c == ']' && !first:
			if negated {
				for i := range set {
					set[i] = ^set[i]
				}
			}
			set[0] &^= 1 << '/'
			return set, p + 1, true
		case c == '\\':
			p++
			if p >= len(s) {
				return nil, 0, false
			}
			set.add(s[p])
			prev = int(s[p])
		case c == '-' && prev >= 0 && p+1 < len(s) && s[p+1] != ']':
			p++
			hi := s[p]
			if hi == '\\' {
				p++
				if p >= len(s) {
					return nil, 0, false
				}
				hi = s[p]
			}
			for b := prev; b <= int(hi); b++ {
				set.add(byte(b))
			}
			prev = -1
		case c == '[' && p+1 < len(s) && s[p+1] == ':':
			end := strings.IndexByte(s[p+2:], ']')
			if end < 0 {
				return nil, 0, false
			}
			name := s[p+2 : p+2+end]
			if !strings.HasSuffix(name, ":") {
				// No ":]": the "[" is a member like any other.
				set.add('[')
				prev = '['
				break
			}
			in, known := posixClass(name[:len(name)-1])
			if !known {
				return nil, 0, false
			}
			for b := range 256 {
				if in(byte(b)) {
					set.add(byte(b))
				}
			}
			p += 2 + end
			prev = -1
		default:
			set.add(c)
			prev = int(c)
		}
		p++
	}
}

// posixClass is git's (sane_ctype, ASCII only) test for a "[:name:]".
func posixClass(name string) (func(byte) bool, bool) {
	alpha := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	switch name {
	case "alnum":
		return func(c byte) bool { return alpha(c) || digit(c) }, true
	case "alpha":
		return alpha, true
	case "blank":
		return func(c byte) bool { return c == ' ' || c == '\t' }, true
	case "cntrl":
		return func(c byte) bool { return c < ' ' || c == 0x7f }, true
	case "digit":
		return digit, true
	case "graph":
		return func(c byte) bool { return '!' <= c && c <= '~' }, true
	case "lower":
		return func(c byte) bool { return 'a' <= c && c <= 'z' }, true
	case "print":
		return func(c byte) bool { return ' ' <= c && c <= '~' }, true
	case "punct":
		return func(c byte) bool { return '!' <= c && c <= '~' && !alpha(c) && !digit(c) }, true
	case "space":
		return func(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }, true
	case "upper":
		return func(c byte) bool { return 'A' <= c && c <= 'Z' }, true
	case "xdigit":
		return func(c byte) bool { return digit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }, true
	}
	return nil, false
}

// piece is a run of tokens without stars: it matches exactly len(toks)
// bytes. lit holds them when all are literal bytes.
type piece struct {
	toks    []token
	lit     string
	literal bool
}

// at reports whether the piece matches s at i (i+len fits in s).
func (p *piece) at(s string, i int) bool {
	if p.literal {
		return s[i:i+len(p.lit)] == p.lit
	}
	for j, t := range p.toks {
		c := s[i+j]
		switch t.kind {
		case tByte:
			if c != t.b {
				return false
			}
		case tClass:
			if !t.class.has(c) {
				return false
			}
		}
	}
	return true
}

// index is the first i at which the piece matches s, or -1.
func (p *piece) index(s string) int {
	if p.literal {
		return strings.Index(s, p.lit)
	}
	for i := 0; i+len(p.toks) <= len(s); i++ {
		if p.at(s, i) {
			return i
		}
	}
	return -1
}

func (p *piece) len() int { return len(p.toks) }

// segment is the pattern of one path component: pieces between stars.
type segment struct {
	pieces []piece // one more than the stars
	min    int     // bytes the pieces need together
}

func newSegment(toks []token) *segment {
	s := &segment{}
	cur := []token{}
	flush := func() {
		p := piece{toks: cur, literal: true}
		var b strings.Builder
		for _, t := range cur {
			if t.kind != tByte {
				p.literal = false
				break
			}
			b.WriteByte(t.b)
		}
		if p.literal {
			p.lit = b.String()
		}
		s.pieces = append(s.pieces, p)
		s.min += len(cur)
		cur = []token{}
	}
	for _, t := range toks {
		if t.kind == tStar {
			flush()
			continue
		}
		cur = append(cur, t)
	}
	flush()
	return s
}

// match reports whether name, one path component, matches.
func (s *segment) match(name string) bool {
	if len(name) < s.min {
		return false
	}
	ps := s.pieces
	if len(ps) == 1 {
		return len(name) == ps[0].len() && ps[0].at(name, 0)
	}
	first, last := &ps[0], &ps[len(ps)-1]
	if !first.at(name, 0) || !last.at(name, len(name)-last.len()) {
		return false
	}
	rest := name[first.len() : len(name)-last.len()]
	for i := 1; i < len(ps)-1; i++ {
		j := ps[i].index(rest)
		if j < 0 {
			return false
		}
		rest = rest[j+ps[i].len():]
	}
	return true
}

// pathGlob is an anchored pattern: groups of component patterns, each
// group matching as many consecutive components as it has segments,
// with any number of components (a "**" segment) between the groups.
type pathGlob struct {
	groups [][]*segment
	min    int
}

// anyComponent matches every component.
var anyComponent = newSegment([]token{{kind: tStar, run: 1}})

// compilePath compiles an anchored glob (its leading "/" removed); ok is
// false for a pattern git gives up on.
func compilePath(glob string) (*pathGlob, bool) {
	toks, ok := tokenize(glob)
	if !ok {
		return nil, false
	}
	var segs [][]token
	start := 0
	for i, t := range toks {
		if t.kind == tSep {
			segs = append(segs, toks[start:i])
			start = i + 1
		}
	}
	segs = append(segs, toks[start:])
	g := &pathGlob{groups: [][]*segment{nil}}
	globstar := func(seg []token) bool { return len(seg) == 1 && seg[0].kind == tStar && seg[0].run >= 2 }
	for i, seg := range segs {
		if !globstar(seg) {
			last := len(g.groups) - 1
			g.groups[last] = append(g.groups[last], newSegment(seg))
			g.min++
			continue
		}
		if i == len(segs)-1 {
			// A trailing "/**" is everything inside: at least one
			// component more.
			last := len(g.groups) - 1
			g.groups[last] = append(g.groups[last], anyComponent)
			g.min++
		}
		if len(g.groups[len(g.groups)-1]) > 0 || len(g.groups) == 1 {
			g.groups = append(g.groups, nil)
		}
	}
	return g, true
}

// match reports whether the components of a path match.
func (g *pathGlob) match(comps []string) bool {
	if len(comps) < g.min {
		return false
	}
	gs := g.groups
	if len(gs) == 1 {
		return len(comps) == len(gs[0]) && groupAt(gs[0], comps)
	}
	first, last := gs[0], gs[len(gs)-1]
	if !groupAt(first, comps) || !groupAt(last, comps[len(comps)-len(last):]) {
		return false
	}
	rest := comps[len(first) : len(comps)-len(last)]
	for _, grp := range gs[1 : len(gs)-1] {
		j := groupIndex(grp, rest)
		if j < 0 {
			return false
		}
		rest = rest[j+len(grp):]
	}
	return true
}

// groupAt reports whether grp matches the first components of comps.
func groupAt(grp []*segment, comps []string) bool {
	for i, s := range grp {
		if !s.match(comps[i]) {
			return false
		}
	}
	return true
}

// groupIndex is the first i at which grp matches comps, or -1.
func groupIndex(grp []*segment, comps []string) int {
	for i := 0; i+len(grp) <= len(comps); i++ {
		if groupAt(grp, comps[i:]) {
			return i
		}
	}
	return -1
}
