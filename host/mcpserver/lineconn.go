package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes caps one message on the stdio transport. Longer lines are
// discarded as they stream in and answered with an error, so a client
// cannot make the server buffer without bound.
const MaxLineBytes = 16 << 20

// errLineTooLong is returned by lineReader.next for a discarded line.
var errLineTooLong = fmt.Errorf("message longer than %d bytes", MaxLineBytes)

// lineReader reads newline-delimited messages of at most max bytes, the
// framing of the MCP stdio transport.
type lineReader struct {
	r   *bufio.Reader
	max int
	// long assembles a line longer than r's buffer; it is dropped once
	// larger than keepLong, so one large message does not stay live.
	long []byte
}

// lineBuffer is the size of the reader's buffer: a line that fits is
// returned in place. It is not the longest allowed line: a buffer that
// large (16 MiB) is live heap for the whole session and doubles the
// garbage the host lets pile up before each collection.
const (
	lineBuffer = 64 << 10
	keepLong   = 1 << 20
)

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, min(lineBuffer, max+2)), max: max}
}

// next returns the next line that is not blank, without its line ending;
// the line is valid until the following call. A line longer than max is
// read to its end, discarded and reported as errLineTooLong; the reader
// then stands at the following line. next returns io.EOF at the end of the
// input; a last line without a newline is still returned.
func (lr *lineReader) next() ([]byte, error) {
	if cap(lr.long) > keepLong {
		lr.long = nil
	}
	for {
		line, err := lr.readLine()
		switch {
		case errors.Is(err, errLineTooLong):
			return nil, err
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil, io.EOF
		case err != nil && !errors.Is(err, io.EOF):
			return nil, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if len(line) > lr.max {
			return nil, errLineTooLong
		}
		if len(bytes.Trim(line, " \t\r")) > 0 {
			return line, nil
		}
	}
}

// readLine returns the next line with its terminator: in place when it
// fits the reader's buffer, else assembled in lr.long. A line longer than
// max and its terminator is discarded as it streams in (errLineTooLong).
// The pieces of a long line are kept apart until it ends: growing one
// buffer would hold its old and new copies at once, and a line found too
// long is never joined.
func (lr *lineReader) readLine() ([]byte, error) {
	line, err := lr.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	pieces := [][]byte{bytes.Clone(line)}
	n := len(line)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = lr.r.ReadSlice('\n')
		if n += len(line); n > lr.max+2 {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = lr.discardLine()
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errLineTooLong
		}
		pieces = append(pieces, bytes.Clone(line))
	}
	if cap(lr.long) < n {
		lr.long = make([]byte, 0, n)
	}
	lr.long = lr.long[:0]
	for _, p := range pieces {
		lr.long = append(lr.long, p...)
	}
	return lr.long, err
}

// discardLine skips the rest of the current line.
func (lr *lineReader) discardLine() error {
	for {
		_, err := lr.r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// wireError is a JSON-RPC error response the transport writes itself. Its
// id is null when the offending message's id cannot be read, as JSON-RPC
// 2.0 requires.
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// newWireError returns an error response; a nil id is sent as null.
func newWireError(code int64, id json.RawMessage, format string, args ...any) *wireError {
	w := &wireError{JSONRPC: "2.0", ID: id}
	if w.ID == nil {
		w.ID = json.RawMessage("null")
	}
	w.Error.Code = code
	w.Error.Message = fmt.Sprintf(format, args...)
	return w
}

// decodeLine turns one line into a message for the SDK, or into the error
// response that answers it.
func decodeLine(line []byte) (jsonrpc.Message, *wireError) {
	var raw json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, newWireError(jsonrpc.CodeParseError, nil, "parse error: %v", err)
	}
	switch raw[0] {
	case '{':
	case '[':
		return nil, newWireError(jsonrpc.CodeInvalidRequest, nil, "invalid request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18)")
	default:
		return nil, newWireError(jsonrpc.CodeInvalidRequest, nil, "invalid request: a JSON-RPC message is a JSON object, not %.40s", raw)
	}
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return nil, newWireError(jsonrpc.CodeInvalidRequest, requestID(raw), "invalid request: %v", err)
	}
	return msg, nil
}

// requestID returns the id of a message object when it is a string or a
// number, the only kinds an answer may echo.
func requestID(obj []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(obj, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var id any
	if json.Unmarshal(m.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// lineTransport is the stdio transport: newline-delimited JSON-RPC like
// mcp.StdioTransport, except that a line that is not JSON, not a JSON-RPC
// message or too long is answered with an error response and skipped.
// The SDK's transport ends the session on such a line instead.
type lineTransport struct {
	in  io.ReadCloser
	out io.Writer
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		in:       t.in,
		out:      t.out,
		incoming: make(chan readResult),
		closed:   make(chan struct{}),
	}
	// Reading in a goroutine lets Close unblock Read, as mcp.Connection
	// requires, even when in.Read itself does not return on Close.
	go c.readLoop(newLineReader(t.in, MaxLineBytes))
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn implements mcp.Connection over a lineTransport.
type lineConn struct {
	in       io.ReadCloser
	out      io.Writer
	wmu      sync.Mutex // one message per Write, never interleaved
	incoming chan readResult
	closed   chan struct{}
	once     sync.Once
}

func (c *lineConn) readLoop(lr *lineReader) {
	for {
		line, err := lr.next()
		var res readResult
		switch {
		case errors.Is(err, errLineTooLong):
			c.writeError(newWireError(jsonrpc.CodeInvalidRequest, nil, "invalid request: %v; it was discarded", err))
			continue
		case err != nil:
			res.err = err
		default:
			msg, werr := decodeLine(line)
			if werr != nil {
				c.writeError(werr)
				continue
			}
			res.msg = msg
		}
		select {
		case c.incoming <- res:
		case <-c.closed:
			return
		}
		if res.err != nil {
			return
		}
	}
}

// writeError answers a rejected line. A write error is not handled here: it
// recurs, and ends the session, on the SDK's next Write.
func (c *lineConn) writeError(w *wireError) {
	data, err := json.Marshal(w)
	if err == nil { // plain data always encodes
		_ = c.writeLine(data)
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding JSON-RPC message: %w", err)
	}
	return c.writeLine(data)
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}

// SessionID implements mcp.Connection; stdio has a single session.
func (c *lineConn) SessionID() string { return "" }
