package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestWriteMessage(t *testing.T) {
	var b strings.Builder
	if err := WriteMessage(&b, []byte(`{"a":"ü"}`)); err != nil {
		t.Fatal(err)
	}
	if b.String() != "Content-Length: 10\r\n\r\n{\"a\":\"ü\"}" {
		t.Errorf("framed = %q", b.String())
	}
}

func TestReadMessage(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Type: x\r\ncontent-length: 2\r\n\r\n{}Content-Length:3\n\n[1]"))
	for _, want := range []string{"{}", "[1]"} {
		got, err := ReadMessage(r)
		if err != nil || string(got) != want {
			t.Errorf("ReadMessage = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := ReadMessage(r); err != io.EOF {
		t.Errorf("at end: %v, want io.EOF", err)
	}
}

// TestReadMessageHostile checks that broken or oversized framing is refused
// with a message naming the problem, without allocating what it announces.
func TestReadMessageHostile(t *testing.T) {
	huge := strconv.Itoa(MaxBodyBytes + 1)
	cases := []struct {
		name  string
		input string
		want  error  // errors.Is target
		msg   string // part of the message
	}{
		{"no Content-Length", "X: 1\r\n\r\n{}", ErrMalformed, "without Content-Length"},
		{"non-numeric length", "Content-Length: abc\r\n\r\n{}", ErrMalformed, `Content-Length "abc" is not a byte count`},
		{"negative length", "Content-Length: -5\r\n\r\n{}", ErrMalformed, "is not a byte count"},
		{"signed length", "Content-Length: +2\r\n\r\n{}", ErrMalformed, "is not a byte count"},
		{"empty length", "Content-Length:\r\n\r\n{}", ErrMalformed, "is not a byte count"},
		{"10 GB", "Content-Length: 10737418240\r\n\r\n{}", ErrMalformed, "exceeds the limit of 268435456 bytes"},
		{"just over the limit", "Content-Length: " + huge + "\r\n\r\n", ErrMalformed, "exceeds the limit"},
		{"beyond int64", "Content-Length: 99999999999999999999999\r\n\r\n", ErrMalformed, "exceeds the limit"},
		{"conflicting lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", ErrMalformed, "two Content-Length headers"},
		{"header line without colon", "Content-Length 2\r\n\r\n{}", ErrMalformed, "is not \"Name: value\""},
		{"endless header line", "Content-Length: 2" + strings.Repeat(" ", 2*MaxHeaderBytes), ErrMalformed, "header longer than 65536 bytes"},
		{"endless header lines", strings.Repeat("X-Pad: y\r\n", MaxHeaderBytes/5), ErrMalformed, "header longer than"},
		{"header cut off", "Content-Length: 2\r\n", io.ErrUnexpectedEOF, "reading LSP header"},
		{"partial first line", "Content-Len", io.ErrUnexpectedEOF, "reading LSP header"},
		{"body cut off", "Content-Length: 10\r\n\r\n{}", io.ErrUnexpectedEOF, "got 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, err := ReadMessage(bufio.NewReader(strings.NewReader(c.input)))
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("ReadMessage = %q, %v; want %v containing %q", body, err, c.want, c.msg)
			}
		})
	}
}

func TestReadMessageLargeBody(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 3*bodyPrealloc+7)
	var b bytes.Buffer
	WriteMessage(&b, body)
	got, err := ReadMessage(bufio.NewReader(&b))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("ReadMessage: %d bytes, %v", len(got), err)
	}
}

// FuzzReadMessage feeds arbitrary bytes to the reader: it must not panic,
// must end every stream with io.EOF or an error, must never return more
// than MaxBodyBytes, and must return exactly what WriteMessage framed.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}Content-Length: 0\r\n\r\n",
		"content-length:1\n\nx",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 18446744073709551616\r\n\r\n",
		"Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"\r\n\r\n",
		"Content-Length: 5\r\n\r\nab",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		consumed := 0
		for {
			body, err := ReadMessage(r)
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrMalformed) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error class: %v", err)
				}
				break
			}
			if len(body) > MaxBodyBytes {
				t.Fatalf("body of %d bytes", len(body))
			}
			consumed++
			if consumed > len(data) {
				t.Fatal("more messages than input bytes")
			}
			var b bytes.Buffer
			if err := WriteMessage(&b, body); err != nil {
				t.Fatal(err)
			}
			again, err := ReadMessage(bufio.NewReader(&b))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip of %q: %q, %v", body, again, err)
			}
		}
	})
}
