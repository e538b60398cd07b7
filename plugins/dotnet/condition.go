package dotnet

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// errUnsupported marks MSBuild syntax this evaluator does not model
// (property functions, item transforms, metadata); callers report the item
// with its condition text instead of guessing.
var errUnsupported = errors.New("unsupported MSBuild expression")

// properties is an MSBuild property table; names are case-insensitive.
type properties struct {
	values map[string]string // lower-cased name -> value
	global map[string]bool   // lower-cased names that project files cannot override
}

func newProperties(global map[string]string) *properties {
	p := &properties{values: map[string]string{}, global: map[string]bool{}}
	for k, v := range global {
		p.values[strings.ToLower(k)] = v
		p.global[strings.ToLower(k)] = true
	}
	return p
}

func (p *properties) get(name string) string { return p.values[strings.ToLower(name)] }

func (p *properties) set(name, value string) {
	key := strings.ToLower(name)
	if p.global[key] {
		return
	}
	p.values[key] = value
}

func (p *properties) setDefault(name, value string) {
	if p.get(name) == "" {
		p.set(name, value)
	}
}

var (
	propRefRE          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`) })
	getPathOfFileAbove = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\$\(\[MSBuild\]::GetPathOfFileAbove\(\s*'?([^',)]+?)'?\s*(?:,\s*'([^']*)'\s*)?\)\)$`)
	})
)

// maxValueLen bounds an expanded value: a property defined as $(A)$(A)
// a few dozen times over would otherwise double its way to gigabytes.
const maxValueLen = 1 << 20

// expand substitutes $(Name) references. Property functions, item lists
// and metadata references, and values longer than maxValueLen, make it
// fail with errUnsupported.
func (p *properties) expand(s string) (string, error) {
	refs := propRefRE().FindAllStringIndex(s, -1)
	n := len(s)
	for _, r := range refs {
		n += len(p.get(s[r[0]+2:r[1]-1])) - (r[1] - r[0])
	}
	if n > maxValueLen {
		return "", fmt.Errorf("%w: %q expands to %d bytes, more than %d", errUnsupported, truncate(s, 80), n, maxValueLen)
	}
	out := propRefRE().ReplaceAllStringFunc(s, func(m string) string {
		return p.get(m[2 : len(m)-1])
	})
	if strings.Contains(out, "$(") || strings.Contains(out, "@(") || strings.Contains(out, "%(") {
		return out, fmt.Errorf("%w: %q", errUnsupported, s)
	}
	return out, nil
}

// evalCondition evaluates an MSBuild condition. An empty condition is true.
// It supports quoted operands with property references, ==, !=, <, >, <=,
// >=, and, or, !, parentheses, true/false and the Exists(...) and
// HasTrailingSlash(...) functions and $([MSBuild]::IsOSPlatform(...)) and
// IsOSUnixLike(); anything else is errUnsupported.
// Exists answers only for paths inside the workspace of t; one that leads
// outside makes the condition unsupported, so it is reported, not decided.
func evalCondition(cond string, props *properties, dir string, t *tree) (bool, error) {
	if strings.TrimSpace(cond) == "" {
		return true, nil
	}
	toks, err := tokenizeCondition(cond)
	if err != nil {
		return false, err
	}
	c := &condParser{toks: toks, props: props, dir: dir, t: t}
	v, err := c.or()
	if err != nil {
		return false, err
	}
	if c.pos != len(c.toks) {
		return false, fmt.Errorf("%w: unexpected %q in condition %q", errUnsupported, c.toks[c.pos].text, cond)
	}
	return v, nil
}

type condTokKind int

const (
	tokString condTokKind = iota // quoted or bare operand
	tokOp                        // == != < > <= >= !
	tokLParen
	tokRParen
	tokComma
	tokWord // and, or, function names, true/false, bare values
)

type condTok struct {
	kind   condTokKind
	text   string
	quoted bool
}

