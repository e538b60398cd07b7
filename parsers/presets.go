package parsers

import (
	"sort"

	"github.com/reviewdog/errorformat/fmts"
)

// preset is a built-in diagnostics format: regexps with named groups,
// tried in order, or errorformat lines.
type preset struct {
	patterns    []string
	errorformat []string
	codePrefix  string // prepended to errorformat's numeric %n
}

// filePart matches a path that may start with a Windows drive letter.
const filePart = `(?P<file>(?:[A-Za-z]:)?[^:\s][^:]*?)`

// presets are this package's own formats, tuned to extract severity and
// code. Names not found here fall back to reviewdog's errorformat table.
var presets = map[string]preset{
	// go build, go vet, gopls check, staticcheck: file.go:line:col: message
	"go": {patterns: []string{
		`^(?P<file>[^\s:][^:]*\.go):(?P<line>\d+)(?::(?P<column>\d+))?: (?P<message>.+)$`,
	}},
	// gcc and clang, including "fatal error" and [-Wflag] codes.
	"gcc": {patterns: []string{
		`^` + filePart + `:(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>fatal error|error|warning|note): (?P<message>.*?)(?: \[(?P<code>-W[^\]]+)\])?$`,
	}},
	// MSBuild and the dotnet CLI: File.cs(10,5): error CS1002: msg [proj].
	// A task's error may have no code: "x.targets(72,5): error : The
	// minimum line coverage is below the specified 80 [proj]" (coverlet's
	// threshold, MSBuild's Error task) fails a test run just as surely.
	"msbuild": {patterns: []string{
		`^\s*(?P<file>(?:[A-Za-z]:)?[^(:]+?)(?:\((?P<line>\d+)(?:,(?P<column>\d+))?(?:,(?P<endLine>\d+),(?P<endColumn>\d+))?\))?\s*:\s*(?P<severity>error|warning|info)(?:\s+(?P<code>[A-Za-z]+\d+))?\s*:\s*(?P<message>.*?)(?:\s+\[[^\]]*\])?$`,
	}},
	// tsc, both --pretty false and the pretty "file:line:col - error" form.
	"tsc": {patterns: []string{
		`^(?P<file>[^\s(][^(]*)\((?P<line>\d+),(?P<column>\d+)\): (?P<severity>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$`,
		`^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<column>\d+) - (?P<severity>error|warning|message) (?P<code>TS\d+): (?P<message>.*)$`,
	}},
	// rustc and cargo with --message-format=short (or --error-format=short).
	"rustc": {patterns: []string{
		`^` + filePart + `:(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning|note|help)(?:\[(?P<code>[^\]]+)\])?: (?P<message>.*)$`,
	}},
	// javac: Foo.java:3: error: cannot find symbol
	"javac": {patterns: []string{
		`^(?P<file>(?:[A-Za-z]:)?[^:\s][^:]*\.java):(?P<line>\d+): (?P<severity>error|warning|note): (?:\[(?P<code>[\w.-]+)\] )?(?P<message>.*)$`,
	}},
	// mypy: a.py:3: error: msg  [code]
	"mypy": {patterns: []string{
		`^` + filePart + `:(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>error|warning|note): (?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?$`,
	}},
	// pyright's text output: "  /p/a.py:3:9 - error: msg (reportX)"
	"pyright": {patterns: []string{
		`^\s*(?P<file>\S.*?):(?P<line>\d+):(?P<column>\d+) - (?P<severity>error|warning|information): (?P<message>.*?)(?: \((?P<code>report\w+)\))?$`,
	}},
	// eslint -f unix: file:line:col: message [Error/rule]
	"eslint": {patterns: []string{
		`^` + filePart + `:(?P<line>\d+):(?P<column>\d+): (?P<message>.*?) \[(?P<severity>Error|Warning)(?:/(?P<code>[^\]]+))?\]$`,
	}},
	// Python tracebacks: one diagnostic at the innermost frame, with the
	// exception line as message. Outer frames have no message and are
	// dropped.
	"python": {errorformat: []string{
		`%A  File "%f"\, line %l%.%#`,
		`%C    %.%#`,
		`%Z%m`,
		`%-G%.%#`,
	}},
}

// lookupPreset finds a preset by name: this package's table first, then
// reviewdog's errorformat definitions.
func lookupPreset(name string) (preset, bool) {
	if p, ok := presets[name]; ok {
		return p, true
	}
	if f, ok := fmts.DefinedFmts()[name]; ok {
		return preset{errorformat: f.Errorformat}, true
	}
	return preset{}, false
}

// presetNames lists every preset name, sorted.
func presetNames() []string {
	var names []string
	for name := range presets {
		names = append(names, name)
	}
	for name := range fmts.DefinedFmts() {
		if _, ok := presets[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}
