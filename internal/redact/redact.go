// Package redact hides credentials in what langhost writes: agent answers
// and errors on stdout and stderr, JSON results (and so --jq), transcripts,
// bench reports and timelines. One Redactor is built from the run's
// secrets (the API keys it read) and applied to every output path.
//
// A model that was shown a key may repeat it whole, without its usual
// prefix ("sk-", "sk-ant-api03-"), or cut into stream chunks: a Redactor
// replaces the value, the value without a known prefix when the rest is
// still long enough to be distinctive, and anything shaped like a common
// API key even when nobody named it a secret (a key pasted into a task).
package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Mask replaces every secret.
const Mask = "[redacted]"

// MinSecret is the shortest value redacted as given: a shorter one would
// redact ordinary words, and keys are long.
const MinSecret = 8

// MinBody is the shortest remainder of a key, once a known prefix is cut,
// that is redacted on its own: long enough never to be a common word.
const MinBody = 16

// prefixes are the known key prefixes, longest first so that the longest
// one is cut.
var prefixes = []string{"sk-ant-api03-", "sk-ant-admin01-", "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"}

// keyRE matches the shapes of common API keys, redacted even when the
// caller did not name them as secrets.
var keyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})`)
})

// Shaped reports whether s, trimmed, is shaped like a common API key as
// a whole (sk-..., ghp_..., AKIA...).
func Shaped(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && keyRE().FindString(s) == s
}

// maxKeyRun bounds what a streaming Writer holds back while a run of key
// characters may still be growing into a match of keyRE.
const maxKeyRun = 512

// Redactor replaces secrets. The zero value and nil redact only the key
// shapes of keyRE. It is safe for concurrent use.
type Redactor struct {
	needles [][]byte // longest first, so that a whole value wins over its body
}

// New returns a Redactor of secrets; empty and short values are ignored.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	add := func(s string) {
		if s == "" || slices.ContainsFunc(r.needles, func(n []byte) bool { return string(n) == s }) {
			return
		}
		r.needles = append(r.needles, []byte(s))
		// encoding/json escapes <, >, & and quotes: the value as it
		// appears inside a JSON string is redacted too.
		if b, err := json.Marshal(s); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != s {
				r.needles = append(r.needles, []byte(esc))
			}
		}
	}
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < MinSecret {
			continue
		}
		add(s)
		for _, p := range prefixes {
			if body, ok := strings.CutPrefix(s, p); ok {
				if len(body) >= MinBody {
					add(body)
				}
				break
			}
		}
	}
	slices.SortStableFunc(r.needles, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

// Bytes returns b with every secret replaced by Mask. b is not modified.
func (r *Redactor) Bytes(b []byte) []byte {
	b = r.literal(b)
	if keyRE().Match(b) {
		b = keyRE().ReplaceAll(b, []byte(Mask))
	}
	return b
}

// literal replaces the secrets named to New.
func (r *Redactor) literal(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, n := range r.needles {
		if bytes.Contains(b, n) {
			b = bytes.ReplaceAll(b, n, []byte(Mask))
		}
	}
	return b
}

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if !r.Contains(s) {
		return s
	}
	return string(r.Bytes([]byte(s)))
}

// Contains reports whether s holds a secret.
func (r *Redactor) Contains(s string) bool {
	if r != nil {
		for _, n := range r.needles {
			if strings.Contains(s, string(n)) {
				return true
			}
		}
	}
	return keyRE().MatchString(s)
}

// Error returns err, or when its text holds a secret an error with the
// text redacted and the same failure class. The cause is dropped (its
// text holds the secret), but errors.Is still finds the context errors.
func (r *Redactor) Error(err error) error {
	if err == nil || !r.Contains(err.Error()) {
		return err
	}
	msg := r.String(err.Error())
	e := &redactedError{msg: msg, class: []error{&failure.Error{Code: failure.CodeOf(err), Message: msg}}}
	for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			e.class = append(e.class, target)
		}
	}
	return e
}

type redactedError struct {
	msg   string
	class []error
}

func (e *redactedError) Error() string   { return e.msg }
func (e *redactedError) Unwrap() []error { return e.class }

// JSON redacts v through its JSON form: v is marshalled, redacted and
// decoded back into a new value of its type. When nothing needs redacting
// v itself is returned.
func JSON[T any](r *Redactor, v *T) (*T, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	red := r.Bytes(b)
	if bytes.Equal(red, b) {
		return v, nil
	}
	out := new(T)
	if err := json.Unmarshal(red, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Writer redacts what is written through it before passing it on. A
// secret cut across two writes (stream chunks) is still found: the end of
// each write that could begin a secret is held back until the next write
// or Close shows how it goes on.
type Writer struct {
	r       *Redactor
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that redacts with r into w. Call Close (or
// Flush) at the end to write what was held back.
func NewWriter(r *Redactor, w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write implements io.Writer. It reports len(p) written when w took the
// redacted text.
func (w *Writer) Write(p []byte) (int, error) {
	// Whole secrets first: one found complete cannot grow. Then what
	// could still be the start of one is held back, and only the rest is
	// matched against the key shapes, which could otherwise match the
	// first part of a longer key.
	buf := w.r.literal(append(w.pending, p...))
	keep := w.holdBack(buf)
	out := w.r.Bytes(buf[:len(buf)-keep])
	w.pending = append(w.pending[:0:0], buf[len(buf)-keep:]...)
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what was held back.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := w.r.Bytes(w.pending)
	w.pending = nil
	_, err := w.w.Write(out)
	return err
}

// Close flushes; it does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }

// holdBack is how many bytes at the end of buf could be the start of a
// secret: the longest suffix that is a proper prefix of a needle, or a
// trailing run of key characters that may grow into a key shape.
func (w *Writer) holdBack(buf []byte) int {
	keep := 0
	if w.r != nil {
		for _, n := range w.r.needles {
			for k := min(len(n)-1, len(buf)); k > keep; k-- {
				if bytes.HasSuffix(buf, n[:k]) {
					keep = k
					break
				}
			}
		}
	}
	run := 0
	for i := len(buf) - 1; i >= 0 && run < maxKeyRun && isKeyChar(buf[i]); i-- {
		run++
	}
	if run < maxKeyRun {
		keep = max(keep, run)
	}
	return keep
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
