package model

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/langhost/langhost/internal/clip"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Role is the author of a message. "system" is not a message role: the
// system prompt is Request.System.
type Role string

// Message roles.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"
)

// Stop reasons every provider maps its own onto; an unknown reason is
// passed through as the provider sent it.
const (
	EndTurn   = "end_turn"
	ToolUse   = "tool_use"
	MaxTokens = "max_tokens"
)

// ToolCall is one call the model asks for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Message is one turn of the conversation. A Tool message answers the
// ToolCall with ID ToolCallID; IsError marks a failed call.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	IsError    bool       `json:"is_error,omitempty"`
}

// ToolDef is a tool offered to the model. Name matches ^[a-zA-Z0-9_-]{1,64}$
// (both APIs reject anything else); InputSchema is a JSON Schema object.
type ToolDef struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is one call to a model. Zero Model, Temperature or MaxTokens take
// the provider's configured values.
type Request struct {
	Model       string
	System      string
	Messages    []Message
	Tools       []ToolDef
	Temperature *float64
	MaxTokens   int
}

// Usage counts the tokens of one call as the provider reported them.
type Usage struct {
	InputTokens, OutputTokens int
}

// Response is the model's answer: Message has Role Assistant.
type Response struct {
	Message    Message
	StopReason string // EndTurn, ToolUse, MaxTokens or the provider's own
	Usage      Usage
}

// Provider is one model endpoint. Stream, if non-nil, receives text deltas
// as they arrive (the call then uses the provider's streaming API); the
// full Response is returned either way.
type Provider interface {
	Complete(ctx context.Context, req *Request, stream func(delta string)) (*Response, error)
	Name() string
}

// Config selects and configures a provider.
type Config struct {
	Provider  string // openai | anthropic | ollama | openai-compatible
	Model     string
	BaseURL   string // required for openai-compatible; defaults for the others
	APIKeyEnv string // env var holding the key; defaults OPENAI_API_KEY / ANTHROPIC_API_KEY
	// APIKey, if set, is used instead of APIKeyEnv (a key the caller read
	// from the user config). It prints as [redacted].
	APIKey Secret
	// UserEndpoint says the user chose Provider and BaseURL together (a
	// flag, their own config or environment), which lets a key from the
	// environment go to a BaseURL other than the provider's own endpoint.
	// Leave it false when either came from a role, a spec or a workspace
	// file: then such a base URL gets no key from the environment (see
	// New).
	UserEndpoint bool
	Temperature  *float64
	MaxTokens    int
	HTTPClient   *http.Client
	MaxRetries   *int // SDK retries of 408/429/5xx; nil keeps the SDK default (2)
}

// Providers are the names Config.Provider accepts.
var Providers = []string{"openai", "anthropic", "ollama", "openai-compatible"}

// MaxResponseBytes bounds one HTTP response body (JSON or the whole SSE
// stream); a larger response fails with ErrBadResponse.
const MaxResponseBytes = 8 << 20

// defaultMaxTokens is sent when neither the request nor the config sets a
// limit: Anthropic requires one, and an unbounded answer is a budget leak.
const defaultMaxTokens = 4096

// ErrBadResponse is wrapped by every error about what a server answered
// (as opposed to configuration or transport errors).
var ErrBadResponse = errors.New("bad model response")

// Compiled on first use, not at package init, which every CLI start pays
// (a {n,m} repetition compiles to n..m copies of its class).
var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// Official endpoints: a provider's key from the environment goes there, or
// to a base URL the user configured for it (Config.UserEndpoint).
const (
	OpenAIURL    = "https://api.openai.com/v1/"
	AnthropicURL = "https://api.anthropic.com/"
	OllamaURL    = "http://localhost:11434/v1/"
)

