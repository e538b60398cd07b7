package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readAll returns every line of input as the reader sees it; a discarded
// line shows as "<too long>".
func readAll(t *testing.T, input string, max int) []string {
	t.Helper()
	lr := newLineReader(strings.NewReader(input), max)
	var got []string
	for {
		line, err := lr.next()
		switch {
		case errors.Is(err, errLineTooLong):
			got = append(got, "<too long>")
		case err == io.EOF:
			return got
		case err != nil:
			t.Fatalf("next: %v", err)
		default:
			got = append(got, string(line))
		}
		if len(got) > len(input)+1 {
			t.Fatal("reader does not advance")
		}
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the bufio buffer
	cases := []struct {
		name  string
		input string
		max   int
		want  []string
	}{
		{"lines", "a\nb\n", 8, []string{"a", "b"}},
		{"crlf and last line without newline", "a\r\nb", 8, []string{"a", "b"}},
		{"blank lines skipped", "\n  \r\n\t\na\n\n", 8, []string{"a"}},
		{"exactly max", "12345678\r\n", 8, []string{"12345678"}},
		{"max plus one", "123456789\nok\n", 8, []string{"<too long>", "ok"}},
		{"too long at the end without newline", "ok\n" + strings.Repeat("y", 100), 8, []string{"ok", "<too long>"}},
		{"long line within the limit", long + "\nok\n", 300 << 10, []string{long, "ok"}},
		{"long line over the limit", long + "\nok\n", 100 << 10, []string{"<too long>", "ok"}},
		{"long lines in a row", long + "\n" + long + "x\nok\n", 300 << 10, []string{long, long + "x", "ok"}},
		{"long line of exactly max with crlf", long + "\r\nok", 200 << 10, []string{long, "ok"}},
		{"long line of max plus one", long + "z\r\nok\n", 200 << 10, []string{"<too long>", "ok"}},
		{"long line over the limit at the end", "ok\n" + long, 100 << 10, []string{"ok", "<too long>"}},
		{"empty", "", 8, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(t, c.input, c.max)
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("lines = %.60q, want %.60q", got, c.want)
			}
		})
	}
}

// TestLineReaderBuffer: the reader's buffer is small whatever the limit,
// so the longest allowed line costs memory only when one arrives.
func TestLineReaderBuffer(t *testing.T) {
	lr := newLineReader(strings.NewReader(""), MaxLineBytes)
	if lr.r.Size() > lineBuffer {
		t.Errorf("buffer of %d bytes, want at most %d", lr.r.Size(), lineBuffer)
	}
}

