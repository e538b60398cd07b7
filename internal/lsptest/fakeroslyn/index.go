package main

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/langhost/langhost/plugins/dotnet/cslex"
)

// LSP SymbolKind values.
const (
	kindNamespace   = 3
	kindClass       = 5
	kindMethod      = 6
	kindProperty    = 7
	kindField       = 8
	kindConstructor = 9
	kindEnum        = 10
	kindInterface   = 11
	kindStruct      = 23
)

// symbol is a declaration found by the indexer. Lines and columns are
// 0-based; columns are byte offsets into the line (converted to UTF-16 at
// the protocol boundary).
type symbol struct {
	Name      string
	Kind      int
	Container string // qualified namespace or type that declares it
	File      *file
	Line      int
	NameStart int
	NameEnd   int
	EndLine   int // where the declaration ends (closing brace or ';')
	EndCol    int
	Bases     []string // base types of a type, without generic arguments
	Signature string   // hover text, e.g. "double Circle.Area()"
	Parent    *symbol  // enclosing type, nil at top level
	Children  []*symbol
	Modifiers []string
}

func (s *symbol) isType() bool {
	switch s.Kind {
	case kindClass, kindInterface, kindStruct, kindEnum:
		return true
	}
	return false
}

func (s *symbol) isMember() bool {
	switch s.Kind {
	case kindMethod, kindProperty, kindField, kindConstructor:
		return true
	}
	return false
}

func (s *symbol) qualifiedName() string {
	if s.Container == "" {
		return s.Name
	}
	return s.Container + "." + s.Name
}

// file is one indexed source file.
type file struct {
	Path    string
	URI     string
	Text    string
	Version *int // set while the client has the document open
	Lines   []string
	Masked  []string // Lines with comments and literals blanked
	Symbols []*symbol
	InBody  []bool // line starts inside a member body
}

var (
	modifierWords = `(?:public|private|protected|internal|static|virtual|override|abstract|async|sealed|new|extern|partial|readonly|unsafe|required|file|const|volatile)`
	namespaceRE   = regexp.MustCompile(`^\s*namespace\s+([A-Za-z_][\w.]*)`)
	typeRE        = regexp.MustCompile(`^\s*((?:` + modifierWords + `\s+)*)(class|interface|struct|enum|record\s+struct|record\s+class|record)\s+([A-Za-z_]\w*)`)
	ctorRE        = regexp.MustCompile(`^\s*((?:` + modifierWords + `\s+)*)([A-Za-z_]\w*)\s*\(`)
	methodRE      = regexp.MustCompile(`^\s*((?:` + modifierWords + `\s+)*)([A-Za-z_][\w.]*(?:<[^()]*?>)?(?:\[\])*\??)\s+([A-Za-z_]\w*)\s*(?:<[^()]*>)?\s*\(`)
	propertyRE    = regexp.MustCompile(`^\s*((?:` + modifierWords + `\s+)*)([A-Za-z_][\w.]*(?:<[^()]*?>)?(?:\[\])*\??)\s+([A-Za-z_]\w*)\s*(\{|=>)`)
	fieldRE       = regexp.MustCompile(`^\s*((?:` + modifierWords + `\s+)+)([A-Za-z_][\w.]*(?:<[^()]*?>)?(?:\[\])*\??)\s+([A-Za-z_]\w*)\s*(=|;)`)
	identRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	keywords      = map[string]bool{
		"return": true, "new": true, "await": true, "throw": true, "else": true, "case": true, "yield": true,
		"using": true, "in": true, "is": true, "as": true, "out": true, "ref": true, "if": true, "while": true,
		"for": true, "foreach": true, "switch": true, "catch": true, "lock": true, "fixed": true, "typeof": true,
		"sizeof": true, "nameof": true, "default": true, "goto": true, "checked": true, "unchecked": true,
	}
)

type scopeKind int

const (
	scopeBlock scopeKind = iota
	scopeNamespace
	scopeType
	scopeMember
)

type scope struct {
	kind  scopeKind
	stmt  bool // a block holding statements (not an initializer)
	sym   *symbol
	name  string // qualified name for namespaces and types
	depth int
}

// pending is a declaration whose body has not started yet.
type pending struct {
	sym      *symbol
	kind     scopeKind
	nsName   string
	exprBody bool // saw "=>", ends at ';' at the same depth
	depth    int
}

