package parsers

import (
	"fmt"
	"github.com/langhost/langhost/internal/textdist"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/ohler55/ojg/jp"
	"github.com/reviewdog/errorformat"
)

// Compile validates s and compiles it into a Parser for the output called
// name. All checks happen here, once, so that a bad spec fails at load
// time. Every error is a *FieldError naming the offending key.
func Compile(name string, s Spec) (*Parser, error) {
	c := compiler{name: name, s: s}
	return c.compile()
}

type compiler struct {
	name string
	s    Spec
}

// fieldUse lists, per key, whether it is set and which kinds use it.
func (c *compiler) checkUnused() error {
	s := &c.s
	type use struct {
		key   string
		set   bool
		kinds []Kind
	}
	diag := s.Type == KindDiagnostics || (s.Type == KindJSON && s.Fields != nil)
	uses := []use{
		{"pattern", s.Pattern != "", []Kind{KindLineMatch, KindRegex, KindDiagnostics}},
		{"ignoreCase", s.IgnoreCase, []Kind{KindLineMatch, KindRegex, KindDiagnostics}},
		{"groups", s.Groups != nil, []Kind{KindRegex, KindDiagnostics}},
		{"mode", s.Mode != "", []Kind{KindRegex}},
		{"path", s.Path != "", []Kind{KindJSON}},
		{"jsonLines", s.JSONLines, []Kind{KindJSON}},
		{"fields", s.Fields != nil, []Kind{KindJSON}},
		{"successCodes", s.SuccessCodes != nil, []Kind{KindExitCode}},
		{"stream", s.Stream != "", []Kind{KindLineMatch, KindRegex, KindJSON, KindDiagnostics}},
		{"errorformat", s.Errorformat != nil, []Kind{KindDiagnostics}},
		{"preset", s.Preset != "", []Kind{KindDiagnostics}},
		{"maxMatches", s.MaxMatches != 0, []Kind{KindLineMatch, KindRegex, KindJSON, KindDiagnostics, KindGotest}},
	}
	for _, u := range uses {
		if u.set && !slices.Contains(u.kinds, s.Type) {
			return fieldErrorf(u.key, "%s is not used by %s parsers (it applies to %s)", u.key, s.Type, kindList(u.kinds))
		}
	}
	// Keys that only make sense when diagnostics are produced.
	for _, u := range []use{
		{"lineBase", s.LineBase != nil, nil},
		{"columnBase", s.ColumnBase != nil, nil},
		{"severity", s.Severity != "", nil},
		{"source", s.Source != "", nil},
	} {
		if u.set && !diag {
			return fieldErrorf(u.key, "%s only applies to parsers that produce diagnostics (type diagnostics, or json with fields)", u.key)
		}
	}
	return nil
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func (c *compiler) compile() (*Parser, error) {
	s := &c.s
	if s.Type == "" {
		return nil, fieldErrorf("type", "type is required; one of %s", kindList(kinds))
	}
	if !slices.Contains(kinds, s.Type) {
		var names []string
		for _, k := range kinds {
			names = append(names, string(k))
		}
		return nil, fieldErrorf("type", "unknown parser type %q; valid types are %s%s", s.Type, kindList(kinds), didYouMean(string(s.Type), names))
	}
	if err := c.checkUnused(); err != nil {
		return nil, err
	}
	p := &Parser{name: c.name, kind: s.Type}
	var err error
	if p.streams, err = c.streams(); err != nil {
		return nil, err
	}
	max := s.MaxMatches
	if max < 0 {
		return nil, fieldErrorf("maxMatches", "maxMatches must not be negative, got %d", max)
	}
	if max == 0 {
		max = DefaultMaxMatches
	}
	switch s.Type {
	case KindLineMatch:
		if s.Pattern == "" {
			return nil, fieldErrorf("pattern", "a lineMatch parser needs a pattern: the text a matching line contains")
		}
		test := newLineTest(s.Pattern, s.IgnoreCase)
		p.newSink = func() sink { return &lineMatchSink{test: test, max: max} }
	case KindRegex:
		err = c.regex(p, max)
	case KindJSON:
		err = c.json(p, max)
	case KindExitCode:
		codes := s.SuccessCodes
		if len(codes) == 0 {
			codes = []int{0}
		}
		p.newSink = func() sink { return &exitCodeSink{codes: codes} }
	case KindDiagnostics:
		err = c.diagnostics(p, max)
	case KindGotest:
		p.newSink = func() sink { return newGotestSink(max) }
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (c *compiler) streams() (Stream, error) {
	switch c.s.Stream {
	case "":
		if c.s.Type == KindJSON || c.s.Type == KindGotest {
			return Stdout, nil // progress and warnings on stderr would break the document
		}
		return Stdout | Stderr, nil
	case StreamStdout:
		return Stdout, nil
	case StreamStderr:
		return Stderr, nil
	case StreamBoth:
		return Stdout | Stderr, nil
	}
	return 0, fieldErrorf("stream", "unknown stream %q; valid streams are stdout, stderr, both%s", c.s.Stream,
		didYouMean(c.s.Stream, []string{StreamStdout, StreamStderr, StreamBoth}))
}

// lazyRegexp is a regular expression checked when its spec loads and
// compiled the first time a run needs it: a host loads every spec, but a
// run uses the parsers of one tool.
type lazyRegexp struct {
	expr  string
	names []string // capture group names; index 0 is the whole match
	once  sync.Once
	re    *regexp.Regexp
	pre   *substring
}

func (l *lazyRegexp) numSubexp() int { return len(l.names) - 1 }

// compiled returns the regexp and its prefilter.
func (l *lazyRegexp) compiled() (*regexp.Regexp, *substring) {
	l.once.Do(func() {
		l.re = regexp.MustCompile(l.expr) // syntax.Parse accepted it at load
		l.pre = prefilter(l.re)
	})
	return l.re, l.pre
}

// compileRegexp checks pattern, honouring ignoreCase. Parsing finds every
// error regexp.Compile would report.
func (c *compiler) compileRegexp(field, pattern string) (*lazyRegexp, error) {
	expr := pattern
	if c.s.IgnoreCase {
		expr = "(?i)" + expr
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fieldWrap(field, err, "invalid regular expression")
	}
	return &lazyRegexp{expr: expr, names: tree.CapNames()}, nil
}

// groupNames names every capture group of re (index 0 unused), combining
// (?P<name>) groups with the groups list.
func (c *compiler) groupNames(re *lazyRegexp) ([]string, error) {
	names := slices.Clone(re.names)
	groups := c.s.Groups
	var unnamed []int
	for i := 1; i < len(names); i++ {
		if names[i] == "" {
			unnamed = append(unnamed, i)
		}
	}
	switch {
	case len(groups) == 0:
	case len(groups) == re.numSubexp():
		// One name per capture group; named groups must agree.
		for i, g := range groups {
			if names[i+1] != "" && names[i+1] != g {
				return nil, fieldErrorf(fmt.Sprintf("groups[%d]", i), "group %d is named %q in the pattern but %q here", i+1, names[i+1], g)
			}
			names[i+1] = g
		}
	case len(groups) == len(unnamed):
		for i, g := range groups {
			names[unnamed[i]] = g
		}
	default:
		return nil, fieldErrorf("groups", "groups lists %d names but the pattern has %d capturing groups (%d unnamed)", len(groups), re.numSubexp(), len(unnamed))
	}
	seen := map[string]int{}
	for i := 1; i < len(names); i++ {
		if names[i] == "" {
			return nil, fieldErrorf("pattern", "capturing group %d has no name; name it with (?P<name>...), list names in groups, or make it non-capturing with (?:...)", i)
		}
		if j, dup := seen[names[i]]; dup {
			return nil, fieldErrorf("groups", "groups %d and %d are both named %q", j, i, names[i])
		}
		seen[names[i]] = i
	}
	return names, nil
}

func (c *compiler) regex(p *Parser, max int) error {
	s := &c.s
	if s.Pattern == "" {
		return fieldErrorf("pattern", "a regex parser needs a pattern with capturing groups")
	}
	re, err := c.compileRegexp("pattern", s.Pattern)
	if err != nil {
		return err
	}
	if re.numSubexp() == 0 {
		return fieldErrorf("pattern", "pattern has no capturing groups; a regex parser outputs its groups (use lineMatch to count lines)")
	}
	names, err := c.groupNames(re)
	if err != nil {
		return err
	}
	mode := s.Mode
	if mode == "" {
		mode = ModeFirst
	}
	if !slices.Contains(modes, mode) {
		return fieldErrorf("mode", "unknown mode %q; valid modes are %s%s", mode, strings.Join(modes, ", "), didYouMean(mode, modes))
	}
	p.newSink = func() sink {
		compiled, pre := re.compiled()
		return &regexSink{pre: pre, re: compiled, names: names, mode: mode, max: max}
	}
	return nil
}

// builder validates severity, source and the position bases.
func (c *compiler) builder() (diagnosticBuilder, error) {
	s := &c.s
	b := diagnosticBuilder{severity: diagnostic.Error, source: s.Source, lineBase: 1}
	if s.Severity != "" {
		b.severity = NormalizeSeverity(s.Severity)
		if b.severity == "" {
			return b, fieldErrorf("severity", "unknown severity %q; use error, warning, info or hint", s.Severity)
		}
	}
	if s.LineBase != nil {
		if *s.LineBase != 0 && *s.LineBase != 1 {
			return b, fieldErrorf("lineBase", "lineBase must be 0 or 1, got %d", *s.LineBase)
		}
		b.lineBase = *s.LineBase
	}
	b.columnBase = b.lineBase
	if s.ColumnBase != nil {
		if *s.ColumnBase != 0 && *s.ColumnBase != 1 {
			return b, fieldErrorf("columnBase", "columnBase must be 0 or 1, got %d", *s.ColumnBase)
		}
		b.columnBase = *s.ColumnBase
	}
	return b, nil
}

func (c *compiler) json(p *Parser, max int) error {
	s := &c.s
	if s.Path == "" {
		return fieldErrorf("path", "a json parser needs a JSONPath, e.g. $.summary.total")
	}
	x, err := jp.ParseString(s.Path)
	if err != nil {
		return fieldWrap("path", err, "invalid JSONPath %q", s.Path)
	}
	q := &jsonQuery{name: c.name, path: x, definite: definite(x), max: max}
	if len(x) > 1 {
		_, q.rootFilter = x[1].(*jp.Filter)
	}
	if s.Fields != nil {
		if q.build, err = c.builder(); err != nil {
			return err
		}
		q.fields = make(map[string]jp.Expr, len(s.Fields))
		keys := make([]string, 0, len(s.Fields))
		for k := range s.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !slices.Contains(diagnosticFields, k) {
				return fieldErrorf("fields."+k, "unknown diagnostic field %q; valid fields are %s%s", k, strings.Join(diagnosticFields, ", "), didYouMean(k, diagnosticFields))
			}
			fx, err := jp.ParseString(s.Fields[k])
			if err != nil {
				return fieldWrap("fields."+k, err, "invalid JSONPath %q", s.Fields[k])
			}
			q.fields[k] = fx
		}
		if _, ok := q.fields["message"]; !ok {
			return fieldErrorf("fields", "fields must map message, the diagnostic text")
		}
	}
	if s.JSONLines {
		p.newSink = func() sink { return &jsonLinesSink{q: q, list: diagnosticList{max: max}} }
	} else {
		p.newSink = func() sink { return &jsonSink{q: q, maxBytes: MaxJSONBytes} }
	}
	return nil
}

// definite reports whether x selects at most one value: only root,
// current, child names and single indexes.
func definite(x jp.Expr) bool {
	for _, f := range x {
		switch f.(type) {
		case jp.Root, jp.At, jp.Child, jp.Nth, jp.Bracket:
		default:
			return false
		}
	}
	return true
}

func (c *compiler) diagnostics(p *Parser, max int) error {
	s := &c.s
	set := 0
	for _, b := range []bool{s.Pattern != "", s.Errorformat != nil, s.Preset != ""} {
		if b {
			set++
		}
	}
	if set != 1 {
		field := "pattern"
		if s.Errorformat != nil && set > 1 {
			field = "errorformat"
		}
		if s.Preset != "" && set > 1 {
			field = "preset"
		}
		return fieldErrorf(field, "a diagnostics parser needs exactly one of pattern, errorformat or preset")
	}
	b, err := c.builder()
	if err != nil {
		return err
	}
	if s.IgnoreCase && s.Pattern == "" {
		return fieldErrorf("ignoreCase", "ignoreCase applies to pattern only")
	}
	if s.Groups != nil && s.Pattern == "" {
		return fieldErrorf("groups", "groups applies to pattern only")
	}
	var pr preset
	switch {
	case s.Pattern != "":
		pr.patterns = []string{s.Pattern}
	case s.Errorformat != nil:
		pr.errorformat = s.Errorformat
	default:
		var ok bool
		if pr, ok = lookupPreset(s.Preset); !ok {
			names := presetNames()
			return fieldErrorf("preset", "unknown preset %q%s; valid presets are %s", s.Preset, didYouMean(s.Preset, names), strings.Join(names, ", "))
		}
	}
	if pr.errorformat != nil {
		if len(pr.errorformat) == 0 {
			return fieldErrorf("errorformat", "errorformat needs at least one format line")
		}
		for i, line := range pr.errorformat {
			if _, err := errorformat.NewEfm(line); err != nil {
				return fieldWrap(fmt.Sprintf("errorformat[%d]", i), err, "invalid errorformat %q", line)
			}
		}
		efm, err := errorformat.NewErrorformat(pr.errorformat)
		if err != nil {
			return fieldWrap("errorformat", err, "invalid errorformat")
		}
		p.newSink = func() sink { return &efmSink{efm: efm, codePrefix: pr.codePrefix, build: b, max: max} }
		return nil
	}
	pats := make([]diagPattern, len(pr.patterns))
	for i, pat := range pr.patterns {
		dp, err := c.diagPattern(pat)
		if err != nil {
			if s.Preset != "" {
				// A broken built-in preset is a bug here, not in the spec.
				panic(fmt.Sprintf("parsers: preset %q: %v", s.Preset, err))
			}
			return err
		}
		pats[i] = dp
	}
	p.newSink = func() sink {
		compiled := make([]diagPattern, len(pats))
		for i, dp := range pats {
			dp.re, dp.pre = dp.lazy.compiled()
			compiled[i] = dp
		}
		return &patternDiagSink{patterns: compiled, build: b, list: diagnosticList{max: max}}
	}
	return nil
}

func (c *compiler) diagPattern(pattern string) (diagPattern, error) {
	re, err := c.compileRegexp("pattern", pattern)
	if err != nil {
		return diagPattern{}, err
	}
	names, err := c.groupNames(re)
	if err != nil {
		return diagPattern{}, err
	}
	dp := diagPattern{lazy: re}
	slots := map[string]*int{
		"file": &dp.file, "line": &dp.line, "column": &dp.column, "endLine": &dp.endLine,
		"endColumn": &dp.endColumn, "severity": &dp.severity, "code": &dp.code, "message": &dp.message,
	}
	for i := 1; i < len(names); i++ {
		slot, ok := slots[names[i]]
		if !ok {
			known := diagnosticFields[:len(diagnosticFields)-1] // source is not read from lines
			return diagPattern{}, fieldErrorf("pattern", "group %q is not a diagnostic field; use %s%s", names[i], strings.Join(known, ", "), didYouMean(names[i], known))
		}
		*slot = i
	}
	if dp.message == 0 {
		return diagPattern{}, fieldErrorf("pattern", "pattern needs a message group, e.g. (?P<message>.+)")
	}
	return dp, nil
}

// didYouMean returns ` (did you mean "x"?)` for the candidate closest to
// s, or "" when none is close.
func didYouMean(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := textdist.Levenshtein(s, c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist > max(2, len(best)/3) {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}
