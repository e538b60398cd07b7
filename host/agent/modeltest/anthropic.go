package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/langhost/langhost/host/agent/model"
)

// anthropicWire is the Anthropic messages API.
type anthropicWire struct{}

func (anthropicWire) name() string { return "anthropic" }

type anRequest struct {
	Model     string                  `json:"model"`
	System    json.RawMessage         `json:"system"`
	Messages  []anMessage             `json:"messages"`
	Tools     []struct{ Name string } `json:"tools"`
	Stream    bool                    `json:"stream"`
	MaxTokens *int                    `json:"max_tokens"`
}

type anMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// anBlocks reads a content that is a string or an array of blocks.
func anBlocks(raw json.RawMessage) ([]anBlock, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []anBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, fmt.Errorf("neither a string nor an array of content blocks")
	}
	return blocks, nil
}

func anText(blocks []anBlock) string {
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

func (anthropicWire) parse(body []byte, r *Request) error {
	var in anRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("scripted model: request body is not a messages request: %w", err)
	}
	if in.Model == "" {
		return fmt.Errorf("scripted model: request has no model")
	}
	if in.MaxTokens == nil || *in.MaxTokens <= 0 {
		return fmt.Errorf("scripted model: max_tokens is required and positive")
	}
	r.Model, r.Stream, r.MaxTokens = in.Model, in.Stream, *in.MaxTokens
	for _, t := range in.Tools {
		r.Tools = append(r.Tools, t.Name)
	}
	sys, err := anBlocks(in.System)
	if err != nil {
		return fmt.Errorf("scripted model: system: %w", err)
	}
	r.System = anText(sys)
	for i, m := range in.Messages {
		blocks, err := anBlocks(m.Content)
		if err != nil {
			return fmt.Errorf("scripted model: messages[%d].content: %w", i, err)
		}
		if len(blocks) == 0 {
			return fmt.Errorf("scripted model: messages[%d].content is empty", i)
		}
		switch m.Role {
		case "user":
			// Tool results first, as the API requires, then any text.
			for j, b := range blocks {
				switch b.Type {
				case "tool_result":
					res, err := anBlocks(b.Content)
					if err != nil {
						return fmt.Errorf("scripted model: messages[%d].content[%d].content: %w", i, j, err)
					}
					r.Messages = append(r.Messages, model.Message{Role: model.Tool, ToolCallID: b.ToolUseID, Content: anText(res), IsError: b.IsError})
				case "text":
				default:
					return fmt.Errorf("scripted model: messages[%d].content[%d].type %q is not text or tool_result", i, j, b.Type)
				}
			}
			if text := anText(blocks); text != "" {
				r.Messages = append(r.Messages, model.Message{Role: model.User, Content: text})
			}
		case "assistant":
			msg := model.Message{Role: model.Assistant, Content: anText(blocks)}
			for _, b := range blocks {
				if b.Type == "tool_use" {
					msg.ToolCalls = append(msg.ToolCalls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: b.Input})
				}
			}
			r.Messages = append(r.Messages, msg)
		default:
			return fmt.Errorf("scripted model: messages[%d].role %q is not user or assistant", i, m.Role)
		}
	}
	return nil
}

func (anthropicWire) writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "invalid_request_error", "message": msg},
	})
}

func anStop(reply *Reply) string {
	if reply.StopReason != "" {
		return reply.StopReason
	}
	if len(reply.ToolCalls) > 0 {
		return model.ToolUse
	}
	return model.EndTurn
}

func (anthropicWire) write(w http.ResponseWriter, req *Request, reply *Reply) error {
	args := make([]string, len(reply.ToolCalls))
	for i, c := range reply.ToolCalls {
		a, err := c.arguments()
		if err != nil {
			return err
		}
		args[i] = a
	}
	u := usage(req, reply, args)
	id := fmt.Sprintf("msg_scripted_%d", req.Turn)
	if !req.Stream {
		var content []any
		if reply.Text != "" || len(reply.ToolCalls) == 0 {
			content = append(content, map[string]any{"type": "text", "text": reply.Text})
		}
		for i, c := range reply.ToolCalls {
			content = append(content, map[string]any{"type": "tool_use", "id": callID(c, req.Turn, i), "name": c.Name, "input": rawPlaceholder(i)})
		}
		b, err := json.Marshal(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": content, "stop_reason": anStop(reply), "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens},
		})
		if err != nil {
			return err
		}
		// input is a JSON value on this wire; the arguments are spliced in
		// verbatim so a script can send a broken one.
		for i := range reply.ToolCalls {
			b = bytes.Replace(b, []byte(`"`+rawPlaceholder(i)+`"`), []byte(args[i]), 1)
		}
		w.Header().Set("Content-Type", "application/json")
		_, err = w.Write(b)
		return err
	}
	sse := newSSE(w)
	steps := []struct {
		event string
		data  map[string]any
	}{{"message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": 1},
	}}}}
	add := func(event string, data map[string]any) {
		data["type"] = event
		steps = append(steps, struct {
			event string
			data  map[string]any
		}{event, data})
	}
	index := 0
	if reply.Text != "" {
		add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, piece := range chunks(reply.Text, max(16, len(reply.Text)/256)) {
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "text_delta", "text": piece}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	for i, c := range reply.ToolCalls {
		add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{
			"type": "tool_use", "id": callID(c, req.Turn, i), "name": c.Name, "input": map[string]any{}}})
		for _, piece := range chunks(args[i], 8) {
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	add("message_delta", map[string]any{"delta": map[string]any{"stop_reason": anStop(reply), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}})
	add("message_stop", map[string]any{})
	for _, s := range steps {
		if err := sse.event(s.event, s.data); err != nil {
			return err
		}
	}
	return nil
}

func rawPlaceholder(i int) string { return fmt.Sprintf("@@modeltest-arguments-%d@@", i) }
