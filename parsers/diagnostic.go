package parsers

import (
	"math"
	"strconv"
	"strings"
)

// Diagnostic is one problem reported by a tool, with 1-based positions.
// Zero Line or Column means the tool did not give one.
type Diagnostic struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine,omitempty"`
	EndColumn int    `json:"endColumn,omitempty"`
	Severity  string `json:"severity"` // error, warning, info or hint
	Code      string `json:"code,omitempty"`
	Message   string `json:"message"`
	Source    string `json:"source,omitempty"`
}

// Severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
	SeverityHint    = "hint"
)

// NormalizeSeverity maps the many ways tools spell a severity ("E",
// "ERROR", "warn", "fatal error", "note", "information", LSP's 1..4) to
// error, warning, info or hint. It returns "" for text it does not know.
func NormalizeSeverity(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "e", "err", "error", "fatal", "fatal error", "critical", "failure", "fail", "1":
		return SeverityError
	case "w", "warn", "warning", "2":
		return SeverityWarning
	case "i", "info", "information", "informational", "n", "note", "notice", "message", "3":
		return SeverityInfo
	case "h", "hint", "help", "suggestion", "style", "4":
		return SeverityHint
	}
	return ""
}

// diagnosticFields are the names a diagnostics pattern group or a json
// fields key may use.
var diagnosticFields = []string{"file", "line", "column", "endLine", "endColumn", "severity", "code", "message", "source"}

// diagnosticBuilder turns raw positions into 1-based ones and fills
// defaults.
type diagnosticBuilder struct {
	severity   string // default severity
	source     string
	lineBase   int
	columnBase int
}

// position converts a raw line or column number in base to 1-based; 0
// stays "unknown" for 1-based input. The largest int stays as it is
// rather than wrap to a negative position.
func position(raw, base int) int {
	if base == 0 && raw < math.MaxInt {
		return raw + 1
	}
	return raw
}

// atoiPos parses a decimal position; anything else is unknown (-1).
func atoiPos(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// finish normalises d in place. Raw positions below 0 mean "absent".
func (b *diagnosticBuilder) finish(d *Diagnostic, line, col, endLine, endCol int, severity string) {
	if line >= 0 {
		d.Line = position(line, b.lineBase)
	}
	if col >= 0 {
		d.Column = position(col, b.columnBase)
	}
	if endLine >= 0 {
		d.EndLine = position(endLine, b.lineBase)
	}
	if endCol >= 0 {
		d.EndColumn = position(endCol, b.columnBase)
	}
	d.Severity = NormalizeSeverity(severity)
	if d.Severity == "" {
		d.Severity = b.severity
	}
	if d.Source == "" {
		d.Source = b.source
	}
	d.File = clip(d.File)
	d.Message = clip(strings.TrimSpace(d.Message))
	d.Code = clip(d.Code)
}

// diagnosticList keeps up to max distinct diagnostics in arrival order.
type diagnosticList struct {
	max   int
	seen  map[Diagnostic]struct{}
	list  []Diagnostic
	total int // distinct or not, kept or not
}

func (l *diagnosticList) add(d Diagnostic) {
	l.total++
	if len(l.list) >= l.max {
		return
	}
	if l.seen == nil {
		l.seen = make(map[Diagnostic]struct{})
	}
	// MSBuild and others repeat every diagnostic in a closing summary.
	if _, dup := l.seen[d]; dup {
		return
	}
	l.seen[d] = struct{}{}
	l.list = append(l.list, d)
}

func (l *diagnosticList) result() Result {
	list := l.list
	if list == nil {
		list = []Diagnostic{}
	}
	return Result{Value: list, Diagnostics: list}
}

// maxValueBytes caps each kept line or captured text so that maxMatches
// bounds memory even for megabyte-long lines.
const maxValueBytes = 8 << 10

// clip returns s cut to maxValueBytes at a UTF-8 boundary, marked with an
// ellipsis when cut.
func clip(s string) string {
	if len(s) <= maxValueBytes {
		return s
	}
	i := maxValueBytes
	for i > 0 && s[i]&0xC0 == 0x80 { // back off continuation bytes
		i--
	}
	return s[:i] + "…"
}

// clipBytes is clip for a line that is only valid during the call; the
// result is always a copy.
func clipBytes(b []byte) string {
	if len(b) <= maxValueBytes {
		return string(b)
	}
	return clip(string(b[:maxValueBytes+1]))
}
