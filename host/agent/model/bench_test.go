package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
)

// BenchmarkComplete is one model turn against the scripted server: the
// provider's share of an agent step (translation, HTTP, SSE parsing).
func BenchmarkComplete(b *testing.B) {
	for _, provider := range []string{"openai", "anthropic"} {
		for _, stream := range []bool{false, true} {
			name := provider
			if stream {
				name += "/stream"
			}
			b.Run(name, func(b *testing.B) {
				turn := modeltest.Turn{Reply: modeltest.Reply{Text: strings.Repeat("word ", 200),
					ToolCalls: []modeltest.Call{{Name: "go_build", Arguments: map[string]any{"path": "./..."}}}}}
				turns := make([]modeltest.Turn, b.N)
				for i := range turns {
					turns[i] = turn
				}
				srv := modeltest.NewServer(b, &modeltest.Script{Turns: turns})
				zero := 0
				cfg := model.Config{Provider: provider, Model: "m", MaxRetries: &zero, BaseURL: srv.OpenAIURL(), UserEndpoint: true}
				if provider == "anthropic" {
					cfg.BaseURL = srv.URL()
				}
				p, err := model.New(cfg, env)
				if err != nil {
					b.Fatal(err)
				}
				var emit func(string)
				if stream {
					emit = func(string) {}
				}
				req := &model.Request{System: strings.Repeat("system ", 500), Tools: []model.ToolDef{buildTool},
					Messages: []model.Message{{Role: model.User, Content: "build"}}}
				b.ResetTimer()
				for range b.N {
					if _, err := p.Complete(context.Background(), req, emit); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