// parseFile indexes one C# source file.
func parseFile(path, uri, text string) *file {
	f := &file{Path: path, URI: uri, Text: text}
	f.Lines = splitLines(text)
	f.Masked = splitLines(string(cslex.Mask([]byte(text))))
	f.InBody = make([]bool, len(f.Lines))

	var (
		stack  []scope
		fileNS string
		pend   *pending
	)
	container := func() (scopeKind, string, *symbol) {
		for i := len(stack) - 1; i >= 0; i-- {
			switch stack[i].kind {
			case scopeType:
				return scopeType, stack[i].name, stack[i].sym
			case scopeNamespace:
				return scopeNamespace, stack[i].name, nil
			case scopeMember:
				return scopeMember, "", nil
			}
		}
		return scopeNamespace, fileNS, nil
	}
	inMember := func() bool {
		for _, s := range stack {
			if s.kind == scopeMember {
				return true
			}
		}
		return false
	}

	for i, line := range f.Masked {
		if n := len(stack); n > 0 && pend == nil && inMember() {
			top := stack[n-1]
			f.InBody[i] = top.kind == scopeMember || (top.kind == scopeBlock && top.stmt)
		}
		start := 0
		if pend == nil {
			if p, end := f.declaration(i, line, container, fileNS); p != nil {
				pend, start = p, end
				if p.sym != nil {
					p.depth = len(stack)
					if p.sym.Parent != nil {
						p.sym.Parent.Children = append(p.sym.Parent.Children, p.sym)
					}
					f.Symbols = append(f.Symbols, p.sym)
				}
			}
		}
		for j := start; j < len(line); j++ {
			c := line[j]
			if pend != nil && !pend.exprBody {
				switch {
				case c == '{':
					stack = append(stack, scope{kind: pend.kind, sym: pend.sym, name: pend.nsName, depth: len(stack)})
					if pend.sym != nil && pend.kind == scopeType {
						stack[len(stack)-1].name = pend.sym.qualifiedName()
					}
					pend = nil
					continue
				case c == ';':
					if pend.sym != nil {
						pend.sym.EndLine, pend.sym.EndCol = i, j+1
					} else if pend.kind == scopeNamespace {
						fileNS = pend.nsName
					}
					pend = nil
					continue
				case c == '=' && j+1 < len(line) && line[j+1] == '>':
					pend.exprBody = true
					j++
					continue
				}
			}
			switch c {
			case '{':
				stack = append(stack, scope{kind: scopeBlock, depth: len(stack), stmt: f.blockIsStatement(i, j)})
			case '}':
				if len(stack) > 0 {
					top := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					if top.sym != nil {
						top.sym.EndLine, top.sym.EndCol = i, j+1
					}
				}
			case ';':
				if pend != nil && pend.exprBody && len(stack) == pend.depth {
					if pend.sym != nil {
						pend.sym.EndLine, pend.sym.EndCol = i, j+1
					}
					pend = nil
				}
			}
		}
	}
	return f
}

