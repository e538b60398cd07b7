package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openAIProvider speaks OpenAI chat completions: OpenAI itself, Ollama's
// /v1 and other compatible servers.
type openAIProvider struct {
	name   string
	cfg    Config
	key    string
	client openai.Client
}

func newOpenAI(cfg Config, key, defaultBase string) *openAIProvider {
	base := cfg.BaseURL
	if base == "" {
		base = defaultBase
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	// NewClient also reads OPENAI_* variables; every one that matters is
	// set explicitly so a local server never receives the OpenAI key.
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithAPIKey(key),
		option.WithHTTPClient(boundedClient(cfg.HTTPClient, MaxResponseBytes)),
	}
	if key == "" {
		opts = append(opts, option.WithHeaderDel("Authorization"))
	}
	if cfg.Provider != "openai" {
		opts = append(opts, option.WithHeaderDel("OpenAI-Organization"), option.WithHeaderDel("OpenAI-Project"))
	}
	if cfg.MaxRetries != nil {
		opts = append(opts, option.WithMaxRetries(*cfg.MaxRetries))
	}
	return &openAIProvider{name: cfg.Provider, cfg: cfg, key: key, client: openai.NewClient(opts...)}
}

func (p *openAIProvider) Name() string { return p.name }

func (p *openAIProvider) Complete(ctx context.Context, req *Request, stream func(string)) (*Response, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	var resp *Response
	if stream != nil {
		resp, err = p.stream(ctx, params, stream)
	} else {
		resp, err = p.complete(ctx, params)
	}
	if err == nil {
		err = checkResponse(req, resp)
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		// The SDK's error text is the status only; the server's message
		// says what was wrong (a scripted server's mismatch, a bad model
		// name).
		err = fmt.Errorf("%w: %s", err, clipText(apiErr.Message))
	}
	if err != nil {
		return nil, callError(p.name, p.key, err)
	}
	return resp, nil
}

func (p *openAIProvider) params(req *Request) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{
		Model: shared.ChatModel(modelName(req, p.cfg)),
	}
	if p.cfg.Provider == "openai" {
		params.MaxCompletionTokens = openai.Int(int64(maxTokens(req, p.cfg)))
	} else {
		// Compatible servers know the older field only.
		params.MaxTokens = openai.Int(int64(maxTokens(req, p.cfg)))
	}
	if t := temperature(req, p.cfg); t != nil {
		params.Temperature = openai.Float(*t)
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case User:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		case Tool:
			content := m.Content
			if m.IsError && !strings.HasPrefix(content, "error") {
				// The wire format has no error flag; say it in the text.
				content = "error: " + content
			}
			params.Messages = append(params.Messages, openai.ToolMessage(content, m.ToolCallID))
		case Assistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, c := range m.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	for i, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if len(t.InputSchema) > 0 {
			var schema shared.FunctionParameters
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return params, fmt.Errorf("tools[%d].input_schema: %w", i, err)
			}
			fn.Parameters = schema
		} else {
			fn.Parameters = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

func (p *openAIProvider) complete(ctx context.Context, params openai.ChatCompletionNewParams) (*Response, error) {
	cc, err := p.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, err
	}
	if len(cc.Choices) == 0 {
		return nil, fmt.Errorf("%w: no choices in the completion", ErrBadResponse)
	}
	ch := cc.Choices[0]
	resp := &Response{
		Message:    Message{Role: Assistant, Content: ch.Message.Content},
		StopReason: openAIStop(ch.FinishReason),
		Usage:      Usage{InputTokens: int(cc.Usage.PromptTokens), OutputTokens: int(cc.Usage.CompletionTokens)},
	}
	for _, c := range ch.Message.ToolCalls {
		if c.Type != "" && c.Type != "function" {
			return nil, fmt.Errorf("%w: tool call %s of unsupported type %q", ErrBadResponse, clipText(c.ID), clipText(c.Type))
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{
			ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments),
		})
	}
	return resp, nil
}

// stream accumulates the chunks itself rather than with the SDK's
// accumulator: it needs only choice 0 and must stay bounded.
func (p *openAIProvider) stream(ctx context.Context, params openai.ChatCompletionNewParams, emit func(string)) (*Response, error) {
	params.StreamOptions.IncludeUsage = openai.Bool(true)
	s := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var (
		text   strings.Builder
		calls  = map[int64]*ToolCall{}
		args   = map[int64]*strings.Builder{}
		finish string
		usage  Usage
	)
	for s.Next() {
		chunk := s.Current()
		if chunk.JSON.Usage.Valid() {
			usage = Usage{InputTokens: int(chunk.Usage.PromptTokens), OutputTokens: int(chunk.Usage.CompletionTokens)}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				emit(d)
			}
			for _, tc := range ch.Delta.ToolCalls {
				c, ok := calls[tc.Index]
				if !ok {
					if len(calls) >= 128 {
						return nil, fmt.Errorf("%w: more than 128 tool calls in one answer", ErrBadResponse)
					}
					c = &ToolCall{}
					calls[tc.Index] = c
					args[tc.Index] = &strings.Builder{}
				}
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if len(c.Name)+len(tc.Function.Name) > 256 {
					return nil, fmt.Errorf("%w: tool name longer than 256 bytes", ErrBadResponse)
				}
				c.Name += tc.Function.Name
				args[tc.Index].WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if finish == "" {
		return nil, fmt.Errorf("%w: the stream ended without a finish reason", ErrBadResponse)
	}
	resp := &Response{
		Message:    Message{Role: Assistant, Content: text.String()},
		StopReason: openAIStop(finish),
		Usage:      usage,
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		c := calls[i]
		c.Arguments = json.RawMessage(args[i].String())
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, *c)
	}
	return resp, nil
}

func openAIStop(reason string) string {
	switch reason {
	case "stop":
		return EndTurn
	case "tool_calls", "function_call":
		return ToolUse
	case "length":
		return MaxTokens
	}
	return reason
}