func tokenizeCondition(s string) ([]condTok, error) {
	var toks []condTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("%w: unterminated quote in condition %q", errUnsupported, s)
			}
			toks = append(toks, condTok{kind: tokString, text: s[i+1 : i+1+j], quoted: true})
			i += j + 2
		case c == '(':
			toks = append(toks, condTok{kind: tokLParen, text: "("})
			i++
		case c == ')':
			toks = append(toks, condTok{kind: tokRParen, text: ")"})
			i++
		case c == ',':
			toks = append(toks, condTok{kind: tokComma, text: ","})
			i++
		case c == '=' || c == '!' || c == '<' || c == '>':
			op := string(c)
			if i+1 < len(s) && s[i+1] == '=' {
				op += "="
			}
			if op == "=" {
				return nil, fmt.Errorf("%w: single '=' in condition %q", errUnsupported, s)
			}
			toks = append(toks, condTok{kind: tokOp, text: op})
			i += len(op)
		case c == '$' && i+1 < len(s) && s[i+1] == '(' && osPlatformRE().MatchString(s[i:]):
			m := osPlatformRE().FindStringSubmatch(s[i:])
			toks = append(toks, condTok{kind: tokString, text: strconv.FormatBool(isOSPlatform(m[1], m[2]))})
			i += len(m[0])
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			j := strings.IndexByte(s[i:], ')')
			if j < 0 {
				return nil, fmt.Errorf("%w: unterminated property in condition %q", errUnsupported, s)
			}
			toks = append(toks, condTok{kind: tokString, text: s[i : i+j+1]})
			i += j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\r\n'()=!<>,", rune(s[j])) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("%w: unexpected %q in condition %q", errUnsupported, s[i], s)
			}
			toks = append(toks, condTok{kind: tokWord, text: s[i:j]})
			i = j
		}
	}
	return toks, nil
}

type condParser struct {
	toks  []condTok
	pos   int
	props *properties
	dir   string
	t     *tree
	depth int // nesting of parentheses and '!', bounded by maxCondDepth
}

// maxCondDepth bounds condition nesting; the parser recurses per level,
// and a hostile condition of a million '(' would exhaust the stack.
const maxCondDepth = 100

func (c *condParser) enter() error {
	c.depth++
	if c.depth > maxCondDepth {
		return fmt.Errorf("%w: condition nested more than %d deep", errUnsupported, maxCondDepth)
	}
	return nil
}

func (c *condParser) peek() *condTok {
	if c.pos < len(c.toks) {
		return &c.toks[c.pos]
	}
	return nil
}

func (c *condParser) isWord(w string) bool {
	t := c.peek()
	return t != nil && t.kind == tokWord && strings.EqualFold(t.text, w)
}

func (c *condParser) or() (bool, error) {
	v, err := c.and()
	if err != nil {
		return false, err
	}
	for c.isWord("or") {
		c.pos++
		r, err := c.and()
		if err != nil {
			return false, err
		}
		v = v || r
	}
	return v, nil
}

func (c *condParser) and() (bool, error) {
	v, err := c.unary()
	if err != nil {
		return false, err
	}
	for c.isWord("and") {
		c.pos++
		r, err := c.unary()
		if err != nil {
			return false, err
		}
		v = v && r
	}
	return v, nil
}

func (c *condParser) unary() (bool, error) {
	if t := c.peek(); t != nil && t.kind == tokOp && t.text == "!" {
		if err := c.enter(); err != nil {
			return false, err
		}
		defer func() { c.depth-- }()
		c.pos++
		v, err := c.unary()
		return !v, err
	}
	return c.comparison()
}

