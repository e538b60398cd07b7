package model

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// unreachable turns a provider call that could not connect (nothing
// listening, no such host) into a precondition failure that says what to
// do: start the local server, or pick a hosted provider and its key. A
// bare "connection refused" leaves a newcomer with the default provider,
// Ollama, nowhere to go. It returns nil for any other error.
func unreachable(provider string, err error) error {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dns),
		errors.As(err, &op) && op.Op == "dial":
	default:
		return nil
	}
	hint := "check that the server at its base URL (--base-url) is running"
	if provider == "ollama" {
		hint = "start it with `ollama serve` (and `ollama pull <model>`)"
	}
	return &failure.Error{Code: failure.Precondition, Field: "provider", Message: fmt.Sprintf(
		"%s: cannot reach the model server: %s; or use a hosted provider: --provider openai with OPENAI_API_KEY set, or --provider anthropic with ANTHROPIC_API_KEY set",
		provider, hint), Err: err, Details: map[string]any{"provider": provider}}
}
