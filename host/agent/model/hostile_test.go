package model_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// hugeText is a valid answer past MaxResponseBytes.
var hugeText = strings.Repeat("a", model.MaxResponseBytes+1024)

func TestHostileServer(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		stream   bool
		reply    modeltest.Reply
		want     string // substring of the error
		bad      bool   // the error wraps ErrBadResponse
	}{
		{"openai malformed JSON", "openai", false, modeltest.Reply{Raw: &modeltest.Raw{Body: `{"choices": [`}}, "", false},
		{"anthropic malformed JSON", "anthropic", false, modeltest.Reply{Raw: &modeltest.Raw{Body: `{"content": [{"type":`}}, "", false},
		{"openai no choices", "openai", false, modeltest.Reply{Raw: &modeltest.Raw{Body: `{"id":"x","choices":[]}`}}, "no choices", true},
		{"anthropic no stop reason", "anthropic", false, modeltest.Reply{Raw: &modeltest.Raw{Body: `{"id":"x","type":"message","content":[]}`}}, "no stop_reason", true},
		{"openai invalid arguments", "openai", false, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "go_build", RawArguments: `{"path": `}}}, "are not a JSON object", true},
		{"openai stream invalid arguments", "openai", true, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "go_build", RawArguments: `{"path": "." `}}}, "are not a JSON object", true},
		{"anthropic stream invalid arguments", "anthropic", true, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "go_build", RawArguments: `{"path" "."}`}}}, "are not a JSON object", true},
		{"openai arguments not an object", "openai", false, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "go_build", RawArguments: `["rm", "-rf"]`}}}, "are not a JSON object", true},
		{"openai tool not offered", "openai", false, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "shell_exec", Arguments: map[string]any{"cmd": "rm -rf /"}}}}, `"shell_exec", which is not among the 1 tools offered`, true},
		{"anthropic tool not offered", "anthropic", true, modeltest.Reply{ToolCalls: []modeltest.Call{{Name: "shell_exec"}}}, `"shell_exec", which is not among`, true},
		{"openai huge", "openai", false, modeltest.Reply{Text: hugeText}, "response larger than", true},
		{"openai stream huge", "openai", true, modeltest.Reply{Text: hugeText}, "response larger than", true},
		{"anthropic huge", "anthropic", false, modeltest.Reply{Text: hugeText}, "response larger than", true},
		{"anthropic stream huge", "anthropic", true, modeltest.Reply{Text: hugeText}, "response larger than", true},
		{"openai stream garbage", "openai", true, modeltest.Reply{Raw: &modeltest.Raw{ContentType: "text/event-stream", Body: "data: {not json\n\n"}}, "", false},
		{"openai stream cut", "openai", true, modeltest.Reply{Raw: &modeltest.Raw{ContentType: "text/event-stream",
			Body: `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hal"}}]}` + "\n\n"}}, "without a finish reason", true},
		{"anthropic stream cut", "anthropic", true, modeltest.Reply{Raw: &modeltest.Raw{ContentType: "text/event-stream",
			Body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"x\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n"}}, "without message_stop", true},
		{"anthropic stream block out of order", "anthropic", true, modeltest.Reply{Raw: &modeltest.Raw{ContentType: "text/event-stream",
			Body: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"x\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":5,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"}}, "content block 5", true},
		// A server that echoes the key back must not get it into our error.
		{"openai echoes key", "openai", false, modeltest.Reply{Raw: &modeltest.Raw{Status: 401, Body: `{"error":{"message":"bad key ` + testKey + `","type":"auth"}}`}}, "401 Unauthorized: bad key [redacted]", false},
		{"openai echoes key without its prefix", "openai", false, modeltest.Reply{Raw: &modeltest.Raw{Status: 401, Body: `{"error":{"message":"bad key ` + strings.TrimPrefix(testKey, "sk-") + `","type":"auth"}}`}}, "401 Unauthorized: bad key [redacted]", false},
		{"anthropic echoes key", "anthropic", false, modeltest.Reply{Raw: &modeltest.Raw{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"key ` + testKey + `"}}`}}, "[redacted]", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: tt.reply}}})
			p := newProvider(t, tt.provider, srv)
			var emit func(string)
			if tt.stream {
				emit = func(string) {}
			}
			resp, err := p.Complete(context.Background(), &model.Request{
				Messages: []model.Message{{Role: model.User, Content: "go"}},
				Tools:    []model.ToolDef{buildTool},
			}, emit)
			if err == nil {
				t.Fatalf("no error; response %+v", resp)
			}
			t.Logf("error: %v", clipErr(err))
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", clipErr(err), tt.want)
			}
			if tt.bad != errors.Is(err, model.ErrBadResponse) {
				t.Errorf("errors.Is(err, ErrBadResponse) = %v, want %v", !tt.bad, tt.bad)
			}
			if strings.Contains(err.Error(), strings.TrimPrefix(testKey, "sk-")) {
				t.Errorf("error leaks the API key: %v", clipErr(err))
			}
			if c := failure.CodeOf(err); c != failure.ToolFailed {
				t.Errorf("class = %s, want tool_failed", c)
			}
			if len(err.Error()) > 4096 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
		})
	}
}

func clipErr(err error) string {
	s := err.Error()
	if len(s) > 500 {
		return s[:500] + "…"
	}
	return s
}

func TestCanceled(t *testing.T) {
	srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: "late"}}}})
	for _, provider := range []string{"openai", "anthropic"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := newProvider(t, provider, srv).Complete(ctx, &model.Request{Messages: []model.Message{{Role: model.User, Content: "x"}}}, nil)
		if failure.CodeOf(err) != failure.Canceled {
			t.Errorf("%s: class of %v = %s, want canceled", provider, err, failure.CodeOf(err))
		}
	}
}
