package model_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// A model server that is not running is a precondition the user can fix,
// and the error says how, for every provider.
func TestUnreachableServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1/"
	_ = l.Close()
	tests := []struct {
		provider string
		want     []string
	}{
		{"ollama", []string{"ollama serve", "--provider openai", "OPENAI_API_KEY", "--provider anthropic", "ANTHROPIC_API_KEY"}},
		{"openai-compatible", []string{"--base-url", "--provider openai", "OPENAI_API_KEY"}},
		{"anthropic", []string{"--base-url", "ANTHROPIC_API_KEY"}},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			zero := 0
			p, err := model.New(model.Config{Provider: tt.provider, Model: "m", BaseURL: closed, MaxRetries: &zero, UserEndpoint: true, APIKey: "k"}, env)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), &model.Request{Messages: []model.Message{{Role: model.User, Content: "hi"}}}, nil)
			if failure.CodeOf(err) != failure.Precondition {
				t.Fatalf("code %s, want precondition_failed: %v", failure.CodeOf(err), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}
