// Package parsers implements the declarative output parsers that language
// specs attach to CLI tools under outputParsers: a map from output name to
// a parser config ([Spec]). [Compile] validates a config once at load
// time; at run time each parser reads the tool's output line by line while
// the process runs, so memory stays bounded however much the tool prints.
//
// # Parser types and their output values
//
// Every value is JSON-friendly (maps, lists, strings, numbers, booleans).
//
// lineMatch counts the lines that contain pattern as a substring
// (ignoreCase: Unicode case folding, like strings.EqualFold):
//
//	errors: {type: lineMatch, pattern: ": error ", ignoreCase: true}
//	=> {"count": 3, "lines": ["a.go:1:2: error x", ...], "truncated": false}
//
// Only the first maxMatches lines are kept (each cut to 8 KiB); count
// still counts every matching line and truncated says whether lines were
// dropped.
//
// regex applies a Go regular expression (RE2 syntax) to each line and
// outputs its capturing groups. Groups are named by (?P<name>...) or by
// the groups list (one name per group, or one per unnamed group). Captured
// text that is a decimal number becomes a JSON number.
//
//	testResults:
//	  type: regex
//	  pattern: "Passed:\\s*(\\d+).*Failed:\\s*(\\d+)"
//	  groups: [passed, failed]
//
// mode first (default) gives the groups of the first match, last of the
// last, as an object whose values are null when nothing matched:
// {"passed": 12, "failed": 0}. all gives a list of such objects (at most
// maxMatches). sum adds each group's integer values over all matches,
// e.g. one "test result:" line per test binary of cargo test; a group that
// never held an integer is null.
//
// json parses the output as JSON and selects with a JSONPath (path):
//
//	coverage: {type: json, path: "$.summary.lineCoverage"}
//
// A definite path (only names and single indexes) gives the selected value
// or null; any other path (wildcards, filters, slices, descent) gives a
// list. The whole output is buffered, up to [MaxJSONBytes]; beyond that,
// or when the output is not JSON, the run fails with a clear error. By
// default json reads stdout only. With jsonLines the output is one JSON
// document per line (go test -json, cargo --message-format=json): path is
// applied to each document and the results are listed (at most
// maxMatches); lines that do not start with { or [ are skipped. In
// jsonLines mode a path that starts with a filter tests the line document
// itself, so "$[?(@.Action == 'fail')].Test" lists failed tests.
//
// With fields, a json parser produces diagnostics instead: path selects
// the items and fields maps diagnostic fields to JSONPaths relative to
// each item. lineBase: 0 (and columnBase) declare 0-based positions:
//
//	diagnostics:
//	  type: json
//	  path: "$.generalDiagnostics[*]"
//	  lineBase: 0
//	  fields: {file: "$.file", line: "$.range.start.line", message: "$.message"}
//
// exitCode reports whether the exit code is one of successCodes
// (default [0]): {"success": true, "exit_code": 0}.
//
// diagnostics turns matching lines into a list of [diagnostic.Diagnostic], given by
// exactly one of pattern (a regexp whose named groups are file, line,
// column, endLine, endColumn, severity, code and message), errorformat
// (Vim errorformat lines, including multi-line %A/%C/%Z formats) or preset
// (a built-in format such as go, gcc, msbuild, tsc, rustc, javac, mypy,
// pyright, eslint or python, or any errorformat name known to
// github.com/reviewdog/errorformat/fmts). Severities are normalised to
// error, warning, info or hint; severity sets the one used when the output
// gives none (default error). Identical diagnostics are reported once.
// The value is the list, which the run also returns in
// [Result.Diagnostics].
//
// gotest reads the events of `go test -json` (cmd/test2json) from stdout:
// its value is a [TestReport] (passed, failed and skipped tests, counting
// subtests, and the failed ones with the file:line of their first log
// line), and its diagnostics are the failures with a location and the
// build errors. A package that fails with no failing test (a build error,
// a panic before the tests) counts as one failure named after it. Lines
// that are not events are ignored.
//
// # Running
//
// Parsers of one tool form a [Set]. A [SetRun] takes lines from both
// streams, possibly from two goroutines, through [SetRun.Line] or the
// io.Writers of [SetRun.Writer], which split bytes into lines with a
// [LineWriter] (CRLF aware, lines cut at [MaxLineBytes]). [SetRun.Finish]
// returns every output by name. Each parser reads stdout and stderr unless
// stream says otherwise.
package parsers
