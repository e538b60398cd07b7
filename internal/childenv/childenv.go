// Package childenv builds the environment of the processes langhost
// starts: CLI tools, plugins, language servers, the daemon. A repository's
// tests and build scripts are its code, and a language server runs the
// repository's build too, so none of them gets the user's provider keys,
// tokens or other secret-looking variables unless a spec or the user
// names a variable to pass (runner.Command.PassEnv).
//
// A variable is secret when its name is one langhost knows to hold a
// credential (OPENAI_API_KEY, ANTHROPIC_API_KEY, LANGHOST_MCP_TOKEN) or
// ends like one (_API_KEY, _APIKEY, _TOKEN, _SECRET, _SECRET_KEY,
// _PASSWORD, _ACCESS_KEY, _PRIVATE_KEY; any case), or when its value is
// shaped like a common API key (sk-..., ghp_..., AKIA...): a key the user
// keeps in a variable of another name (agent run --api-key-env MYKEY).
package childenv

import (
	"os"
	"slices"
	"strings"

	"github.com/langhost/langhost/internal/redact"
)

// secretSuffixes end the names of secret variables (compared upper case).
var secretSuffixes = []string{"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_PASSWORD", "_ACCESS_KEY", "_PRIVATE_KEY"}

// secretNames are secret whatever the suffix rules say.
var secretNames = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LANGHOST_MCP_TOKEN"}

// Secret reports whether the variable name=value must not reach a child
// unless passed by name.
func Secret(name, value string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(secretNames, up) {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return redact.Shaped(value)
}

// Scrub returns env (KEY=VALUE entries) without its secret variables,
// except those named in pass. env is not modified.
func Scrub(env []string, pass ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if Secret(name, value) && !slices.Contains(pass, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Pass returns the NAME=VALUE entries of this process's environment for
// the variables named, set or not set; a name given twice is listed once.
// It is how a spec's passEnv hands a child a variable Scrub removed.
func Pass(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] || strings.ContainsAny(n, "=\x00") {
			continue
		}
		seen[n] = true
		if v, ok := os.LookupEnv(n); ok {
			out = append(out, n+"="+v)
		}
	}
	return out
}

// SecretNames returns the names of env's secret variables, for a child
// that is the user's own program and needs them all (an agent CLI that
// bench runs, with its API keys).
func SecretNames(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, value, _ := strings.Cut(kv, "="); Secret(name, value) {
			out = append(out, name)
		}
	}
	return out
}

// Langhost returns the names of env's LANGHOST_* variables: a langhost
// process started by langhost (the daemon) reads its settings from them,
// and its identity depends on them, so Scrub must keep them for it. The
// daemon's own children are scrubbed again.
func Langhost(env []string) []string {
	var out []string
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "LANGHOST_") {
			out = append(out, name)
		}
	}
	return out
}
