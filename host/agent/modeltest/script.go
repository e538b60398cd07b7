package modeltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Script is a recorded conversation: the server answers the i-th request
// with Turns[i].
type Script struct {
	Turns []Turn `yaml:"turns" json:"turns"`
}

// Turn is one answer of the model and what the request must contain for
// the answer to make sense.
type Turn struct {
	Expect *Expect `yaml:"expect,omitempty" json:"expect,omitempty"`
	Reply  Reply   `yaml:"reply" json:"reply"`
}

// Expect lists conditions on a request; all must hold. A failed condition
// is answered with HTTP 400 naming it.
type Expect struct {
	SystemContains         []string `yaml:"system_contains,omitempty" json:"system_contains,omitempty"`
	LastUserContains       string   `yaml:"last_user_contains,omitempty" json:"last_user_contains,omitempty"`
	LastToolResultContains string   `yaml:"last_tool_result_contains,omitempty" json:"last_tool_result_contains,omitempty"`
	LastToolResultIsError  *bool    `yaml:"last_tool_result_is_error,omitempty" json:"last_tool_result_is_error,omitempty"`
	ToolsInclude           []string `yaml:"tools_include,omitempty" json:"tools_include,omitempty"`
	ToolsExclude           []string `yaml:"tools_exclude,omitempty" json:"tools_exclude,omitempty"`
	Stream                 *bool    `yaml:"stream,omitempty" json:"stream,omitempty"`
}

// Reply is what the model answers: text, tool calls or both. Raw, if set,
// replaces the whole HTTP answer (for tests of hostile servers).
type Reply struct {
	Text       string `yaml:"text,omitempty" json:"text,omitempty"`
	ToolCalls  []Call `yaml:"tool_calls,omitempty" json:"tool_calls,omitempty"`
	StopReason string `yaml:"stop_reason,omitempty" json:"stop_reason,omitempty"` // default end_turn, or tool_use with calls
	Usage      *Usage `yaml:"usage,omitempty" json:"usage,omitempty"`             // default: estimated from the sizes
	Raw        *Raw   `yaml:"raw,omitempty" json:"raw,omitempty"`
}

// Call is one tool call. Arguments is any YAML/JSON value, sent as JSON;
// RawArguments, if set, is sent verbatim instead (it need not be JSON).
type Call struct {
	ID           string `yaml:"id,omitempty" json:"id,omitempty"`
	Name         string `yaml:"name" json:"name"`
	Arguments    any    `yaml:"arguments,omitempty" json:"arguments,omitempty"`
	RawArguments string `yaml:"raw_arguments,omitempty" json:"raw_arguments,omitempty"`
}

// Usage is the token count the server reports.
type Usage struct {
	InputTokens  int `yaml:"input_tokens" json:"input_tokens"`
	OutputTokens int `yaml:"output_tokens" json:"output_tokens"`
}

// Raw is an HTTP answer sent as is.
type Raw struct {
	Status      int    `yaml:"status,omitempty" json:"status,omitempty"` // default 200
	ContentType string `yaml:"content_type,omitempty" json:"content_type,omitempty"`
	Body        string `yaml:"body" json:"body"`
}

// LoadScript reads a script file (YAML or JSON).
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript decodes a script; unknown keys are errors naming the line.
func ParseScript(name string, data []byte) (*Script, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Script
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("model script %s: %w", name, err)
	}
	for i, t := range s.Turns {
		for j, c := range t.Reply.ToolCalls {
			if strings.TrimSpace(c.Name) == "" {
				return nil, fmt.Errorf("model script %s: turns[%d].reply.tool_calls[%d].name is empty", name, i, j)
			}
			if _, err := c.arguments(); err != nil {
				return nil, fmt.Errorf("model script %s: turns[%d].reply.tool_calls[%d].arguments: %w", name, i, j, err)
			}
		}
	}
	return &s, nil
}

// arguments returns the call's arguments as sent on the wire.
func (c Call) arguments() (string, error) {
	if c.RawArguments != "" {
		return c.RawArguments, nil
	}
	if c.Arguments == nil {
		return "{}", nil
	}
	b, err := json.Marshal(c.Arguments)
	if err != nil {
		return "", err
	}
	return string(b), nil
}
