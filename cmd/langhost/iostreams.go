package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// ioStreams are the streams a command reads and writes; tests inject buffers.
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY is true when Out is a terminal: text output becomes the default.
	OutTTY bool
	// ErrTTY is true when ErrOut is a terminal: progress of long work
	// goes there.
	ErrTTY bool
	// Width is the terminal's width in columns when Out is one, else 0
	// (no limit): tables fit it (see style.table).
	Width int
}

func systemIO() *ioStreams {
	s := &ioStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, OutTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr)}
	if s.OutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.Width = w
		}
	}
	return s
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
