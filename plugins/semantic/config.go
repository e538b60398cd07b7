package semantic

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/toolpath"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Config is the language server configuration of a language: the spec's
// `semantic:` block with the servers it names resolved against the spec's
// `servers:` table, as the host sends it in pluginapi.OpenRequest.Config.
//
// It is either one server (the fields below, the inline form) or a list of
// candidate servers in Servers, each a Config of its own, in order of
// preference: the first whose command is installed is used.
type Config struct {
	Command string   `json:"command" yaml:"command"`
	Args    []string `json:"args,omitempty" yaml:"args,omitempty"`
	// Dialect is "standard" (default), "roslyn" or "csharp-ls".
	Dialect string `json:"dialect,omitempty" yaml:"dialect,omitempty"`
	// RootMarkers are file names or globs ("go.mod", "*.sln") marking the
	// directory the server is rooted at, searched from the workspace root
	// upwards; the workspace root is used when none matches.
	RootMarkers           []string       `json:"rootMarkers,omitempty" yaml:"rootMarkers,omitempty"`
	InitializationOptions map[string]any `json:"initializationOptions,omitempty" yaml:"initializationOptions,omitempty"`
	// Settings answer workspace/configuration by dotted section path.
	Settings map[string]any `json:"settings,omitempty" yaml:"settings,omitempty"`
	// LanguageIDs maps file extensions (".go") to LSP language ids ("go");
	// unknown extensions use the extension without its dot.
	LanguageIDs map[string]string `json:"languageIds,omitempty" yaml:"languageIds,omitempty"`
	// ReadyTimeout bounds start-up until the server is ready (Go duration,
	// default 2m), counted from the server's last sign of progress (a
	// $/progress notification or a log message), so that a large solution
	// still loading is not killed; start-up as a whole is bounded at 10
	// times it. RequestTimeout bounds each operation (default 60s).
	ReadyTimeout   string `json:"readyTimeout,omitempty" yaml:"readyTimeout,omitempty"`
	RequestTimeout string `json:"requestTimeout,omitempty" yaml:"requestTimeout,omitempty"`
	// ReadyQuiet is how long a standard-dialect server must show no
	// work-done progress and send nothing before it counts as ready
	// (default 300ms). Servers that load silently (pyright) need more.
	ReadyQuiet string `json:"readyQuiet,omitempty" yaml:"readyQuiet,omitempty"`
	// ReadyMessage, when set, is a regular expression; a standard-dialect
	// server is ready only after a window/logMessage matching it (e.g.
	// pyright's "Found 3 source files"), and then ReadyQuiet.
	ReadyMessage string `json:"readyMessage,omitempty" yaml:"readyMessage,omitempty"`
	// OpenFileOnStart opens the first source file under the root once the
	// server is initialized; the server is ready once it has published
	// diagnostics for that file. Some servers (typescript-language-server)
	// know no project, and answer workspace/symbol with an error, until a
	// file of it is open.
	OpenFileOnStart bool `json:"openFileOnStart,omitempty" yaml:"openFileOnStart,omitempty"`
	// DiagnosticsQuiet, for a server that publishes a file's diagnostics
	// only when they change (typescript-language-server), is how long it
	// must send nothing after an edit for the file's last diagnostics to
	// count as current. Without it a transaction waits for a publication
	// of the edited version, which such a server never sends for a file
	// that stays clean.
	DiagnosticsQuiet string `json:"diagnosticsQuiet,omitempty" yaml:"diagnosticsQuiet,omitempty"`
	// WorkspaceCode names the code the workspace controls that the server
	// runs when it starts ("" or "none": none); the host asks for the
	// user's consent before a call starts such a server.
	WorkspaceCode string `json:"workspaceCode,omitempty" yaml:"workspaceCode,omitempty"`
	// SafeMode, used when Untrusted, starts the server so that it runs
	// none of the workspace's code.
	SafeMode *SafeMode `json:"safeMode,omitempty" yaml:"safeMode,omitempty"`
	// Untrusted is set by the host for a workspace the user has not
	// trusted: a server with a SafeMode then starts in it.
	Untrusted bool `json:"untrusted,omitempty" yaml:"-"`
	// Servers are the candidate servers in order of preference. When set,
	// the fields above are empty.
	Servers []Config `json:"servers,omitempty" yaml:"servers,omitempty"`
}