// declaration recognises a declaration starting on line i. It returns the
// pending declaration and the byte offset to continue scanning from.
func (f *file) declaration(i int, line string, container func() (scopeKind, string, *symbol), fileNS string) (*pending, int) {
	ckind, cname, ctype := container()
	if ckind == scopeMember {
		return nil, 0 // statements and local functions are not indexed
	}
	if m := namespaceRE.FindStringSubmatchIndex(line); m != nil && ckind == scopeNamespace {
		name := line[m[2]:m[3]]
		if cname != "" && cname != fileNS {
			name = cname + "." + name
		}
		return &pending{kind: scopeNamespace, nsName: name}, m[1]
	}
	mods := func(s string) []string { return strings.Fields(s) }
	newSym := func(kind int, name string, start, end int, modifiers string) *symbol {
		return &symbol{Name: name, Kind: kind, Container: cname, File: f, Line: i, NameStart: start, NameEnd: end,
			EndLine: i, EndCol: len(line), Parent: ctype, Modifiers: mods(modifiers)}
	}
	if m := typeRE.FindStringSubmatchIndex(line); m != nil {
		keyword := strings.Fields(line[m[4]:m[5]])[0]
		kind := map[string]int{"class": kindClass, "interface": kindInterface, "struct": kindStruct, "enum": kindEnum, "record": kindClass}[keyword]
		if strings.HasSuffix(line[m[4]:m[5]], "struct") {
			kind = kindStruct
		}
		s := newSym(kind, line[m[6]:m[7]], m[6], m[7], line[m[2]:m[3]])
		s.Bases = baseList(f.restOfHeader(i, m[7]))
		s.Signature = keyword + " " + s.qualifiedName()
		return &pending{sym: s, kind: scopeType}, m[7]
	}
	if ckind != scopeType || ctype == nil {
		return nil, 0
	}
	if m := ctorRE.FindStringSubmatchIndex(line); m != nil && line[m[4]:m[5]] == ctype.Name {
		s := newSym(kindConstructor, ctype.Name, m[4], m[5], line[m[2]:m[3]])
		s.Signature = ctype.Name + "." + ctype.Name + "(" + f.params(i, m[5]) + ")"
		return &pending{sym: s, kind: scopeMember}, m[5]
	}
	if m := methodRE.FindStringSubmatchIndex(line); m != nil && !keywords[line[m[4]:m[5]]] {
		s := newSym(kindMethod, line[m[6]:m[7]], m[6], m[7], line[m[2]:m[3]])
		s.Signature = line[m[4]:m[5]] + " " + ctype.Name + "." + s.Name + "(" + f.params(i, m[7]) + ")"
		return &pending{sym: s, kind: scopeMember}, m[7]
	}
	if m := propertyRE.FindStringSubmatchIndex(line); m != nil && !keywords[line[m[4]:m[5]]] {
		s := newSym(kindProperty, line[m[6]:m[7]], m[6], m[7], line[m[2]:m[3]])
		s.Signature = line[m[4]:m[5]] + " " + ctype.Name + "." + s.Name
		if line[m[8]:m[9]] == "{" {
			if k := strings.IndexByte(line, '}'); k > m[8] {
				s.Signature += " " + strings.TrimSpace(line[m[8]:k+1])
			}
		}
		return &pending{sym: s, kind: scopeMember}, m[7]
	}
	if m := fieldRE.FindStringSubmatchIndex(line); m != nil && !keywords[line[m[4]:m[5]]] {
		s := newSym(kindField, line[m[6]:m[7]], m[6], m[7], line[m[2]:m[3]])
		s.Signature = line[m[4]:m[5]] + " " + ctype.Name + "." + s.Name
		return &pending{sym: s, kind: scopeMember}, m[7]
	}
	return nil, 0
}

// blockIsStatement reports whether the '{' at (i, j) opens a statement
// block rather than an object or collection initializer, by looking at
// what precedes it.
func (f *file) blockIsStatement(i, j int) bool {
	for {
		before := strings.TrimRight(f.Masked[i][:j], " \t")
		if before == "" {
			if i == 0 {
				return true
			}
			i--
			j = len(f.Masked[i])
			continue
		}
		switch before[len(before)-1] {
		case ';', '{', '}':
			return true
		case '>':
			return strings.HasSuffix(before, "=>")
		case ')':
			// "new List<T>()" is followed by an initializer; "if (x)" is not.
			return !regexp.MustCompile(`\bnew\b[^;{}]*\)$`).MatchString(before)
		}
		fields := strings.Fields(before)
		switch fields[len(fields)-1] {
		case "else", "try", "finally", "do", "get", "set", "init", "unsafe", "checked", "unchecked":
			return true
		}
		return false
	}
}

// restOfHeader returns the type header after the name up to the body,
// joining continuation lines.
func (f *file) restOfHeader(i, from int) string {
	var b strings.Builder
	for k := i; k < len(f.Masked) && k < i+5; k++ {
		s := f.Masked[k]
		if k == i {
			s = s[from:]
		}
		if j := strings.IndexAny(s, "{;"); j >= 0 {
			b.WriteString(s[:j])
			break
		}
		b.WriteString(s + " ")
	}
	return b.String()
}

// params returns the parameter list text that starts at the '(' after from.
func (f *file) params(i, from int) string {
	line := f.Lines[i]
	open := strings.IndexByte(line[from:], '(')
	if open < 0 {
		return ""
	}
	depth := 0
	for j := from + open; j < len(line); j++ {
		switch line[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return strings.TrimSpace(line[from+open+1 : j])
			}
		}
	}
	return strings.TrimSpace(line[from+open+1:])
}