func (c *condParser) comparison() (bool, error) {
	t := c.peek()
	if t == nil {
		return false, fmt.Errorf("%w: condition ends early", errUnsupported)
	}
	if t.kind == tokLParen {
		if err := c.enter(); err != nil {
			return false, err
		}
		defer func() { c.depth-- }()
		c.pos++
		v, err := c.or()
		if err != nil {
			return false, err
		}
		if t := c.peek(); t == nil || t.kind != tokRParen {
			return false, fmt.Errorf("%w: missing ')'", errUnsupported)
		}
		c.pos++
		return v, nil
	}
	if t.kind == tokWord && c.pos+1 < len(c.toks) && c.toks[c.pos+1].kind == tokLParen {
		return c.function()
	}
	left, err := c.operand()
	if err != nil {
		return false, err
	}
	op := c.peek()
	if op == nil || op.kind != tokOp || op.text == "!" {
		switch strings.ToLower(left) {
		case "true", "on", "yes":
			return true, nil
		case "false", "off", "no":
			return false, nil
		}
		return false, fmt.Errorf("%w: %q is not a boolean", errUnsupported, left)
	}
	c.pos++
	right, err := c.operand()
	if err != nil {
		return false, err
	}
	switch op.text {
	case "==":
		return strings.EqualFold(left, right), nil
	case "!=":
		return !strings.EqualFold(left, right), nil
	}
	l, errL := strconv.ParseFloat(left, 64)
	r, errR := strconv.ParseFloat(right, 64)
	if errL != nil || errR != nil {
		return false, fmt.Errorf("%w: %s needs numbers, got %q and %q", errUnsupported, op.text, left, right)
	}
	switch op.text {
	case "<":
		return l < r, nil
	case ">":
		return l > r, nil
	case "<=":
		return l <= r, nil
	default:
		return l >= r, nil
	}
}

func (c *condParser) operand() (string, error) {
	t := c.peek()
	if t == nil || (t.kind != tokString && t.kind != tokWord) {
		return "", fmt.Errorf("%w: expected an operand", errUnsupported)
	}
	c.pos++
	return c.props.expand(t.text)
}

func (c *condParser) function() (bool, error) {
	name := c.toks[c.pos].text
	c.pos += 2 // name and '('
	arg, err := c.operand()
	if err != nil {
		return false, err
	}
	if t := c.peek(); t == nil || t.kind != tokRParen {
		return false, fmt.Errorf("%w: %s takes one argument", errUnsupported, name)
	}
	c.pos++
	switch strings.ToLower(name) {
	case "exists":
		if strings.TrimSpace(arg) == "" {
			return false, nil
		}
		p := msbuildPath(c.dir, arg)
		switch c.t.lookup(p) {
		case kindFile, kindDir:
			return true, nil
		case kindOutside:
			// Not there is a safe answer (SDK paths under undefined
			// properties); what is there outside is not langhost's to use.
			if c.t.present(p) {
				return false, fmt.Errorf("%w: Exists(%q) looks outside the workspace", errUnsupported, arg)
			}
		}
		return false, nil
	case "hastrailingslash":
		return strings.HasSuffix(arg, "/") || strings.HasSuffix(arg, `\`), nil
	}
	return false, fmt.Errorf("%w: function %s", errUnsupported, name)
}

// osPlatformRE matches the property functions that ask which operating
// system the evaluation runs on: $([MSBuild]::IsOSPlatform('Windows')) and
// $([MSBuild]::IsOSUnixLike()).
var osPlatformRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\(\s*\[MSBuild\]::(?i:(IsOSPlatform|IsOSUnixLike))\(\s*(?:'([A-Za-z]*)')?\s*\)\s*\)`)
})

// isOSPlatform answers as MSBuild does on the machine langhost runs on, the
// machine that builds the project: the SDK evaluates these functions for
// its own operating system, and the cross-check with dotnet msbuild
// expects the same answer.
func isOSPlatform(fn, platform string) bool {
	if strings.EqualFold(fn, "IsOSUnixLike") {
		return platform == "" && runtime.GOOS != "windows"
	}
	switch strings.ToLower(platform) {
	case "windows":
		return runtime.GOOS == "windows"
	case "linux":
		return runtime.GOOS == "linux"
	case "osx", "macos":
		return runtime.GOOS == "darwin"
	case "freebsd":
		return runtime.GOOS == "freebsd"
	}
	return false
}

// truncate shortens s for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
