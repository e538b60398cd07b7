package model_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

const testKey = "sk-test-0123456789-secret"

// env is the environment the providers read their keys from.
func env(name string) string {
	switch name {
	case "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PROXY_KEY":
		return testKey
	}
	return ""
}

// newProvider points provider at srv; retries are off so each script turn
// is requested once.
func newProvider(t *testing.T, provider string, srv *modeltest.Server) model.Provider {
	t.Helper()
	zero := 0
	cfg := model.Config{Provider: provider, Model: "test-model", MaxRetries: &zero, UserEndpoint: true}
	switch provider {
	case "anthropic":
		cfg.BaseURL = srv.URL()
	case "openai-compatible":
		cfg.BaseURL = srv.OpenAIURL()
		cfg.APIKeyEnv = "PROXY_KEY"
	default:
		cfg.BaseURL = srv.OpenAIURL()
	}
	p, err := model.New(cfg, env)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var buildTool = model.ToolDef{
	Name:        "go_build",
	Description: "Build the Go packages",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}

const conversation = `
turns:
  - expect:
      system_contains: ["You are a Go coding agent"]
      last_user_contains: "fix the build"
      tools_include: [go_build]
    reply:
      text: "Let me build the packages — then we’ll see."
      tool_calls:
        - name: go_build
          arguments: {path: ./..., flags: ["-v"]}
      usage: {input_tokens: 120, output_tokens: 30}
  - expect:
      last_tool_result_contains: "main.go:3:1: undefined: x"
      last_tool_result_is_error: true
    reply:
      text: "The build fails on undefined x."
      usage: {input_tokens: 200, output_tokens: 12}
`

func TestProvidersRoundTrip(t *testing.T) {
	for _, provider := range []string{"openai", "ollama", "openai-compatible", "anthropic"} {
		for _, stream := range []bool{false, true} {
			name := provider
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				script, err := modeltest.ParseScript("conversation", []byte(conversation))
				if err != nil {
					t.Fatal(err)
				}
				srv := modeltest.NewServer(t, script)
				p := newProvider(t, provider, srv)
				req := &model.Request{
					System:   "You are a Go coding agent.",
					Messages: []model.Message{{Role: model.User, Content: "Please fix the build."}},
					Tools:    []model.ToolDef{buildTool},
				}
				var deltas []string
				var emit func(string)
				if stream {
					emit = func(d string) { deltas = append(deltas, d) }
				}
				resp, err := p.Complete(context.Background(), req, emit)
				if err != nil {
					t.Fatal(err)
				}
				wantText := "Let me build the packages — then we’ll see."
				if resp.Message.Role != model.Assistant || resp.Message.Content != wantText {
					t.Errorf("message = %+v", resp.Message)
				}
				if stream && strings.Join(deltas, "") != wantText {
					t.Errorf("streamed %q, want %q", strings.Join(deltas, ""), wantText)
				}
				if stream && len(deltas) < 2 {
					t.Errorf("text arrived in %d deltas, want several", len(deltas))
				}
				if resp.StopReason != model.ToolUse {
					t.Errorf("stop reason = %q", resp.StopReason)
				}
				if resp.Usage != (model.Usage{InputTokens: 120, OutputTokens: 30}) {
					t.Errorf("usage = %+v", resp.Usage)
				}
				if len(resp.Message.ToolCalls) != 1 {
					t.Fatalf("tool calls = %+v", resp.Message.ToolCalls)
				}
				call := resp.Message.ToolCalls[0]
				var args map[string]any
				if err := json.Unmarshal(call.Arguments, &args); err != nil || call.Name != "go_build" || args["path"] != "./..." || call.ID == "" {
					t.Errorf("call = %s %s %s (%v)", call.ID, call.Name, call.Arguments, err)
				}

				req.Messages = append(req.Messages, resp.Message, model.Message{
					Role: model.Tool, ToolCallID: call.ID, IsError: true, Content: "error: main.go:3:1: undefined: x",
				})
				resp, err = p.Complete(context.Background(), req, emit)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Message.Content != "The build fails on undefined x." || resp.StopReason != model.EndTurn || len(resp.Message.ToolCalls) != 0 {
					t.Errorf("second answer = %+v", resp)
				}
				if resp.Usage.InputTokens != 200 {
					t.Errorf("usage = %+v", resp.Usage)
				}

				reqs := srv.Requests()
				if len(reqs) != 2 || srv.Remaining() != 0 {
					t.Fatalf("server saw %d requests, %d turns left", len(reqs), srv.Remaining())
				}
				second := reqs[1]
				if second.Stream != stream || second.Model != "test-model" || second.MaxTokens <= 0 {
					t.Errorf("second request: stream %v model %q max_tokens %d", second.Stream, second.Model, second.MaxTokens)
				}
				if n := len(second.Messages); n != 3 || second.Messages[1].ToolCalls[0].ID != call.ID || second.Messages[2].ToolCallID != call.ID {
					t.Errorf("tool call not sent back: %+v", second.Messages)
				}
				checkAuth(t, provider, second.Header)
			})
		}
	}
}

