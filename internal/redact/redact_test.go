package redact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const (
	openAIKey    = "sk-proj-Zq8vT3xLk2Wm9Pa7Rb4Nc6Hd1Je5Uf0Gy"
	anthropicKey = "sk-ant-api03-Hq2Lx9Vb7Mn4Kp8Rw3Tz6Yc1Ad5Ef0Gj"
	plainKey     = "8f3c2a9d7e1b4c6a5f0e9d8c7b6a5f4e"
)

func TestString(t *testing.T) {
	r := New(openAIKey, anthropicKey, plainKey, "", "short")
	tests := []struct {
		name, in string
	}{
		{"whole key", "the key is " + openAIKey + "."},
		{"without sk-proj-", "the key is Zq8vT3xLk2Wm9Pa7Rb4Nc6Hd1Je5Uf0Gy."},
		{"anthropic without its prefix", "Hq2Lx9Vb7Mn4Kp8Rw3Tz6Yc1Ad5Ef0Gj"},
		{"a key without a prefix", "token=" + plainKey},
		{"an unnamed key shape", "sk-abcdefghijklmnopqrstuvwx"},
		{"a GitHub token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.String(tt.in)
			if !strings.Contains(got, Mask) {
				t.Errorf("String(%q) = %q, want it redacted", tt.in, got)
			}
			for _, secret := range []string{openAIKey, anthropicKey, plainKey, "Zq8vT3xLk2Wm9Pa7", "Hq2Lx9Vb7Mn4Kp8R"} {
				if strings.Contains(got, secret) {
					t.Errorf("String(%q) = %q, still holds %q", tt.in, got, secret)
				}
			}
		})
	}
	for _, keep := range []string{"short words stay", "sk-short", "the task is to fix calc.go"} {
		if got := r.String(keep); got != keep {
			t.Errorf("String(%q) = %q, want it unchanged", keep, got)
		}
	}
}

// TestShortBody: a prefix cut off a short key leaves a common-looking
// word, which is not redacted on its own.
func TestShortBody(t *testing.T) {
	r := New("sk-abcdefgh")
	if got := r.String("abcdefgh and sk-abcdefgh"); got != "abcdefgh and "+Mask {
		t.Errorf("got %q", got)
	}
}

func TestJSONEscapedSecret(t *testing.T) {
	secret := "pass<word>&more-than-16"
	r := New(secret)
	in := []byte(`{"a":"pass\u003cword\u003e\u0026more-than-16"}`)
	if got := string(r.Bytes(in)); got != `{"a":"`+Mask+`"}` {
		t.Errorf("got %s", got)
	}
}

func TestError(t *testing.T) {
	r := New(openAIKey)
	err := fmt.Errorf("model: %w", &failure.Error{Code: failure.Timeout, Message: "server said " + openAIKey, Err: context.DeadlineExceeded})
	got := r.Error(err)
	if strings.Contains(got.Error(), openAIKey) || !strings.Contains(got.Error(), Mask) {
		t.Errorf("Error() = %q", got)
	}
	if failure.CodeOf(got) != failure.Timeout || !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("class lost: code %s, deadline %v", failure.CodeOf(got), errors.Is(got, context.DeadlineExceeded))
	}
	plain := errors.New("nothing secret")
	if r.Error(plain) != plain {
		t.Error("an error without a secret was replaced")
	}
}

func TestJSON(t *testing.T) {
	type result struct {
		Answer string   `json:"answer"`
		Events []string `json:"events"`
	}
	r := New(openAIKey)
	in := &result{Answer: "key " + strings.TrimPrefix(openAIKey, "sk-proj-"), Events: []string{"ok", openAIKey}}
	out, err := JSON(r, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "key "+Mask || out.Events[1] != Mask || in.Events[1] != openAIKey {
		t.Errorf("got %+v (input %+v)", out, in)
	}
	same := &result{Answer: "fine"}
	if out, _ := JSON(r, same); out != same {
		t.Error("a value without secrets was copied")
	}
}

// TestWriterChunks writes a text holding secrets cut at every position
// into two and three chunks: no secret survives and nothing else changes.
func TestWriterChunks(t *testing.T) {
	r := New(openAIKey, anthropicKey)
	text := "a " + openAIKey + " b Zq8vT3xLk2Wm9Pa7Rb4Nc6Hd1Je5Uf0Gy c " + anthropicKey + " d sk-abcdefghijklmnopqrstuvwx end"
	want := "a " + Mask + " b " + Mask + " c " + Mask + " d " + Mask + " end"
	for i := 0; i <= len(text); i++ {
		for _, j := range []int{i, (i + len(text)) / 2} {
			var out bytes.Buffer
			w := NewWriter(r, &out)
			for _, chunk := range []string{text[:i], text[i:j], text[j:]} {
				if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Fatalf("chunks at %d, %d: got %q, want %q", i, j, out.String(), want)
			}
		}
	}
}

// TestWriterPassesText: plain text goes through, lines as they end.
func TestWriterPassesText(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(New(openAIKey), &out)
	fmt.Fprintln(w, "[step 1] coder: thinking")
	if out.String() != "[step 1] coder: thinking\n" {
		t.Errorf("a whole line was held back: %q", out.String())
	}
}

func TestNilRedactor(t *testing.T) {
	var r *Redactor
	if got := r.String("x sk-abcdefghijklmnopqrstuvwx"); got != "x "+Mask {
		t.Errorf("got %q", got)
	}
}