// New returns the provider cfg describes. getenv reads the API key
// (os.Getenv in production); the key is never logged or put in an error.
//
// A key read from the environment is sent only to the endpoint it belongs
// to: OPENAI_API_KEY (or APIKeyEnv) to OpenAIURL, ANTHROPIC_API_KEY to
// AnthropicURL, or to cfg.BaseURL when cfg.UserEndpoint says the user
// chose that base URL for that provider. Otherwise New refuses with
// precondition_failed naming the setting that would allow it, before
// anything is sent: a role or spec that switches a keyless local server's
// run to provider openai does not get the user's key sent there. Ollama
// and openai-compatible servers get no key unless APIKeyEnv names one,
// and then only with UserEndpoint. cfg.APIKey is the caller's own choice
// and goes where cfg says.
func New(cfg Config, getenv func(string) string) (Provider, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "model", Message: fmt.Sprintf("no model named for provider %q", cfg.Provider)}
	}
	if cfg.MaxTokens < 0 {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "maxTokens", Message: fmt.Sprintf("%d is negative", cfg.MaxTokens)}
	}
	if t := cfg.Temperature; t != nil && (*t < 0 || *t > 2) {
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "temperature", Message: fmt.Sprintf("%g is outside [0, 2]", *t)}
	}
	if cfg.BaseURL != "" {
		if err := checkBaseURL(cfg.BaseURL); err != nil {
			return nil, err
		}
	}
	switch cfg.Provider {
	case "openai":
		if err := checkKeyRoute(cfg, "OPENAI_API_KEY", OpenAIURL); err != nil {
			return nil, err
		}
		key, err := apiKey(cfg, "OPENAI_API_KEY", getenv)
		if err != nil {
			return nil, err
		}
		return newOpenAI(cfg, key, OpenAIURL), nil
	case "ollama":
		// Ollama ignores the key; a caller may still give one for a proxy.
		if err := checkKeyRoute(cfg, "", OllamaURL); err != nil {
			return nil, err
		}
		return newOpenAI(cfg, optionalKey(cfg, getenv), OllamaURL), nil
	case "openai-compatible":
		if cfg.BaseURL == "" {
			return nil, &failure.Error{Code: failure.InvalidInput, Field: "baseURL", Message: "provider openai-compatible needs the server's base URL (for example http://localhost:8000/v1)"}
		}
		if err := checkKeyRoute(cfg, "", ""); err != nil {
			return nil, err
		}
		return newOpenAI(cfg, optionalKey(cfg, getenv), ""), nil
	case "anthropic":
		if err := checkKeyRoute(cfg, "ANTHROPIC_API_KEY", AnthropicURL); err != nil {
			return nil, err
		}
		key, err := apiKey(cfg, "ANTHROPIC_API_KEY", getenv)
		if err != nil {
			return nil, err
		}
		return newAnthropic(cfg, key), nil
	case "":
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "provider", Message: "no provider named; want one of " + strings.Join(Providers, ", ")}
	default:
		return nil, &failure.Error{Code: failure.InvalidInput, Field: "provider", Message: fmt.Sprintf("unknown provider %q; want one of %s", cfg.Provider, strings.Join(Providers, ", "))}
	}
}

// checkKeyRoute refuses to send a key from the environment to a base URL
// the user did not choose for it. def is the provider's default key
// variable ("" for providers that take none unless APIKeyEnv names one)
// and official its own endpoint.
func checkKeyRoute(cfg Config, def, official string) error {
	if strings.TrimSpace(string(cfg.APIKey)) != "" || cfg.UserEndpoint {
		return nil
	}
	env := cfg.APIKeyEnv
	if env == "" {
		env = def
	}
	if env == "" || cfg.BaseURL == "" || sameEndpoint(cfg.BaseURL, official) {
		return nil
	}
	return &failure.Error{Code: failure.Precondition, Field: "baseURL", Message: fmt.Sprintf(
		"provider %s would send the key in %s to %s, which is not %s: a key from the environment goes only to its provider's endpoint "+
			"or to a base URL you give together with the provider (--provider %s --base-url URL); "+
			"here the provider or the base URL came from a role or a spec. For a server that needs no key, use --provider openai-compatible",
		cfg.Provider, env, cfg.BaseURL, cmp.Or(official, "the provider's endpoint"), cfg.Provider)}
}

// sameEndpoint reports whether base is the official endpoint: the same
// scheme, host and port (the path may differ by a trailing slash).
func sameEndpoint(base, official string) bool {
	if official == "" {
		return false
	}
	b, err1 := url.Parse(base)
	o, err2 := url.Parse(official)
	if err1 != nil || err2 != nil || b.User != nil {
		return false
	}
	return b.Scheme == o.Scheme && strings.EqualFold(b.Host, o.Host) &&
		strings.TrimSuffix(b.Path, "/") == strings.TrimSuffix(o.Path, "/")
}