func checkAuth(t *testing.T, provider string, h http.Header) {
	t.Helper()
	switch provider {
	case "anthropic":
		if h.Get("X-Api-Key") != testKey || h.Get("Authorization") != "" {
			t.Errorf("anthropic auth headers: x-api-key %q, authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
		}
	case "ollama":
		if h.Get("Authorization") != "" {
			t.Errorf("ollama was sent an Authorization header")
		}
	default:
		if h.Get("Authorization") != "Bearer "+testKey {
			t.Errorf("authorization = %q", h.Get("Authorization"))
		}
	}
}

// The OpenAI key in the environment must not reach a local server.
func TestOllamaDoesNotSendAmbientKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	t.Setenv("OPENAI_ORG_ID", "org-secret")
	srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: "hi"}}}})
	p := newProvider(t, "ollama", srv)
	if _, err := p.Complete(context.Background(), &model.Request{Messages: []model.Message{{Role: model.User, Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("OpenAI-Organization") != "" {
		t.Errorf("ambient OpenAI credentials sent to ollama: %v", h)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name  string
		cfg   model.Config
		field string
		code  failure.Code
	}{
		{"unknown provider", model.Config{Provider: "gemini", Model: "m"}, "provider", failure.InvalidInput},
		{"no provider", model.Config{Model: "m"}, "provider", failure.InvalidInput},
		{"no model", model.Config{Provider: "openai"}, "model", failure.InvalidInput},
		{"missing key", model.Config{Provider: "anthropic", Model: "m", APIKeyEnv: "UNSET_KEY"}, "apiKeyEnv", failure.Precondition},
		{"compatible without URL", model.Config{Provider: "openai-compatible", Model: "m"}, "baseURL", failure.InvalidInput},
		{"bad URL", model.Config{Provider: "ollama", Model: "m", BaseURL: "file:///etc/passwd"}, "baseURL", failure.InvalidInput},
		{"temperature", model.Config{Provider: "ollama", Model: "m", Temperature: ptr(3.5)}, "temperature", failure.InvalidInput},
		{"negative max tokens", model.Config{Provider: "ollama", Model: "m", MaxTokens: -1}, "maxTokens", failure.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.New(tt.cfg, env)
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Field != tt.field || fe.Code != tt.code {
				t.Fatalf("err = %v, want field %s class %s", err, tt.field, tt.code)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the key: %v", err)
			}
		})
	}
}

func TestCompleteRejectsBadRequest(t *testing.T) {
	srv := modeltest.NewServer(t, &modeltest.Script{})
	p := newProvider(t, "openai", srv)
	tests := []struct {
		name  string
		req   *model.Request
		field string
	}{
		{"tool name", &model.Request{Tools: []model.ToolDef{{Name: "go.build"}}}, "tools[0].name"},
		{"schema", &model.Request{Tools: []model.ToolDef{{Name: "ok", InputSchema: json.RawMessage(`[1]`)}}}, "tools[0].input_schema"},
		{"role", &model.Request{Messages: []model.Message{{Role: "system", Content: "x"}}}, "messages[0].role"},
		{"orphan result", &model.Request{Messages: []model.Message{{Role: model.Tool, Content: "x"}}}, "messages[0].tool_call_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Complete(context.Background(), tt.req, nil)
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Field != tt.field || fe.Code != failure.InvalidInput {
				t.Fatalf("err = %v, want invalid_input on %s", err, tt.field)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d bad requests reached the server", n)
	}
}

func ptr[T any](v T) *T { return &v }

func TestSecretNeverPrints(t *testing.T) {
	cfg := model.Config{Provider: "anthropic", Model: "m", APIKey: testKey}
	for _, s := range []string{fmt.Sprintf("%v %+v %#v %s %q", cfg, cfg, cfg, cfg.APIKey, cfg.APIKey), mustJSON(t, cfg)} {
		if strings.Contains(s, testKey) {
			t.Errorf("key printed: %s", s)
		}
	}
	// The key given in the config is the one sent.
	srv := modeltest.NewServer(t, &modeltest.Script{Turns: []modeltest.Turn{{Reply: modeltest.Reply{Text: "ok"}}}})
	cfg.BaseURL = srv.URL()
	p, err := model.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), &model.Request{Messages: []model.Message{{Role: model.User, Content: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != testKey {
		t.Errorf("x-api-key = %q", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two calls in one answer, both answered: Anthropic needs both results in
// one user message, OpenAI two tool messages; the server checks each
// result answers a call of the message before.
func TestParallelToolCalls(t *testing.T) {
	const script = `
turns:
  - reply:
      tool_calls:
        - {id: call_a, name: go_build, arguments: {path: a}}
        - {id: call_b, name: go_build, arguments: {path: b}}
  - expect: {last_tool_result_contains: "b built"}
    reply: {text: both built}
`
	for _, provider := range []string{"openai", "anthropic"} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", provider, stream), func(t *testing.T) {
				s, err := modeltest.ParseScript("parallel", []byte(script))
				if err != nil {
					t.Fatal(err)
				}
				srv := modeltest.NewServer(t, s)
				p := newProvider(t, provider, srv)
				var emit func(string)
				if stream {
					emit = func(string) {}
				}
				req := &model.Request{Messages: []model.Message{{Role: model.User, Content: "build both"}}, Tools: []model.ToolDef{buildTool}}
				resp, err := p.Complete(context.Background(), req, emit)
				if err != nil {
					t.Fatal(err)
				}
				calls := resp.Message.ToolCalls
				if len(calls) != 2 || calls[0].ID != "call_a" || calls[1].ID != "call_b" || string(calls[1].Arguments) != `{"path":"b"}` {
					t.Fatalf("calls = %+v", calls)
				}
				req.Messages = append(req.Messages, resp.Message,
					model.Message{Role: model.Tool, ToolCallID: "call_a", Content: "a built"},
					model.Message{Role: model.Tool, ToolCallID: "call_b", Content: "b built"})
				resp, err = p.Complete(context.Background(), req, emit)
				if err != nil || resp.Message.Content != "both built" {
					t.Fatalf("%+v %v", resp, err)
				}
				got := srv.Requests()[1].Messages
				if len(got) != 4 || got[2].ToolCallID != "call_a" || got[3].ToolCallID != "call_b" {
					t.Errorf("server saw %+v", got)
				}
				if provider == "anthropic" && strings.Count(string(srv.Requests()[1].Body), `"role":"user"`) != 2 {
					t.Errorf("tool results not grouped in one user message: %s", srv.Requests()[1].Body)
				}
			})
		}
	}
}
