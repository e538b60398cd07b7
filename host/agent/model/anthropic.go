package model

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicProvider speaks the Anthropic messages API.
type anthropicProvider struct {
	cfg    Config
	key    string
	client anthropic.Client
}

func newAnthropic(cfg Config, key string) *anthropicProvider {
	opts := []option.RequestOption{
		// The environment (ANTHROPIC_BASE_URL, profiles, federation) is
		// not consulted: the config says where and with which key.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithHTTPClient(boundedClient(cfg.HTTPClient, MaxResponseBytes)),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.MaxRetries != nil {
		opts = append(opts, option.WithMaxRetries(*cfg.MaxRetries))
	}
	return &anthropicProvider{cfg: cfg, key: key, client: anthropic.NewClient(opts...)}
}

func (p *anthropicProvider) Name() string { return "anthropic" }

func (p *anthropicProvider) Complete(ctx context.Context, req *Request, stream func(string)) (*Response, error) {
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
		var msg *anthropic.Message
		if msg, err = p.client.Messages.New(ctx, params); err == nil {
			resp, err = anthropicResponse(msg)
		}
	}
	if err == nil {
		err = checkResponse(req, resp)
	}
	if err != nil {
		return nil, callError("anthropic", p.key, err)
	}
	return resp, nil
}

func (p *anthropicProvider) params(req *Request) (anthropic.MessageNewParams, error) {
	params := anthropic.MessageNewParams{
		Model:     modelName(req, p.cfg),
		MaxTokens: int64(maxTokens(req, p.cfg)),
	}
	if t := temperature(req, p.cfg); t != nil {
		// Anthropic's range is [0, 1].
		params.Temperature = anthropic.Float(min(*t, 1))
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	// Consecutive tool results travel in one user message, as the API
	// requires: every tool_use block is answered in the next user turn.
	for i, m := range req.Messages {
		switch m.Role {
		case User:
			params.Messages = appendUser(params.Messages, anthropic.NewTextBlock(m.Content))
		case Tool:
			params.Messages = appendUser(params.Messages, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, m.IsError))
		case Assistant:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, c := range m.ToolCalls {
				var input map[string]any
				if len(c.Arguments) > 0 {
					if err := json.Unmarshal(c.Arguments, &input); err != nil {
						return params, fmt.Errorf("messages[%d].tool_calls: arguments of %s: %w", i, c.Name, err)
					}
				}
				if input == nil {
					input = map[string]any{}
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
			}
			if len(blocks) == 0 {
				// The API rejects empty content.
				blocks = append(blocks, anthropic.NewTextBlock("(no answer)"))
			}
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		}
	}
	for i, t := range req.Tools {
		schema := anthropic.ToolInputSchemaParam{}
		if len(t.InputSchema) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(t.InputSchema, &obj); err != nil {
				return params, fmt.Errorf("tools[%d].input_schema: %w", i, err)
			}
			schema.Properties = obj["properties"]
			if names, ok := obj["required"].([]any); ok {
				for _, r := range names {
					if s, ok := r.(string); ok {
						schema.Required = append(schema.Required, s)
					}
				}
			}
			extra := map[string]any{}
			for k, v := range obj {
				if k != "properties" && k != "required" && k != "type" {
					extra[k] = v
				}
			}
			if len(extra) > 0 {
				schema.ExtraFields = extra
			}
		}
		tool := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	return params, nil
}

// appendUser adds blocks to the last message if it is a user message,
// else starts one.
func appendUser(msgs []anthropic.MessageParam, block anthropic.ContentBlockParamUnion) []anthropic.MessageParam {
	if n := len(msgs); n > 0 && msgs[n-1].Role == anthropic.MessageParamRoleUser {
		msgs[n-1].Content = append(msgs[n-1].Content, block)
		return msgs
	}
	return append(msgs, anthropic.NewUserMessage(block))
}

// stream accumulates the events itself: the SDK's accumulator copies the
// text on every delta (quadratic in the number of deltas) and silently
// drops tool input that is not valid JSON, which must be an error here.
func (p *anthropicProvider) stream(ctx context.Context, params anthropic.MessageNewParams, emit func(string)) (*Response, error) {
	s := p.client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	type block struct {
		typ, id, name string
		text          strings.Builder
	}
	var (
		blocks  []*block
		resp    = &Response{Message: Message{Role: Assistant}}
		stopped bool
	)
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "message_start":
			resp.Usage.InputTokens = int(ev.Message.Usage.InputTokens)
			resp.Usage.OutputTokens = int(ev.Message.Usage.OutputTokens)
		case "content_block_start":
			if ev.Index != int64(len(blocks)) {
				return nil, fmt.Errorf("%w: content block %d started after %d blocks", ErrBadResponse, ev.Index, len(blocks))
			}
			cb := ev.ContentBlock
			b := &block{typ: cb.Type, id: cb.ID, name: cb.Name}
			if cb.Type == "text" {
				b.text.WriteString(cb.Text)
			}
			blocks = append(blocks, b)
		case "content_block_delta":
			if ev.Index < 0 || ev.Index >= int64(len(blocks)) {
				return nil, fmt.Errorf("%w: delta for content block %d of %d", ErrBadResponse, ev.Index, len(blocks))
			}
			b := blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				b.text.WriteString(ev.Delta.Text)
				if ev.Delta.Text != "" {
					emit(ev.Delta.Text)
				}
			case "input_json_delta":
				b.text.WriteString(ev.Delta.PartialJSON)
			}
		case "message_delta":
			resp.StopReason = string(ev.Delta.StopReason)
			resp.Usage.OutputTokens = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() {
				resp.Usage.InputTokens = int(ev.Usage.InputTokens)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if !stopped {
		return nil, fmt.Errorf("%w: the stream ended without message_stop", ErrBadResponse)
	}
	if resp.StopReason == "" {
		return nil, fmt.Errorf("%w: no stop_reason", ErrBadResponse)
	}
	var text strings.Builder
	for _, b := range blocks {
		switch b.typ {
		case "text":
			text.WriteString(b.text.String())
		case "tool_use":
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(b.text.String())})
		}
	}
	resp.Message.Content = text.String()
	return resp, nil
}

func anthropicResponse(msg *anthropic.Message) (*Response, error) {
	if msg == nil {
		return nil, fmt.Errorf("%w: no message", ErrBadResponse)
	}
	resp := &Response{
		Message:    Message{Role: Assistant},
		StopReason: string(msg.StopReason),
		Usage:      Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens)},
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
		}
		// Thinking and server-tool blocks are not part of the neutral
		// conversation; they are dropped.
	}
	resp.Message.Content = text.String()
	if resp.StopReason == "" {
		return nil, fmt.Errorf("%w: no stop_reason", ErrBadResponse)
	}
	return resp, nil
}