// SafeMode is how a server starts without running the workspace's code
// (spec.SafeMode).
type SafeMode struct {
	InitializationOptions map[string]any `json:"initializationOptions,omitempty" yaml:"initializationOptions,omitempty"`
	Paths                 []string       `json:"paths,omitempty" yaml:"paths,omitempty"`
}

// Dialects: what differs between servers around start-up (dialect.go).
const (
	DialectStandard = "standard"
	DialectRoslyn   = "roslyn"
	DialectCSharpLS = "csharp-ls"
)

// Dialects lists the known dialects.
func Dialects() []string { return []string{DialectStandard, DialectRoslyn, DialectCSharpLS} }

const (
	defaultReadyTimeout   = 2 * time.Minute
	defaultRequestTimeout = 60 * time.Second
)

// ParseConfig decodes and validates a language server configuration. The
// result lists the candidate servers in Servers (one for the inline form),
// each validated and with its defaults set.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if len(raw) == 0 {
		return c, failure.New(failure.InvalidInput, "semantic config is empty")
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, failure.Wrap(failure.InvalidInput, err, "decoding semantic config")
	}
	if len(c.Servers) == 0 {
		s, err := c.validated("semantic")
		if err != nil {
			return c, err
		}
		return Config{Servers: []Config{s}, Untrusted: c.Untrusted}, nil
	}
	if c.Command != "" {
		return c, fieldError("semantic.command", "set either command (one server) or servers (candidates), not both")
	}
	for i, s := range c.Servers {
		field := fmt.Sprintf("semantic.servers[%d]", i)
		if len(s.Servers) > 0 {
			return c, fieldError(field+".servers", "a server cannot list servers of its own")
		}
		var err error
		if c.Servers[i], err = s.validated(field); err != nil {
			return c, err
		}
		c.Servers[i].Untrusted = c.Untrusted
	}
	return c, nil
}

// validated checks one server, whose fields are named under prefix in
// errors, and sets its defaults.
func (c Config) validated(prefix string) (Config, error) {
	if c.Command == "" {
		return c, fieldError(prefix+".command", "is required")
	}
	switch c.Dialect {
	case "":
		c.Dialect = DialectStandard
	case DialectStandard, DialectRoslyn, DialectCSharpLS:
	default:
		return c, fieldError(prefix+".dialect", "unknown dialect %q (want %s)", c.Dialect, strings.Join(Dialects(), ", "))
	}
	for _, d := range []struct{ field, value string }{{"readyTimeout", c.ReadyTimeout}, {"requestTimeout", c.RequestTimeout}, {"readyQuiet", c.ReadyQuiet}, {"diagnosticsQuiet", c.DiagnosticsQuiet}} {
		if d.value == "" {
			continue
		}
		if v, err := time.ParseDuration(d.value); err != nil || v <= 0 {
			return c, fieldError(prefix+"."+d.field, "%q is not a positive Go duration", d.value)
		}
	}
	if _, err := regexp.Compile(c.ReadyMessage); err != nil {
		e := failure.Wrap(failure.InvalidInput, err, "bad regular expression")
		e.Field = prefix + ".readyMessage"
		return c, e
	}
	return c, nil
}

func fieldError(field, format string, args ...any) *failure.Error {
	e := failure.New(failure.InvalidInput, format, args...)
	e.Field = field
	return e
}

