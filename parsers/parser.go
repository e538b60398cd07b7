package parsers

import (
	"github.com/langhost/langhost/plugins/pluginapi/failure"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// Parser is a compiled output parser. It is immutable and safe for
// concurrent use; each execution of a tool gets its own Run.
type Parser struct {
	name    string
	kind    Kind
	streams Stream
	newSink func() sink
}

// sink consumes the lines of one run and produces its result.
type sink interface {
	line(line []byte)
	finish(exitCode int) (Result, error)
}

// Result is what a parser extracted from one run of a tool.
type Result struct {
	// Value is JSON-friendly: nil, bool, int64, float64, string,
	// []any, map[string]any, []string, []diagnostic.Diagnostic or TestReport.
	Value any
	// Diagnostics is set by diagnostics parsers and json parsers with
	// fields; it is the same list as Value.
	Diagnostics []diagnostic.Diagnostic
}

// Name is the output name the parser was compiled with.
func (p *Parser) Name() string { return p.name }

// Kind is the parser's type.
func (p *Parser) Kind() Kind { return p.kind }

// Streams reports which output streams the parser reads.
func (p *Parser) Streams() Stream { return p.streams }

// Start begins parsing one run of the tool.
func (p *Parser) Start() *Run {
	return &Run{parser: p, sink: p.newSink()}
}

// Run is one execution's parsing state. Feed it every output line with
// Line, then call Finish once. A Run is not safe for concurrent use: a
// caller copying stdout and stderr on two goroutines must serialise its
// calls, or use a Set, which does.
type Run struct {
	parser   *Parser
	sink     sink
	finished bool
}

// Line feeds one line, without its newline, read from stream. Lines from
// streams the parser does not read, and lines after Finish, are ignored.
// line is not retained.
func (r *Run) Line(stream Stream, line []byte) {
	if r.parser.streams&stream != 0 && !r.finished {
		r.sink.line(line)
	}
}

// Finish ends the run of a tool that exited with exitCode and returns what
// the parser extracted. The error, of class failure.ToolFailed, says why
// the output could not be parsed, e.g. a json parser whose input was not
// JSON.
func (r *Run) Finish(exitCode int) (Result, error) {
	if r.finished {
		return Result{}, failure.New(failure.Internal, "output %q: Finish called twice", r.parser.name)
	}
	r.finished = true
	return r.sink.finish(exitCode)
}
