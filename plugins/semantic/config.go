package semantic

import (
	"encoding/json"
	"regexp"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// Config is a language spec's `semantic:` block: which language server to
// run and how to talk to it.
type Config struct {
	Command string   `json:"command" yaml:"command"`
	Args    []string `json:"args,omitempty" yaml:"args,omitempty"`
	// Dialect is "standard" (default) or "roslyn".
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
	// default 2m). RequestTimeout bounds each operation (default 60s).
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
	// Fallback is run when Command is not found on PATH.
	Fallback *Fallback `json:"fallback,omitempty" yaml:"fallback,omitempty"`
}

// Fallback is an alternative server command.
type Fallback struct {
	Command string   `json:"command" yaml:"command"`
	Args    []string `json:"args,omitempty" yaml:"args,omitempty"`
}

// Dialects.
const (
	DialectStandard = "standard"
	DialectRoslyn   = "roslyn"
)

const (
	defaultReadyTimeout   = 2 * time.Minute
	defaultRequestTimeout = 60 * time.Second
)

// ParseConfig decodes and validates a `semantic:` block.
func ParseConfig(raw json.RawMessage) (Config, error) {
	var c Config
	if len(raw) == 0 {
		return c, failure.New(failure.InvalidInput, "semantic config is empty")
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, failure.Wrap(failure.InvalidInput, err, "decoding semantic config")
	}
	if c.Command == "" {
		e := failure.New(failure.InvalidInput, "is required")
		e.Field = "semantic.command"
		return c, e
	}
	switch c.Dialect {
	case "":
		c.Dialect = DialectStandard
	case DialectStandard, DialectRoslyn:
	default:
		e := failure.New(failure.InvalidInput, "unknown dialect %q (want standard or roslyn)", c.Dialect)
		e.Field = "semantic.dialect"
		return c, e
	}
	for field, s := range map[string]string{"semantic.readyTimeout": c.ReadyTimeout, "semantic.requestTimeout": c.RequestTimeout, "semantic.readyQuiet": c.ReadyQuiet} {
		if s == "" {
			continue
		}
		if d, err := time.ParseDuration(s); err != nil || d <= 0 {
			e := failure.New(failure.InvalidInput, "%q is not a positive Go duration", s)
			e.Field = field
			return c, e
		}
	}
	if _, err := regexp.Compile(c.ReadyMessage); err != nil {
		e := failure.Wrap(failure.InvalidInput, err, "bad regular expression")
		e.Field = "semantic.readyMessage"
		return c, e
	}
	return c, nil
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

func (c Config) readyQuiet() time.Duration {
	if d, err := time.ParseDuration(c.ReadyQuiet); err == nil && d > 0 {
		return d
	}
	return settleTime
}
