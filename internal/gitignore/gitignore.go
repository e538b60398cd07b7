// Package gitignore matches workspace paths against .gitignore patterns
// (gitignore(5)): comments, negation with "!", directory-only patterns
// ending in "/", patterns anchored by a "/", the "**" forms, bracket
// expressions with POSIX classes. Patterns match as git's wildmatch
// matches them, but without backtracking (see glob.go): the time is linear
// in the path for each pattern whatever a hostile pattern holds, and the
// patterns a Matcher keeps are bounded, so a path costs bounded time.
package gitignore

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// Bounds of a Matcher. A repository's .gitignore files are hostile
// input: twelve files of 1 MiB made a walk hold 4.2 GB of compiled
// patterns, and every path is matched against every pattern. Real ones
// hold hundreds of lines.
const (
	MaxPatterns     = 10000     // patterns kept
	MaxPatternBytes = 512 << 10 // bytes of the patterns kept
	maxLine         = 4 << 10   // a longer line is no pattern (git's paths are shorter)
)

// pattern is one line of a .gitignore file.
type pattern struct {
	base     string    // directory of the .gitignore, "/" separated, "" for the root
	depth    int       // components of base
	literal  string    // the pattern when it has no wildcard, matched by ==
	name     *segment  // else, unanchored: the pattern of the last component
	path     *pathGlob // else, anchored: the pattern of the path below base
	never    bool      // a pattern git gives up on: it matches nothing
	negate   bool
	dirOnly  bool
	anchored bool // matched against the path below base, not just the name
}

// Matcher holds the patterns of the .gitignore files seen so far. The
// last pattern that matches a path decides, as in git; patterns of deeper
// directories are added later and so take precedence. The zero value
// ignores nothing. It keeps at most MaxPatterns patterns of at most
// MaxPatternBytes together; Dropped says how many more there were.
type Matcher struct {
	patterns []pattern
	bytes    int
	dropped  int
}

// Add adds the patterns of a .gitignore file in the directory base
// (workspace-relative, "/" separated, "" for the root). Lines that are no
// valid pattern are ignored, as git ignores them; patterns beyond the
// Matcher's bounds are dropped and counted.
func (m *Matcher) Add(base string, data []byte) {
	base = strings.Trim(base, "/")
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<10) // a longer line ends the file: git has no such lines either
	for sc.Scan() {
		raw := sc.Bytes()
		if len(raw) > maxLine {
			continue
		}
		if m.Full() {
			if l := bytes.TrimSpace(raw); len(l) > 0 && l[0] != '#' {
				m.dropped++
			}
			continue
		}
		line := string(raw)
		if p, ok := parse(base, line); ok {
			m.patterns = append(m.patterns, p)
			m.bytes += len(line)
		}
	}
}

// Full reports whether the Matcher takes no more patterns.
func (m *Matcher) Full() bool {
	return len(m.patterns) >= MaxPatterns || m.bytes >= MaxPatternBytes
}

// Dropped is the number of patterns Add did not keep because the Matcher
// was full; paths they would ignore are not ignored.
func (m *Matcher) Dropped() int { return m.dropped }

// Match reports whether the workspace-relative, "/" separated path rel is
// ignored. isDir says whether it is a directory. A path below an ignored
// directory is for the caller to skip: git never looks inside one.
func (m *Matcher) Match(rel string, isDir bool) bool {
	ignored := false
	var comps []string // of rel, split once for the anchored patterns
	for i := range m.patterns {
		p := &m.patterns[i]
		if ignored == !p.negate || p.dirOnly && !isDir || p.never {
			continue // cannot change the outcome
		}
		sub := rel
		if p.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, p.base+"/"); !ok {
				continue
			}
		}
		var match bool
		switch {
		case p.path != nil:
			if comps == nil {
				comps = strings.Split(rel, "/")
			}
			match = p.path.match(comps[p.depth:])
		case !p.anchored:
			sub = sub[strings.LastIndexByte(sub, '/')+1:]
			if p.name != nil {
				match = p.name.match(sub)
			} else {
				match = sub == p.literal
			}
		default:
			match = sub == p.literal
		}
		if match {
			ignored = !p.negate
		}
	}
	return ignored
}

// parse compiles one line.
func parse(base, line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	p := pattern{base: base}
	if line[0] == '!' {
		p.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	if !strings.ContainsAny(line, `*?[\`) {
		// Most lines name a file or directory: no glob to build, hold
		// and run.
		p.literal = line
		return p, true
	}
	if base != "" {
		p.depth = strings.Count(base, "/") + 1
	}
	if p.anchored {
		g, ok := compilePath(line)
		p.path, p.never = g, !ok
		return p, true
	}
	toks, ok := tokenize(line)
	p.name, p.never = newSegment(toks), !ok
	return p, true
}

// trimTrailingSpaces removes trailing spaces unless escaped by a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// Translate turns a glob into a regular expression (without anchors):
// "*" and "?" match within one path component, "[...]" is a class ("[!"
// negates), "\" escapes, a leading "**/", an inner "/**/" and a trailing
// "/**" match any number of directories; other "**" are "*".
func Translate(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			if strings.HasPrefix(glob[i:], "**") {
				atStart := i == 0 || glob[i-1] == '/'
				rest := glob[i+2:]
				switch {
				case atStart && strings.HasPrefix(rest, "/"):
					b.WriteString("(?:.*/)?")
					i += 2 // the "/" too
					continue
				case atStart && rest == "" && i > 0:
					b.WriteString(".*")
					i++
					continue
				}
				for i+1 < len(glob) && glob[i+1] == '*' {
					i++
				}
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			class, n := bracketRegexp(glob[i:])
			if n == 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i += n - 1
		case '\\':
			if i+1 < len(glob) {
				i++
				c = glob[i]
			}
			b.WriteString(regexp.QuoteMeta(string(c)))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// bracketRegexp translates the class at the start of s and returns its
// length in s, or 0 when s holds no closed class (then "[" is literal).
func bracketRegexp(s string) (string, int) {
	i := 1
	var b strings.Builder
	b.WriteString("[")
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^")
		i++
	}
	first := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			if strings.HasPrefix(b.String(), "[^") {
				// A negated class never matches the separator.
				return b.String()[:len(b.String())-1] + "/]", i + 1
			}
			return b.String(), i + 1
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteString(regexp.QuoteMeta(string(s[i])))
		case c == '-' && !first && i+1 < len(s) && s[i+1] != ']':
			b.WriteString("-")
		case c == '/':
			return "", 0 // a class never spans a separator
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
		first = false
	}
	return "", 0
}
