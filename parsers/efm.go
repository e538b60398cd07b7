package parsers

import (
	"bufio"
	"io"
	"strconv"

	"github.com/reviewdog/errorformat"
)

// efmLineBytes caps lines handed to errorformat, whose scanner stops at
// lines longer than bufio.MaxScanTokenSize.
const efmLineBytes = bufio.MaxScanTokenSize - 1024

// efmChunkBytes batches lines before they cross to the scanning goroutine.
const efmChunkBytes = 32 << 10

// efmSink runs a reviewdog errorformat scanner. The scanner pulls from an
// io.Reader, so it runs on its own goroutine fed through a pipe; lines are
// batched to keep the hand-offs rare. Finish waits for the goroutine.
type efmSink struct {
	efm        *errorformat.Errorformat
	codePrefix string
	build      diagnosticBuilder
	max        int

	started bool
	pw      *io.PipeWriter
	chunk   []byte
	done    chan Result
}

func (s *efmSink) start() {
	s.started = true
	pr, pw := io.Pipe()
	s.pw = pw
	s.done = make(chan Result, 1)
	list := diagnosticList{max: s.max}
	go func() {
		sc := s.efm.NewScanner(pr)
		for sc.Scan() {
			s.add(&list, sc.Entry())
		}
		// Drain whatever the scanner left so the writer never blocks.
		_, _ = io.Copy(io.Discard, pr)
		s.done <- list.result()
	}()
}

func (s *efmSink) add(list *diagnosticList, e *errorformat.Entry) {
	if !e.Valid || e.Text == "" {
		return
	}
	d := Diagnostic{File: e.Filename, Message: e.Text}
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
	_, _ = s.pw.Write(s.chunk) // the reader drains until EOF, so this cannot fail
	s.chunk = s.chunk[:0]
}

func (s *efmSink) finish(int) (Result, error) {
	if !s.started {
		return (&diagnosticList{}).result(), nil
	}
	s.flush()
	s.pw.Close()
	return <-s.done, nil
}