func TestDecodeLine(t *testing.T) {
	cases := []struct {
		line string
		code int64  // 0: accepted
		id   string // id of the error response
		msg  string
	}{
		{`garbage`, jsonrpc.CodeParseError, "null", "parse error: invalid character 'g'"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, jsonrpc.CodeParseError, "null", "parse error"},
		{`{} {}`, jsonrpc.CodeParseError, "null", "parse error"},
		{`[]`, jsonrpc.CodeInvalidRequest, "null", "batches are not supported"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null", "batches are not supported"},
		{`42`, jsonrpc.CodeInvalidRequest, "null", "a JSON-RPC message is a JSON object, not 42"},
		{`"hello"`, jsonrpc.CodeInvalidRequest, "null", `not "hello"`},
		{`null`, jsonrpc.CodeInvalidRequest, "null", "not null"},
		{`{"jsonrpc":"2.0"}`, jsonrpc.CodeInvalidRequest, "null", "invalid request"},
		{`{"id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7", "version tag"},
		{`{"jsonrpc":"1.0","id":"a","method":"ping"}`, jsonrpc.CodeInvalidRequest, `"a"`, "version tag"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null", "invalid ID type"},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, jsonrpc.CodeInvalidRequest, "1", "invalid request"},
		{`{"jsonrpc":"2.0","id":1,"error":"boom"}`, jsonrpc.CodeInvalidRequest, "1", "invalid request"},
		{` {"jsonrpc":"2.0","id":1,"method":"ping"} `, 0, "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", ""},
		{`{"jsonrpc":"2.0","id":"r1","result":{}}`, 0, "", ""},
	}
	for _, c := range cases {
		msg, werr := decodeLine([]byte(c.line))
		if c.code == 0 {
			if werr != nil || msg == nil {
				t.Errorf("%s: rejected: %+v", c.line, werr)
			}
			continue
		}
		if werr == nil {
			t.Errorf("%s: accepted as %T", c.line, msg)
			continue
		}
		if werr.Error.Code != c.code || string(werr.ID) != c.id || !strings.Contains(werr.Error.Message, c.msg) {
			t.Errorf("%s: got code %d id %s %q; want code %d id %s, message containing %q",
				c.line, werr.Error.Code, werr.ID, werr.Error.Message, c.code, c.id, c.msg)
		}
	}
}

// stdioPeer serves a small real MCP server over pipes with the stdio
// transport, and lets a test write raw lines and read raw answers.
type stdioPeer struct {
	in   io.WriteCloser // the server's stdin
	out  *bufio.Reader  // the server's stdout
	outR io.ReadCloser
	done chan error
}

func newStdioPeer(t *testing.T) *stdioPeer {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{in: inW, out: bufio.NewReader(outR), outR: outR, done: make(chan error, 1)}
	go func() {
		p.done <- serveLines(context.Background(), srv, inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		<-p.done
	})
	return p
}

func (p *stdioPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("write %q: %v", line, err)
	}
}

// answer reads one response line.
func (p *stdioPeer) answer(t *testing.T) map[string]any {
	t.Helper()
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("answer %q is not JSON: %v", line, err)
	}
	return m
}

func wantError(t *testing.T, m map[string]any, code float64, id any) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != code || m["id"] != id || m["jsonrpc"] != "2.0" {
		t.Errorf("answer = %v, want error %v with id %v", m, code, id)
	}
	if _, ok := m["id"]; !ok {
		t.Errorf("answer %v has no id member (must be null)", m)
	}
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestStdioSurvivesMalformedInput: malformed lines get JSON-RPC errors and
// the session goes on, with raw lines and then with the SDK's client.
func TestStdioSurvivesMalformedInput(t *testing.T) {
	p := newStdioPeer(t)
	p.send(t, "this is not json")
	wantError(t, p.answer(t), jsonrpc.CodeParseError, nil)
	for _, line := range []string{`[]`, `42`, `{"jsonrpc":"2.0"}`} {
		p.send(t, line)
		wantError(t, p.answer(t), jsonrpc.CodeInvalidRequest, nil)
	}
	p.send(t, `{"id":5,"method":"ping"}`)
	wantError(t, p.answer(t), jsonrpc.CodeInvalidRequest, float64(5))

	// A line over the limit, streamed without holding it in memory.
	go func() {
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for i := 0; i <= MaxLineBytes>>20; i++ {
			p.in.Write(chunk)
		}
		p.in.Write([]byte("\n"))
	}()
	m := p.answer(t)
	wantError(t, m, jsonrpc.CodeInvalidRequest, nil)
	if msg := m["error"].(map[string]any)["message"]; !strings.Contains(msg.(string), "longer than 16777216 bytes") {
		t.Errorf("message = %v", msg)
	}

	p.send(t, initialize)
	if m := p.answer(t); m["id"] != float64(1) || m["result"] == nil {
		t.Fatalf("initialize answer = %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := p.answer(t); m["id"] != float64(2) || !strings.Contains(dumpJSON(m), `"name":"echo"`) {
		t.Fatalf("tools/list answer = %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"not an object"}`)
	if m := p.answer(t); m["id"] != float64(3) || m["error"] == nil {
		t.Errorf("tools/call with bad params = %v", m)
	}
	select {
	case err := <-p.done:
		t.Fatalf("server stopped: %v", err)
	default:
	}
}

// TestStdioSDKClientAfterGarbage connects the SDK's client after garbage
// was sent and answered, and uses the session normally.
func TestStdioSDKClientAfterGarbage(t *testing.T) {
	p := newStdioPeer(t)
	p.send(t, "{oops")
	wantError(t, p.answer(t), jsonrpc.CodeParseError, nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{
		Reader: readCloser{p.out, p.outR}, Writer: p.in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "still here" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

func dumpJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// FuzzLineReader feeds arbitrary bytes through the line reader and the
// message check with a small line limit: nothing panics, every non-blank
// line is either a message for the SDK or an error answer that is valid
// JSON-RPC, and no line is longer than the limit.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{
		initialize + "\n",
		"garbage\n[]\n42\n{\"jsonrpc\":\"2.0\"}\n",
		"{\"id\":1,\"method\":\"x\"}\r\n\r\n  \n",
		"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
		strings.Repeat("z", 100) + "\n{}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"ping\"}\n",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"result\":null}\n",
	} {
		f.Add([]byte(s))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		want := 0 // lines the reader must report, counted independently
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if len(bytes.TrimSuffix(l, []byte{'\r'})) > max || len(bytes.Trim(l, " \t\r")) > 0 {
				want++
			}
		}
		lr := newLineReader(bytes.NewReader(data), max)
		got := 0
		for {
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			got++
			if got > want {
				t.Fatalf("more lines (%d) than in the input (%d)", got, want)
			}
			if errors.Is(err, errLineTooLong) {
				continue
			}
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			if len(line) > max || bytes.IndexByte(line, '\n') >= 0 {
				t.Fatalf("line %q breaks the limit or holds a newline", line)
			}
			msg, werr := decodeLine(line)
			if (msg == nil) == (werr == nil) {
				t.Fatalf("decodeLine(%q) = %v, %v: want exactly one", line, msg, werr)
			}
			if werr != nil {
				raw, err := json.Marshal(werr)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := jsonrpc.DecodeMessage(raw); err != nil && string(werr.ID) != "null" {
					t.Fatalf("error answer %s is not JSON-RPC: %v", raw, err)
				}
				continue
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("accepted %q cannot be encoded again: %v", line, err)
			}
		}
		if got != want {
			t.Fatalf("read %d lines, input has %d", got, want)
		}
	})
}
