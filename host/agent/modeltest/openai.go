package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/langhost/langhost/host/agent/model"
)

// openAIWire is OpenAI chat completions.
type openAIWire struct{}

func (openAIWire) name() string { return "openai" }

type oaRequest struct {
	Model               string      `json:"model"`
	Messages            []oaMessage `json:"messages"`
	Tools               []oaTool    `json:"tools"`
	Stream              bool        `json:"stream"`
	MaxTokens           int         `json:"max_tokens"`
	MaxCompletionTokens int         `json:"max_completion_tokens"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

func (openAIWire) parse(body []byte, r *Request) error {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("scripted model: request body is not a chat completion request: %w", err)
	}
	if in.Model == "" {
		return fmt.Errorf("scripted model: request has no model")
	}
	r.Model, r.Stream = in.Model, in.Stream
	r.MaxTokens = max(in.MaxTokens, in.MaxCompletionTokens)
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.Function.Name)
	}
	for i, m := range in.Messages {
		text, err := oaText(m.Content)
		if err != nil {
			return fmt.Errorf("scripted model: messages[%d].content: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			r.System = joinText(r.System, text)
		case "user":
			r.Messages = append(r.Messages, model.Message{Role: model.User, Content: text})
		case "tool":
			r.Messages = append(r.Messages, model.Message{Role: model.Tool, Content: text, ToolCallID: m.ToolCallID,
				IsError: strings.HasPrefix(text, "error")})
		case "assistant":
			msg := model.Message{Role: model.Assistant, Content: text}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)})
			}
			r.Messages = append(r.Messages, msg)
		default:
			return fmt.Errorf("scripted model: messages[%d].role %q is not a chat completion role", i, m.Role)
		}
	}
	return nil
}

// oaText reads a content that is a string, null or an array of text parts.
func oaText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

func (openAIWire) writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil},
	})
}

func oaFinish(reply *Reply) string {
	switch reply.StopReason {
	case "":
		if len(reply.ToolCalls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case model.EndTurn:
		return "stop"
	case model.ToolUse:
		return "tool_calls"
	case model.MaxTokens:
		return "length"
	}
	return reply.StopReason
}

func (openAIWire) write(w http.ResponseWriter, req *Request, reply *Reply) error {
	args := make([]string, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		a, err := c.arguments()
		if err != nil {
			return err
		}
		args[i] = a
	}
	u := usage(req, reply, args)
	usageJSON := map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens}
	id := fmt.Sprintf("chatcmpl-scripted-%d", req.Turn)
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text, "refusal": nil}
		if len(reply.ToolCalls) > 0 {
			var calls []map[string]any
			for i, c := range reply.ToolCalls {
				calls = append(calls, map[string]any{
					"id": callID(c, req.Turn, i), "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": args[i]},
				})
			}
			msg["tool_calls"] = calls
			if reply.Text == "" {
				msg["content"] = nil
			}
		}
		return writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": oaFinish(reply), "logprobs": nil}},
			"usage":   usageJSON,
		})
	}
	sse := newSSE(w)
	chunk := func(delta map[string]any, finish any) error {
		return sse.data(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		})
	}
	if err := chunk(map[string]any{"role": "assistant", "content": ""}, nil); err != nil {
		return err
	}
	for _, piece := range chunks(reply.Text, max(16, len(reply.Text)/256)) {
		if err := chunk(map[string]any{"content": piece}, nil); err != nil {
			return err
		}
	}
	for i, c := range reply.ToolCalls {
		head := map[string]any{"index": i, "id": callID(c, req.Turn, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}
		if err := chunk(map[string]any{"tool_calls": []any{head}}, nil); err != nil {
			return err
		}
		for _, piece := range chunks(args[i], 8) {
			d := map[string]any{"index": i, "function": map[string]any{"arguments": piece}}
			if err := chunk(map[string]any{"tool_calls": []any{d}}, nil); err != nil {
				return err
			}
		}
	}
	if err := chunk(map[string]any{}, oaFinish(reply)); err != nil {
		return err
	}
	if err := sse.data(map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": req.Model,
		"choices": []any{}, "usage": usageJSON,
	}); err != nil {
		return err
	}
	return sse.raw("data: [DONE]\n\n")
}
