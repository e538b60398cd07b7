package model

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// errTooLarge is returned by a response body past MaxResponseBytes.
var errTooLarge = fmt.Errorf("%w: response larger than %d bytes", ErrBadResponse, MaxResponseBytes)

// boundedClient returns a copy of c (or a default client) whose response
// bodies fail after limit bytes, so a hostile or broken server cannot make
// the SDK buffer an unbounded answer.
func boundedClient(c *http.Client, limit int64) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	cp := *c
	base := cp.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cp.Transport = limitTransport{base: base, limit: limit}
	return &cp
}

type limitTransport struct {
	base  http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: t.limit}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells "exactly at the limit" from "past it".
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// callError classifies an error of a provider call and removes the key
// from its text: SDK errors quote the server's body, and a hostile server
// may echo the Authorization header back.
func callError(provider, key string, err error) error {
	if err == nil {
		return nil
	}
	code := failure.ToolFailed
	switch {
	case errors.Is(err, ErrBadResponse):
	case failure.CodeOf(err) == failure.Timeout, failure.CodeOf(err) == failure.Canceled:
		code = failure.CodeOf(err)
	}
	msg := err.Error()
	if red := redact.New(key); red.Contains(msg) {
		// The cause keeps the key in its text; keep only its class.
		return &failure.Error{Code: code, Message: provider + ": " + red.String(msg), Err: classOnly(err)}
	}
	if e := unreachable(provider, err); e != nil {
		return e
	}
	return &failure.Error{Code: code, Message: provider, Err: err}
}

// classOnly keeps what errors.Is needs from err without its text.
func classOnly(err error) error {
	for _, target := range []error{ErrBadResponse, context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return redactedError{target}
		}
	}
	return nil
}

type redactedError struct{ target error }

func (e redactedError) Error() string { return "(redacted)" }
func (e redactedError) Unwrap() error { return e.target }
