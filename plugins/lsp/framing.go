package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Limits of one framed message. A language server is untrusted: without
// them a header without an end or a Content-Length of 10 GB would make the
// reader buffer or allocate until the plugin runs out of memory.
const (
	MaxHeaderBytes = 64 << 10  // all header lines of one message
	MaxBodyBytes   = 256 << 20 // one message body
)

// ErrMalformed is wrapped by errors about peer output that is not LSP: bad
// framing, or a body that is not a JSON-RPC message. The stream cannot be
// trusted after it, so the connection ends.
var ErrMalformed = errors.New("language server sent malformed output")

// bodyPrealloc bounds what ReadMessage allocates before the body arrives, so
// a peer that announces a large body and sends nothing costs little.
const bodyPrealloc = 1 << 20

// ReadMessage reads one Content-Length framed message and returns its body.
// It returns io.EOF when r ends before the message's first byte, an error
// wrapping io.ErrUnexpectedEOF when r ends inside it, and an error wrapping
// ErrMalformed for framing that breaks the LSP base protocol or the limits
// MaxHeaderBytes and MaxBodyBytes.
func ReadMessage(r *bufio.Reader) ([]byte, error) {
	budget := MaxHeaderBytes
	length := -1
	for first := true; ; first = false {
		line, err := readHeaderLine(r, &budget)
		if err != nil {
			if errors.Is(err, io.EOF) {
				if first && line == "" {
					return nil, io.EOF
				}
				return nil, fmt.Errorf("reading LSP header: %w", io.ErrUnexpectedEOF)
			}
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %.80q is not \"Name: value\"", ErrMalformed, line)
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type is the only other header; nothing needs it
		}
		value = strings.TrimSpace(value)
		// ParseUint takes digits only: no sign, no spaces, no hex.
		n, err := strconv.ParseUint(value, 10, 63)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange), err == nil && n > MaxBodyBytes:
			return nil, fmt.Errorf("%w: Content-Length %.80s exceeds the limit of %d bytes", ErrMalformed, value, MaxBodyBytes)
		case err != nil:
			return nil, fmt.Errorf("%w: Content-Length %.80q is not a byte count", ErrMalformed, value)
		case length >= 0 && int(n) != length:
			return nil, fmt.Errorf("%w: two Content-Length headers (%d and %d)", ErrMalformed, length, n)
		}
		length = int(n)
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: message without Content-Length header", ErrMalformed)
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(length, bodyPrealloc)))
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(length))); err != nil {
		return nil, fmt.Errorf("reading LSP body of %d bytes: %w", length, err)
	}
	if buf.Len() < length {
		return nil, fmt.Errorf("reading LSP body of %d bytes: got %d: %w", length, buf.Len(), io.ErrUnexpectedEOF)
	}
	return buf.Bytes(), nil
}

// readHeaderLine reads one header line without its line ending, charging
// its bytes to budget. At the end of r it returns what it read and io.EOF.
func readHeaderLine(r *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		*budget -= len(frag)
		if *budget < 0 {
			return "", fmt.Errorf("%w: header longer than %d bytes", ErrMalformed, MaxHeaderBytes)
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
			return string(line), nil
		case !errors.Is(err, bufio.ErrBufferFull):
			if errors.Is(err, io.EOF) {
				return string(line), io.EOF
			}
			return "", fmt.Errorf("reading LSP header: %w", err)
		}
	}
}

// WriteMessage writes one framed message with a single Write (one system
// call on a pipe). The caller serialises concurrent writers.
func WriteMessage(w io.Writer, body []byte) error {
	msg := make([]byte, 0, len(body)+32)
	msg = fmt.Appendf(msg, "Content-Length: %d\r\n\r\n", len(body))
	msg = append(msg, body...)
	_, err := w.Write(msg)
	return err
}