// baseList parses ": A, IB<T> where T : new()" (after a possible generic
// parameter list and primary constructor) into ["A", "IB"].
func baseList(header string) []string {
	depth := 0
	colon := -1
	for j, c := range header {
		switch c {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ':':
			if depth == 0 && colon < 0 {
				colon = j
			}
		}
	}
	if colon < 0 {
		return nil
	}
	rest := header[colon+1:]
	if k := regexp.MustCompile(`\bwhere\b`).FindStringIndex(rest); k != nil {
		rest = rest[:k[0]]
	}
	var out []string
	depth = 0
	cur := strings.Builder{}
	flush := func() {
		name := strings.TrimSpace(cur.String())
		if k := strings.IndexAny(name, "<("); k >= 0 {
			name = name[:k]
		}
		if k := strings.LastIndexByte(name, '.'); k >= 0 {
			name = name[k+1:]
		}
		if name != "" {
			out = append(out, strings.TrimSpace(name))
		}
		cur.Reset()
	}
	for _, c := range rest {
		switch {
		case c == '<' || c == '(':
			depth++
		case c == '>' || c == ')':
			depth--
		case c == ',' && depth == 0:
			flush()
			continue
		}
		cur.WriteRune(c)
	}
	flush()
	return out
}

func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// index is the set of indexed files of the opened workspace.
type index struct {
	files map[string]*file // by URI
}

func newIndex() *index { return &index{files: map[string]*file{}} }

func (x *index) sortedFiles() []*file {
	out := make([]*file, 0, len(x.files))
	for _, f := range x.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

func (x *index) allSymbols() []*symbol {
	var out []*symbol
	for _, f := range x.sortedFiles() {
		out = append(out, f.Symbols...)
	}
	return out
}

func (x *index) symbolsNamed(name string) []*symbol {
	var out []*symbol
	for _, s := range x.allSymbols() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// resolve picks the declarations a use of name most likely binds to. The
// indexer has no types, so it prefers what a call through an interface
// binds to: when an interface declares the name, its members win.
func (x *index) resolve(name string) []*symbol {
	all := x.symbolsNamed(name)
	var types, viaInterface []*symbol
	for _, s := range all {
		if s.isType() {
			types = append(types, s)
		}
		if s.Parent != nil && s.Parent.Kind == kindInterface {
			viaInterface = append(viaInterface, s)
		}
	}
	switch {
	case len(types) > 0:
		return types
	case len(viaInterface) > 0:
		return viaInterface
	}
	return all
}

// declarationAt returns the symbol whose name spans (line, col).
func (f *file) declarationAt(line, col int) *symbol {
	for _, s := range f.Symbols {
		if s.Line == line && col >= s.NameStart && col <= s.NameEnd {
			return s
		}
	}
	return nil
}

// wordAt returns the identifier under (line, byte col) and its span.
func (f *file) wordAt(line, col int) (string, int, int) {
	if line < 0 || line >= len(f.Masked) {
		return "", 0, 0
	}
	l := f.Masked[line]
	if col > len(l) {
		return "", 0, 0
	}
	isWord := func(c byte) bool {
		return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	start, end := col, col
	for start > 0 && isWord(l[start-1]) {
		start--
	}
	for end < len(l) && isWord(l[end]) {
		end++
	}
	if start == end || ('0' <= l[start] && l[start] <= '9') {
		return "", 0, 0
	}
	return l[start:end], start, end
}

// occurrence is a whole-word use of an identifier.
type occurrence struct {
	File       *file
	Line       int
	Start, End int
}

// occurrences finds whole-word uses of name outside comments and literals.
func (x *index) occurrences(name string) []occurrence {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
	var out []occurrence
	for _, f := range x.sortedFiles() {
		for i, l := range f.Masked {
			for _, m := range re.FindAllStringIndex(l, -1) {
				out = append(out, occurrence{File: f, Line: i, Start: m[0], End: m[1]})
			}
		}
	}
	return out
}

// utf16Col converts a byte column in line to UTF-16 code units.
func utf16Col(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	n := 0
	for _, r := range line[:b] {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteCol converts a UTF-16 column in line to a byte offset.
func byteCol(line string, u int) int {
	n := 0
	for i, r := range line {
		if n >= u {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}
