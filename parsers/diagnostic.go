package parsers

import (
	"math"
	"strconv"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// NormalizeSeverity is [diagnostic.NormalizeSeverity], kept for the
// callers of this package.
func NormalizeSeverity(s string) string { return diagnostic.NormalizeSeverity(s) }

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
func (b *diagnosticBuilder) finish(d *diagnostic.Diagnostic, line, col, endLine, endCol int, severity string) {
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
	d.Path = clip(d.Path)
	d.Message = clip(strings.TrimSpace(d.Message))
	d.Code = clip(d.Code)
}

// diagnosticList keeps up to max distinct diagnostics in arrival order.
type diagnosticList struct {
	max   int
	seen  map[diagnostic.Diagnostic]struct{}
	list  []diagnostic.Diagnostic
	total int // distinct or not, kept or not
}

func (l *diagnosticList) add(d diagnostic.Diagnostic) {
	l.total++
	if len(l.list) >= l.max {
		return
	}
	if l.seen == nil {
		l.seen = make(map[diagnostic.Diagnostic]struct{})
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
		list = []diagnostic.Diagnostic{}
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