// selectServer parses raw and picks the server to run: the first candidate
// whose command is installed. lang names the language in the advice of the
// error when none is.
func selectServer(raw json.RawMessage, lang string) (Config, error) {
	c, err := ParseConfig(raw)
	if err != nil {
		return c, err
	}
	var missing []string
	var errs []error
	for _, s := range c.Servers {
		_, err := toolpath.LookPath(s.Command)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
		missing = append(missing, fmt.Sprintf("%q", s.Command))
	}
	if len(missing) == 1 {
		return c, failure.Wrap(failure.Precondition, errs[0],
			"language server %s (semantic.command) is not installed; `langhost prereqs --check %s` says how to install it", missing[0], lang)
	}
	return c, failure.Wrap(failure.Precondition, errors.Join(errs...),
		"none of the language servers %s (semantic.servers) is installed; `langhost prereqs --check %s` says how to install them", strings.Join(missing, ", "), lang)
}

func (c Config) readyTimeout() time.Duration {
	if d, err := time.ParseDuration(c.ReadyTimeout); err == nil && d > 0 {
		return d
	}
	return defaultReadyTimeout
}

func (c Config) requestTimeout() time.Duration {
	if d, err := time.ParseDuration(c.RequestTimeout); err == nil && d > 0 {
		return d
	}
	return defaultRequestTimeout
}

// diagnosticsQuiet is DiagnosticsQuiet, 0 when unset.
func (c Config) diagnosticsQuiet() time.Duration {
	d, _ := time.ParseDuration(c.DiagnosticsQuiet)
	return max(d, 0)
}

func (c Config) readyQuiet() time.Duration {
	if d, err := time.ParseDuration(c.ReadyQuiet); err == nil && d > 0 {
		return d
	}
	return settleTime
}

// commandDirVar in a safe mode's strings is the directory of the server's
// executable after symlinks: where an npm-installed server's own
// dependencies live.
const commandDirVar = "${commandDir}"

// forWorkspace returns the configuration to start c with in the workspace
// at root. In an untrusted workspace a server with a safe mode starts in
// it: its options are merged over the server's own, and each of its
// paths must exist outside the workspace, so that what runs is the
// server's own code, never a copy the workspace ships.
func (c Config) forWorkspace(ws *workspace.Root) (Config, error) {
	if !c.Untrusted || c.SafeMode == nil {
		return c, nil
	}
	exe, err := exec.LookPath(c.Command)
	if err != nil {
		return c, failure.Wrap(failure.Precondition, err, "language server %q", c.Command)
	}
	if exe, err = filepath.Abs(exe); err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return c, failure.Wrap(failure.Precondition, err, "language server %q", c.Command)
	}
	dir := filepath.Dir(exe)
	expand := func(s string) string { return filepath.Clean(strings.ReplaceAll(s, commandDirVar, dir)) }
	for _, p := range c.SafeMode.Paths {
		p = expand(p)
		if ws.Contains(p) {
			return c, failure.New(failure.Precondition,
				"the safe mode of language server %q would use %s, inside the untrusted workspace; run `langhost trust` to let it use the workspace's copy", c.Command, p)
		}
		if _, err := os.Stat(p); err != nil {
			return c, failure.Wrap(failure.Precondition, err,
				"language server %q runs the workspace's own code unless it finds %s (its safe mode for an untrusted workspace); install it beside the server, or run `langhost trust`", c.Command, p)
		}
	}
	opts := maps.Clone(c.InitializationOptions)
	if opts == nil {
		opts = map[string]any{}
	}
	mergeOptions(opts, expandStrings(c.SafeMode.InitializationOptions, expand).(map[string]any))
	c.InitializationOptions = opts
	return c, nil
}

// expandStrings returns v with f applied to every string containing
// ${commandDir}, copying maps and slices.
func expandStrings(v any, f func(string) string) any {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, commandDirVar) {
			return f(v)
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = expandStrings(e, f)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = expandStrings(e, f)
		}
		return out
	}
	return v
}

// mergeOptions merges src into dst, object by object.
func mergeOptions(dst, src map[string]any) {
	for k, v := range src {
		sub, ok := v.(map[string]any)
		if old, isMap := dst[k].(map[string]any); ok && isMap {
			old = maps.Clone(old)
			mergeOptions(old, sub)
			dst[k] = old
			continue
		}
		dst[k] = v
	}
}
