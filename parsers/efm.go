package parsers

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/reviewdog/errorformat"

	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// efmLineBytes caps lines handed to errorformat, whose scanner stops at
// lines longer than bufio.MaxScanTokenSize.
const efmLineBytes = bufio.MaxScanTokenSize - 1024

// efmChunkBytes batches lines before they cross to the scanning goroutine.
const efmChunkBytes = 32 << 10

// An errorformat scanner keeps every entry it has produced, with every
// line of each, and appends each continuation line to its entry's text by
// copying the text: a tool printing without end would cost it unbounded
// memory, and one endless multi-line entry quadratic time. So a scanner
// is replaced by a fresh one, at a line boundary, after efmScanBytes of
// input, or after efmEntryLines lines without an entry completing. The
// entry in progress then ends there, keeping its first lines.
const (
	efmScanBytes  = 1 << 20
	efmEntryLines = 200
)

// efmSink runs reviewdog errorformat scanners. A scanner pulls from an
// io.Reader, so they run on their own goroutine fed with batches of whole
// lines through a channel. Finish waits for the goroutine.
type efmSink struct {
	efm        *errorformat.Errorformat
	codePrefix string
	build      diagnosticBuilder
	max        int

	started bool
	feed    chan []byte
	chunk   []byte
	done    chan Result
}

func (s *efmSink) start() {
	s.started = true
	s.feed = make(chan []byte, 1)
	s.done = make(chan Result, 1)
	go func() {
		list := diagnosticList{max: s.max}
		r := &lineFeed{ch: s.feed}
		for !r.closed {
			r.bytes, r.lines = 0, 0
			sc := s.efm.NewScanner(r)
			for sc.Scan() {
				s.add(&list, sc.Entry())
				r.lines = 0
			}
		}
		s.done <- list.result()
	}()
}

func (s *efmSink) add(list *diagnosticList, e *errorformat.Entry) {
	if !e.Valid || e.Text == "" {
		return
	}
	d := diagnostic.Diagnostic{Path: e.Filename, Message: e.Text}
	if e.Nr > 0 {
		d.Code = s.codePrefix + strconv.Itoa(e.Nr)
	}
	line, col, endLine, endCol := -1, -1, -1, -1
	if e.Lnum > 0 {
		line = e.Lnum
	}
	if e.Col > 0 {
		col = e.Col
	}
	if e.EndLnum > 0 {
		endLine = e.EndLnum
	}
	if e.EndCol > 0 {
		endCol = e.EndCol
	}
	var sev string
	if e.Type != 0 {
		sev = string(e.Type)
	}
	s.build.finish(&d, line, col, endLine, endCol, sev)
	list.add(d)
}

func (s *efmSink) line(line []byte) {
	if !s.started {
		s.start()
	}
	s.chunk = append(s.chunk, line[:min(len(line), efmLineBytes)]...)
	s.chunk = append(s.chunk, '\n')
	if len(s.chunk) >= efmChunkBytes {
		s.flush()
	}
}

func (s *efmSink) flush() {
	if len(s.chunk) > 0 {
		s.feed <- s.chunk
		s.chunk = nil // the scanning goroutine owns the sent chunk
	}
}

func (s *efmSink) finish(int) (Result, error) {
	if !s.started {
		return (&diagnosticList{}).result(), nil
	}
	s.flush()
	close(s.feed)
	return <-s.done, nil
}

// lineFeed reads the batches of lines sent to a scanner, one line per
// Read, so that the scanner never buffers lines ahead of what it has
// scanned and the counts below are those of the lines it has seen. It
// reports io.EOF at a line boundary once the scanner has had its share
// (see efmScanBytes); closed says the input itself has ended.
type lineFeed struct {
	ch     <-chan []byte
	buf    []byte // the rest of the current batch
	bytes  int    // handed to the current scanner
	lines  int    // handed to it since it last completed an entry
	inLine bool   // the last Read stopped inside a line
	closed bool
}

func (f *lineFeed) Read(p []byte) (int, error) {
	if !f.inLine && (f.bytes >= efmScanBytes || f.lines >= efmEntryLines) {
		return 0, io.EOF
	}
	if len(f.buf) == 0 {
		batch, ok := <-f.ch
		if !ok {
			f.closed = true
			return 0, io.EOF
		}
		f.buf = batch
	}
	end := len(f.buf) // batches end in a newline
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
		end = i + 1
	}
	n := copy(p, f.buf[:end])
	f.buf = f.buf[n:]
	f.bytes += n
	f.inLine = n < end
	if !f.inLine {
		f.lines++
	}
	return n, nil
}
