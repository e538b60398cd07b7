package parsers

import (
	"bytes"
	"errors"
	"sort"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Set holds the parsers of one tool.
type Set struct {
	parsers []*Parser // sorted by name, so diagnostics come in a stable order
}

// NewSet returns a Set of parsers keyed by output name. The map keys are
// the output names; a parser's own name is used only in messages.
func NewSet(parsers map[string]*Parser) *Set {
	names := make([]string, 0, len(parsers))
	for name := range parsers {
		names = append(names, name)
	}
	sort.Strings(names)
	s := &Set{parsers: make([]*Parser, len(names))}
	for i, name := range names {
		p := *parsers[name]
		p.name = name
		s.parsers[i] = &p
	}
	return s
}

// Start begins parsing one run of the tool.
func (s *Set) Start() *SetRun {
	r := &SetRun{runs: make([]*Run, len(s.parsers))}
	for i, p := range s.parsers {
		r.runs[i] = p.Start()
		r.streams |= p.streams
	}
	r.stdout = NewLineWriter(MaxLineBytes, func(line []byte) { r.Line(Stdout, line) })
	r.stderr = NewLineWriter(MaxLineBytes, func(line []byte) { r.Line(Stderr, line) })
	return r
}

// SetRun is one execution's parsing state for all parsers of a Set. It is
// safe for concurrent use: stdout and stderr may be fed from different
// goroutines.
type SetRun struct {
	mu       sync.Mutex
	runs     []*Run
	streams  Stream
	finished bool
	plain    []byte // scratch for lines with escape sequences, guarded by mu
	// One LineWriter per stream; each is used by one goroutine only.
	stdout, stderr *LineWriter
}

// Line feeds one line, without its newline, to every parser reading
// stream. Lines fed after Finish are ignored.
func (r *SetRun) Line(stream Stream, line []byte) {
	if r.streams&stream == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	if bytes.IndexByte(line, 0x1b) >= 0 {
		r.plain = stripANSI(r.plain, line)
		line = r.plain
	}
	for _, run := range r.runs {
		run.Line(stream, line)
	}
}

// Writer returns an io.Writer that splits the bytes of stream into lines
// for this run, e.g. for exec.Cmd.Stdout. Use each writer from one
// goroutine at a time; Finish flushes their unterminated last lines.
func (r *SetRun) Writer(stream Stream) *LineWriter {
	if stream == Stderr {
		return r.stderr
	}
	return r.stdout
}

// Finish ends the run of a tool that exited with exitCode; call it once,
// after the writers' last Write has returned. It returns the
// value of every parser by output name and the diagnostics of all
// diagnostics-producing parsers in output-name order. A parser that
// failed has no entry in outputs and its error, naming the output, is
// joined into err; the other outputs are still returned.
func (r *SetRun) Finish(exitCode int) (outputs map[string]any, diags []diagnostic.Diagnostic, err error) {
	r.stdout.Flush()
	r.stderr.Flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return nil, nil, failure.New(failure.Internal, "parsers: Finish called twice")
	}
	r.finished = true
	outputs = make(map[string]any, len(r.runs))
	var errs []error
	for _, run := range r.runs {
		res, err := run.Finish(exitCode)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		outputs[run.parser.name] = res.Value
		diags = append(diags, res.Diagnostics...)
	}
	return outputs, diags, errors.Join(errs...)
}
