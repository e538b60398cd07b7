// Package model talks to language models through the providers' official
// SDKs: openai-go for OpenAI, Ollama and other OpenAI-compatible servers
// (vLLM, LM Studio, llama.cpp), anthropic-sdk-go for Anthropic.
//
// A Provider sends one Request (system prompt, conversation, tool
// definitions) and returns the model's next message: text, tool calls or
// both. The conversation is provider-neutral; each provider translates it
// to its wire format and back, so an agent loop can switch providers
// between runs without changing its transcript.
//
// Responses are untrusted: a body larger than MaxResponseBytes, malformed
// JSON, tool arguments that are not a JSON object and calls to tools that
// were not offered are errors wrapping ErrBadResponse, so a caller can
// tell a misbehaving model from a failing network. API keys come from the
// environment (Config.APIKeyEnv) and never appear in errors: anything the
// server echoes back is redacted (internal/redact). A key from the
// environment goes only to its provider's own endpoint or to a base URL
// the user chose for that provider (Config.UserEndpoint); New refuses any
// other route before a request is sent.
//
// Additions to the agreed API (nothing was changed): Config.MaxRetries,
// Config.APIKey (a Secret, for keys from the user config), MaxResponseBytes,
// ErrBadResponse, Providers and the stop reason constants EndTurn, ToolUse
// and MaxTokens. Errors carry failure classes: invalid_input for a bad
// Config or Request (Field names it), precondition_failed for a missing
// key, tool_failed for what the server did, timeout/canceled from ctx.
package model
