package parsers

import (
	"fmt"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Kind is a parser type, the value of a parser config's "type" key.
type Kind string

// Parser kinds.
const (
	KindLineMatch   Kind = "lineMatch"
	KindRegex       Kind = "regex"
	KindJSON        Kind = "json"
	KindExitCode    Kind = "exitCode"
	KindDiagnostics Kind = "diagnostics"
	// KindGotest reads `go test -json` events: a TestReport, and the
	// failures and build errors as diagnostics.
	KindGotest Kind = "gotest"
)

var kinds = []Kind{KindLineMatch, KindRegex, KindJSON, KindExitCode, KindDiagnostics, KindGotest}

// Regex modes: which matches a regex parser reports.
const (
	ModeFirst = "first"
	ModeLast  = "last"
	ModeAll   = "all"
	ModeSum   = "sum"
)

var modes = []string{ModeFirst, ModeLast, ModeAll, ModeSum}

// Stream values for Spec.Stream.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
	StreamBoth   = "both"
)

// DefaultMaxMatches caps kept lines, matches and diagnostics when a spec
// sets no maxMatches.
const DefaultMaxMatches = 1000

// Spec is the declarative configuration of one output parser, as written
// under a tool's outputParsers map in a language spec. Which keys apply
// depends on Type; Compile rejects keys that the type does not use.
type Spec struct {
	Type         Kind              `yaml:"type" json:"type" jsonschema:"parser kind: lineMatch, regex, json, exitCode, diagnostics or gotest"`
	Pattern      string            `yaml:"pattern,omitempty" json:"pattern,omitempty" jsonschema:"lineMatch: substring a line must contain; regex and diagnostics: Go (RE2) regular expression applied to each line"`
	IgnoreCase   bool              `yaml:"ignoreCase,omitempty" json:"ignoreCase,omitempty" jsonschema:"match pattern case-insensitively (lineMatch, regex, diagnostics with pattern)"`
	Groups       []string          `yaml:"groups,omitempty" json:"groups,omitempty" jsonschema:"names for the capturing groups of pattern, in order; named groups (?P<name>...) may be used instead"`
	Mode         string            `yaml:"mode,omitempty" json:"mode,omitempty" jsonschema:"regex: first (default), last, all (list of every match) or sum (integer groups added over all matches)"`
	Path         string            `yaml:"path,omitempty" json:"path,omitempty" jsonschema:"json: JSONPath selecting the value, e.g. $.summary.lineCoverage; with fields it selects the items that become diagnostics"`
	JSONLines    bool              `yaml:"jsonLines,omitempty" json:"jsonLines,omitempty" jsonschema:"json: the output is one JSON document per line (NDJSON); path is applied to each line and the results are listed"`
	Fields       map[string]string `yaml:"fields,omitempty" json:"fields,omitempty" jsonschema:"json: turn each selected item into a diagnostic; maps file, line, column, endLine, endColumn, severity, code, message, source to JSONPaths relative to the item"`
	LineBase     *int              `yaml:"lineBase,omitempty" json:"lineBase,omitempty" jsonschema:"json with fields and diagnostics: 0 when the tool counts lines from 0, 1 (default) otherwise; diagnostics are always reported 1-based"`
	ColumnBase   *int              `yaml:"columnBase,omitempty" json:"columnBase,omitempty" jsonschema:"like lineBase for columns; defaults to lineBase"`
	SuccessCodes []int             `yaml:"successCodes,omitempty" json:"successCodes,omitempty" jsonschema:"exitCode: exit codes that mean success (default [0])"`
	Stream       string            `yaml:"stream,omitempty" json:"stream,omitempty" jsonschema:"which output to parse: stdout, stderr or both (default both; json defaults to stdout)"`
	Errorformat  []string          `yaml:"errorformat,omitempty" json:"errorformat,omitempty" jsonschema:"diagnostics: Vim errorformat lines (%f %l %c %m %t %n, multi-line %A %C %Z ...) instead of pattern"`
	Preset       string            `yaml:"preset,omitempty" json:"preset,omitempty" jsonschema:"diagnostics: a named built-in format (go, gcc, msbuild, tsc, rustc, javac, mypy, pyright, eslint, python, or any reviewdog errorformat name) instead of pattern"`
	Severity     string            `yaml:"severity,omitempty" json:"severity,omitempty" jsonschema:"diagnostics: severity used when the output gives none: error (default), warning, info or hint"`
	Source       string            `yaml:"source,omitempty" json:"source,omitempty" jsonschema:"diagnostics: value of each diagnostic's source, e.g. the tool name"`
	MaxMatches   int               `yaml:"maxMatches,omitempty" json:"maxMatches,omitempty" jsonschema:"cap on kept lines, matches or diagnostics (default 1000); counts still include everything"`
}

// FieldError reports an invalid parser config. Field is the path of the
// offending key inside the parser config: a YAML key such as "pattern",
// dotted for nested keys ("fields.line") and indexed for list items
// ("errorformat[1]"), so a spec loader can point at file:line:column.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// fieldErrorf returns a FieldError of class failure.InvalidInput.
func fieldErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Err: failure.New(failure.InvalidInput, format, args...)}
}

// fieldWrap returns a FieldError of class failure.InvalidInput wrapping err.
func fieldWrap(field string, err error, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Err: failure.Wrap(failure.InvalidInput, err, format, args...)}
}

// Stream identifies the output stream a line was read from.
type Stream uint8

// Output streams.
const (
	Stdout Stream = 1 << iota
	Stderr
)

func (s Stream) String() string {
	switch s {
	case Stdout:
		return StreamStdout
	case Stderr:
		return StreamStderr
	case Stdout | Stderr:
		return StreamBoth
	}
	return fmt.Sprintf("Stream(%d)", uint8(s))
}
