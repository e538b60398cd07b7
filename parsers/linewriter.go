package parsers

import "bytes"

// MaxLineBytes is the default cap on the length of one line passed on by a
// LineWriter. The rest of a longer line is dropped.
const MaxLineBytes = 1 << 20

// LineWriter is an io.Writer that splits a byte stream into lines and
// passes each one, without its "\n" or "\r\n", to a callback. Partial lines
// are carried across Write calls; a line longer than the cap is cut to the
// cap and the rest of it is dropped, so memory stays bounded whatever the
// input. Call Flush (or Close) at the end of the stream to pass on a last
// line that has no newline.
//
// The line slice passed to the callback is only valid during the call.
// A LineWriter is not safe for concurrent use; use one per stream.
type LineWriter struct {
	fn     func(line []byte)
	max    int
	buf    []byte // start of the current line, at most max bytes
	total  int    // length of the current line so far, including dropped bytes
	lastCR bool   // the last byte of the current line so far is '\r'
}

// NewLineWriter returns a LineWriter calling fn for each line, cutting
// lines at maxLine bytes (MaxLineBytes when maxLine <= 0).
func NewLineWriter(maxLine int, fn func(line []byte)) *LineWriter {
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	return &LineWriter{fn: fn, max: maxLine}
}

// Write splits p into lines. It always consumes all of p.
func (w *LineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			break
		}
		if w.total == 0 {
			// Whole line inside p: pass it on without copying.
			line := p[:i]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			w.fn(line[:min(len(line), w.max)])
		} else {
			w.add(p[:i])
			w.emit()
		}
		p = p[i+1:]
	}
	return n, nil
}

// add appends part of the current line, keeping at most max bytes.
func (w *LineWriter) add(p []byte) {
	if len(p) == 0 {
		return
	}
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(len(p), room)]...)
	}
	w.total += len(p)
	w.lastCR = p[len(p)-1] == '\r'
}

// emit passes on the current line and starts a new one.
func (w *LineWriter) emit() {
	n := w.total
	if w.lastCR {
		n--
	}
	w.fn(w.buf[:min(n, len(w.buf))])
	if cap(w.buf) > 64<<10 {
		w.buf = nil // do not pin a megabyte after one long line
	} else {
		w.buf = w.buf[:0]
	}
	w.total, w.lastCR = 0, false
}

// Flush passes on the pending unterminated line, if any.
func (w *LineWriter) Flush() {
	if w.total > 0 {
		w.emit()
	}
}

// Close flushes the pending line. It never fails.
func (w *LineWriter) Close() error {
	w.Flush()
	return nil
}
