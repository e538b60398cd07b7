package main

import (
	"io"
	"os"
)

// ioStreams are the streams a command reads and writes; tests inject buffers.
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY is true when Out is a terminal: text output becomes the default.
	OutTTY bool
}

func systemIO() *ioStreams {
	return &ioStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, OutTTY: isTerminal(os.Stdout)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
