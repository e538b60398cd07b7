package parsers

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// lineMatchSink counts lines containing a substring.
type lineMatchSink struct {
	test  lineTest
	max   int
	count int
	lines []string
}

func (s *lineMatchSink) line(line []byte) {
	if !s.test.match(line) {
		return
	}
	s.count++
	if len(s.lines) < s.max {
		s.lines = append(s.lines, clipBytes(line))
	}
}

func (s *lineMatchSink) finish(int) (Result, error) {
	lines := s.lines
	if lines == nil {
		lines = []string{}
	}
	return Result{Value: map[string]any{
		"count":     s.count,
		"lines":     lines,
		"truncated": s.count > len(lines),
	}}, nil
}

// regexSink extracts capture groups.
type regexSink struct {
	pre   *substring // prefilter, may be nil
	re    *regexp.Regexp
	names []string // per submatch index; names[0] unused
	mode  string
	max   int

	done    bool             // first mode: a match was found
	last    []byte           // first and last modes: copy of the kept line
	matched bool             // first and last modes: last holds a match
	all     []any            // all mode
	sums    map[string]int64 // sum mode
}

func (s *regexSink) line(line []byte) {
	if s.done || (s.pre != nil && !s.pre.match(line)) {
		return
	}
	switch s.mode {
	case ModeFirst, ModeLast:
		// Match does not track submatches, so it is cheaper and does not
		// allocate; the groups of the one kept line are found in finish.
		if s.re.Match(line) {
			s.last, s.matched = append(s.last[:0], line...), true
			s.done = s.mode == ModeFirst
		}
		return
	}
	idx := s.re.FindSubmatchIndex(line)
	if idx == nil {
		return
	}
	switch s.mode {
	case ModeAll:
		if len(s.all) < s.max {
			s.all = append(s.all, s.object(line, idx))
		}
	case ModeSum:
		for i := 1; i < len(s.names); i++ {
			if idx[2*i] < 0 {
				continue
			}
			n, err := strconv.ParseInt(string(line[idx[2*i]:idx[2*i+1]]), 10, 64)
			if err != nil {
				continue
			}
			if s.sums == nil {
				s.sums = make(map[string]int64)
			}
			s.sums[s.names[i]] += n
		}
	}
}

// object maps group names to the values of one match.
func (s *regexSink) object(line []byte, idx []int) map[string]any {
	m := make(map[string]any, len(s.names)-1)
	for i := 1; i < len(s.names); i++ {
		if idx == nil || idx[2*i] < 0 {
			m[s.names[i]] = nil
			continue
		}
		m[s.names[i]] = scalar(clipBytes(line[idx[2*i]:idx[2*i+1]]))
	}
	return m
}

func (s *regexSink) finish(int) (Result, error) {
	switch s.mode {
	case ModeAll:
		all := s.all
		if all == nil {
			all = []any{}
		}
		return Result{Value: all}, nil
	case ModeSum:
		m := make(map[string]any, len(s.names)-1)
		for _, name := range s.names[1:] {
			if n, ok := s.sums[name]; ok {
				m[name] = n
			} else {
				m[name] = nil
			}
		}
		return Result{Value: m}, nil
	}
	var idx []int
	if s.matched {
		idx = s.re.FindSubmatchIndex(s.last)
	}
	return Result{Value: s.object(s.last, idx)}, nil
}

// scalar converts captured text that is a decimal number to int64 or
// float64; other text stays a string.
func scalar(s string) any {
	if !isNumber(s) {
		return s
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return s
}

// isNumber reports whether s is [-+]?digits(.digits)?.
func isNumber(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot && digits > 0 && i < len(s)-1:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// exitCodeSink reports whether the exit code means success.
type exitCodeSink struct {
	codes []int
}

func (s *exitCodeSink) line([]byte) {}

func (s *exitCodeSink) finish(exitCode int) (Result, error) {
	return Result{Value: map[string]any{
		"success":   slices.Contains(s.codes, exitCode),
		"exit_code": exitCode,
	}}, nil
}

// patternDiagSink turns lines matching one of its patterns into
// diagnostics.
type patternDiagSink struct {
	patterns []diagPattern
	build    diagnosticBuilder
	list     diagnosticList
}

// diagPattern is a compiled diagnostics regexp with the submatch index of
// each diagnostic field (0 when absent).
type diagPattern struct {
	lazy *lazyRegexp
	pre  *substring
	re   *regexp.Regexp
	// Submatch indexes; 0 means the pattern has no such group.
	file, line, column, endLine, endColumn, severity, code, message int
}

func (s *patternDiagSink) line(line []byte) {
	for i := range s.patterns {
		p := &s.patterns[i]
		if p.pre != nil && !p.pre.match(line) {
			continue
		}
		idx := p.re.FindSubmatchIndex(line)
		if idx == nil {
			continue
		}
		group := func(g int) string {
			if g == 0 || idx[2*g] < 0 {
				return ""
			}
			return string(line[idx[2*g]:idx[2*g+1]])
		}
		pos := func(g int) int {
			if g == 0 {
				return -1
			}
			return atoiPos(group(g))
		}
		d := diagnostic.Diagnostic{Path: group(p.file), Code: group(p.code), Message: group(p.message)}
		s.build.finish(&d, pos(p.line), pos(p.column), pos(p.endLine), pos(p.endColumn), group(p.severity))
		s.list.add(d)
		return
	}
}

func (s *patternDiagSink) finish(int) (Result, error) {
	return s.list.result(), nil
}