func apiKey(cfg Config, def string, getenv func(string) string) (string, error) {
	if k := strings.TrimSpace(string(cfg.APIKey)); k != "" {
		return k, nil
	}
	env := cfg.APIKeyEnv
	if env == "" {
		env = def
	}
	key := strings.TrimSpace(getenv(env))
	if key == "" {
		return "", &failure.Error{Code: failure.Precondition, Field: "apiKeyEnv",
			Message: fmt.Sprintf("provider %s needs an API key in the environment variable %s, which is empty", cfg.Provider, env)}
	}
	return key, nil
}

// optionalKey is the key of a provider that may not need one: never the
// OpenAI or Anthropic default variable, which must not reach a local server.
func optionalKey(cfg Config, getenv func(string) string) string {
	if k := strings.TrimSpace(string(cfg.APIKey)); k != "" {
		return k
	}
	if cfg.APIKeyEnv != "" {
		return strings.TrimSpace(getenv(cfg.APIKeyEnv))
	}
	return ""
}

// Secret is a credential. It formats as [redacted] with every verb and in
// JSON, so logging a Config does not leak it.
type Secret string

// Format implements fmt.Formatter.
func (Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[redacted]")) }

// MarshalJSON implements json.Marshaler.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"[redacted]"`), nil }

func checkBaseURL(u string) error {
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return &failure.Error{Code: failure.InvalidInput, Field: "baseURL", Message: fmt.Sprintf("%q is not an http(s) URL", u)}
	}
	return nil
}

// checkRequest rejects what both APIs would reject, with the field named,
// before anything is sent.
func checkRequest(req *Request) error {
	if req == nil {
		return failure.New(failure.InvalidInput, "no request")
	}
	for i, t := range req.Tools {
		if !toolNameRE().MatchString(t.Name) {
			return &failure.Error{Code: failure.InvalidInput, Field: fmt.Sprintf("tools[%d].name", i), Message: fmt.Sprintf("%q does not match ^[a-zA-Z0-9_-]{1,64}$", t.Name)}
		}
		if len(t.InputSchema) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(t.InputSchema, &obj); err != nil {
				return &failure.Error{Code: failure.InvalidInput, Field: fmt.Sprintf("tools[%d].input_schema", i), Message: "not a JSON object", Err: err}
			}
		}
	}
	for i, m := range req.Messages {
		switch m.Role {
		case User, Assistant:
		case Tool:
			if m.ToolCallID == "" {
				return &failure.Error{Code: failure.InvalidInput, Field: fmt.Sprintf("messages[%d].tool_call_id", i), Message: "a tool message must name the call it answers"}
			}
		default:
			return &failure.Error{Code: failure.InvalidInput, Field: fmt.Sprintf("messages[%d].role", i), Message: fmt.Sprintf("%q is not user, assistant or tool", m.Role)}
		}
	}
	return nil
}

// checkResponse validates the calls the model made: each names an offered
// tool and has a JSON object as arguments (empty arguments become {}).
func checkResponse(req *Request, resp *Response) error {
	for i := range resp.Message.ToolCalls {
		c := &resp.Message.ToolCalls[i]
		if !offered(req.Tools, c.Name) {
			return fmt.Errorf("%w: tool call %d names %q, which is not among the %d tools offered", ErrBadResponse, i, clipText(c.Name), len(req.Tools))
		}
		if len(strings.TrimSpace(string(c.Arguments))) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
		var obj map[string]any
		if err := json.Unmarshal(c.Arguments, &obj); err != nil || obj == nil {
			return fmt.Errorf("%w: arguments of tool call %d (%s) are not a JSON object: %s", ErrBadResponse, i, c.Name, clipText(string(c.Arguments)))
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
	}
	return nil
}

func offered(tools []ToolDef, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// clipText shortens server-controlled text quoted in an error.
func clipText(s string) string {
	const n = 600
	if len(s) <= n {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ToValidUTF8(clip.Head(s, n), "\uFFFD") + "…"
}

// maxTokens picks the request's limit, else the config's, else the default.
func maxTokens(req *Request, cfg Config) int {
	switch {
	case req.MaxTokens > 0:
		return req.MaxTokens
	case cfg.MaxTokens > 0:
		return cfg.MaxTokens
	}
	return defaultMaxTokens
}

func temperature(req *Request, cfg Config) *float64 {
	if req.Temperature != nil {
		return req.Temperature
	}
	return cfg.Temperature
}

func modelName(req *Request, cfg Config) string {
	if req.Model != "" {
		return req.Model
	}
	return cfg.Model
}
