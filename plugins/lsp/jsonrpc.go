package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
)

// JSON-RPC and LSP error codes a caller may need to recognise.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
	CodeContentModified  = -32801
	CodeServerCancelled  = -32802
	CodeRequestFailed    = -32803
	// CodeRoslynNonFatal is the code Roslyn's language server uses for a
	// request that failed without harming the server.
	CodeRoslynNonFatal = -30099
)

// ResponseError is an error response from the peer.
type ResponseError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// message is any JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method only) or a response (ID with Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *ResponseError  `json:"error,omitempty"`
}

func (m *message) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// readMessage reads one Content-Length framed message body.
func readMessage(r *bufio.Reader) ([]byte, error) {
	tp := textproto.NewReader(r)
	length := -1
	for {
		line, err := tp.ReadLine()
		if err != nil {
			if err == io.EOF && length < 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading LSP header: %w", err)
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("malformed LSP header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("LSP message without Content-Length header")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("reading LSP body of %d bytes: %w", length, err)
	}
	return body, nil
}

// writeMessage writes one framed message. The caller serialises writes.
func writeMessage(w io.Writer, body []byte) error {
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}
