package model_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/internal/redact"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestKeyRouting: a key from the environment reaches the scripted server
// (standing for a base URL other than the provider's own) only when the
// user chose that base URL for the provider; otherwise New refuses before
// anything is sent, or the server gets no key at all.
func TestKeyRouting(t *testing.T) {
	tests := []struct {
		name     string
		cfg      model.Config
		refused  bool
		wantAuth string // Authorization (OpenAI wire) or x-api-key (Anthropic), "" for none
	}{
		{"openai to a base URL of a role or spec", model.Config{Provider: "openai"}, true, ""},
		{"openai to the user's base URL", model.Config{Provider: "openai", UserEndpoint: true}, false, "Bearer " + testKey},
		{"anthropic to a base URL of a role or spec", model.Config{Provider: "anthropic"}, true, ""},
		{"anthropic to the user's base URL", model.Config{Provider: "anthropic", UserEndpoint: true}, false, testKey},
		{"ollama with a key variable not the user's", model.Config{Provider: "ollama", APIKeyEnv: "PROXY_KEY"}, true, ""},
		{"ollama with the user's key variable", model.Config{Provider: "ollama", APIKeyEnv: "PROXY_KEY", UserEndpoint: true}, false, "Bearer " + testKey},
		{"ollama gets no ambient key", model.Config{Provider: "ollama", UserEndpoint: true}, false, ""},
		{"openai-compatible gets no ambient key", model.Config{Provider: "openai-compatible", UserEndpoint: true}, false, ""},
		{"openai-compatible keyless from a role", model.Config{Provider: "openai-compatible"}, false, ""},
		{"a key from the user config goes where it says", model.Config{Provider: "openai", APIKey: "sk-config-0123456789abcdef"}, false, "Bearer sk-config-0123456789abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: "hi"}}}})
			zero := 0
			cfg := tt.cfg
			cfg.Model, cfg.MaxRetries = "m", &zero
			cfg.BaseURL = srv.OpenAIURL()
			if cfg.Provider == "anthropic" {
				cfg.BaseURL = srv.URL()
			}
			p, err := model.New(cfg, env)
			if tt.refused {
				var fe *failure.Error
				if !errors.As(err, &fe) || fe.Code != failure.Precondition || fe.Field != "baseURL" {
					t.Fatalf("New = %v, want precondition_failed on baseURL", err)
				}
				if !strings.Contains(err.Error(), "--provider "+cfg.Provider+" --base-url") || strings.Contains(err.Error(), testKey) {
					t.Errorf("the error does not say what allows it, or leaks the key: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Complete(context.Background(), &model.Request{Messages: []model.Message{{Role: model.User, Content: "hi"}}}, nil); err != nil {
				t.Fatal(err)
			}
			h := srv.Requests()[0].Header
			got := h.Get("Authorization")
			if cfg.Provider == "anthropic" {
				got = h.Get("X-Api-Key")
			}
			if got != tt.wantAuth {
				t.Errorf("key header = %q, want %q", got, tt.wantAuth)
			}
		})
	}
}

// TestOfficialEndpoint: the providers' own endpoints need no user choice;
// look-alikes do.
func TestOfficialEndpoint(t *testing.T) {
	tests := []struct {
		provider, base string
		ok             bool
	}{
		{"openai", "", true},
		{"openai", "https://api.openai.com/v1", true},
		{"openai", "https://API.openai.com/v1/", true},
		{"openai", "http://api.openai.com/v1", false},
		{"openai", "https://api.openai.com.example.net/v1", false},
		{"openai", "https://user@api.openai.com/v1", false},
		{"openai", "https://api.openai.com:8443/v1", false},
		{"openai", "https://api.openai.com/v1/../proxy", false},
		{"anthropic", "https://api.anthropic.com", true},
		{"anthropic", "https://api.anthropic.com/", true},
		{"anthropic", "https://api.anthropic.com.evil/", false},
	}
	for _, tt := range tests {
		_, err := model.New(model.Config{Provider: tt.provider, Model: "m", BaseURL: tt.base}, env)
		if (err == nil) != tt.ok {
			t.Errorf("%s at %q: err = %v, want ok %v", tt.provider, tt.base, err, tt.ok)
		}
	}
}

// TestStreamRedacted: a streamed answer repeating the key, whole and
// without its prefix, arrives cut into chunks; written through a
// redact.Writer no part of the key is shown.
func TestStreamRedacted(t *testing.T) {
	body := strings.TrimPrefix(testKey, "sk-")
	for _, provider := range []string{"openai", "anthropic"} {
		t.Run(provider, func(t *testing.T) {
			text := "first " + testKey + " then " + body + " done"
			srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: text}}}})
			p := newProvider(t, provider, srv)
			var out bytes.Buffer
			w := redact.NewWriter(redact.New(testKey), &out)
			var deltas []string
			resp, err := p.Complete(context.Background(), &model.Request{Messages: []model.Message{{Role: model.User, Content: "hi"}}},
				func(d string) {
					deltas = append(deltas, d)
					_, _ = w.Write([]byte(d))
				})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != text {
				t.Fatalf("content = %q", resp.Message.Content)
			}
			for _, d := range deltas {
				if strings.Contains(d, body) {
					t.Fatalf("the key arrived in one chunk %q; the test needs it cut", d)
				}
			}
			if want := "first [redacted] then [redacted] done"; out.String() != want {
				t.Errorf("streamed %q, want %q", out.String(), want)
			}
		})
	}
}
