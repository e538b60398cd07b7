// Package config loads the host configuration (not language specs) with
// viper from, lowest precedence first: built-in defaults, the user config
// file, the workspace's .langhost.yaml, LANGHOST_* environment variables
// and command line flags. It remembers where every value came from.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// Key describes one configuration setting.
type Key struct {
	Name        string // dotted viper key, e.g. tools.allow
	Flag        string // command line flag bound to it, if any
	Default     any
	Description string
	Env         string // environment variable, if not EnvName(Name)
}

// Keys lists every setting.
var Keys = []Key{
	{Name: "workspace", Flag: "workspace", Default: ".", Description: "workspace root; tool paths are confined to it"},
	{Name: "languages", Flag: "languages", Default: []string{}, Description: "extra directories of language specs, searched last"},
	{Name: "timeout", Flag: "timeout", Default: "10m", Description: "cap on any tool run"},
	{Name: "max_output", Default: 1 << 20, Description: "bytes of stdout and of stderr kept per run"},
	{Name: "format", Flag: "format", Default: "", Description: "output format: json or text (default: text on a terminal, else json)"},
	{Name: "tools.allow", Default: []string{}, Description: "tool ids or globs (go.*) allowed to change files without --yes"},
	{Name: "log.level", Flag: "log-level", Default: "warn", Description: "log level: trace, debug, info, warn, error"},
	{Name: "mcp.token", Default: "", Description: "bearer token required by `langhost mcp --http` (required off loopback)"},
	{Name: "daemon.enabled", Env: "LANGHOST_DAEMON", Default: true, Description: "serve semantic tools of `langhost run` from a per-workspace background daemon"},
	{Name: "daemon.idle_timeout", Default: "10m", Description: "a daemon exits after this long without calls"},
	{Name: "spec.max_size", Default: 1 << 20, Description: "largest language spec file read, in bytes; larger files are skipped and reported"},
}

// Config is the effective configuration.
type Config struct {
	Workspace  string
	Languages  []string
	Timeout    time.Duration
	MaxOutput  int
	Format     string
	AllowTools []string
	LogLevel   string
	MCPToken   string
	// Daemon lets `langhost run` send semantic calls to a per-workspace
	// daemon that keeps language servers warm between calls.
	Daemon            bool
	DaemonIdleTimeout time.Duration
	// SpecMaxSize is the largest spec file read, in bytes.
	SpecMaxSize int64

	// Files are the config files that were read, lowest precedence first.
	Files   []string
	origins map[string]string
}

// Origin says where the value of key came from: "default", a file path,
// "env LANGHOST_X" or "flag --x".
func (c *Config) Origin(key string) string { return c.origins[key] }

// Paths are where config files are looked for.
type Paths struct {
	User      string // e.g. ~/.config/langhost/config.yaml
	Workspace string // ./.langhost.yaml
}

// DefaultPaths returns the standard config file locations.
func DefaultPaths() Paths {
	p := Paths{Workspace: ".langhost.yaml"}
	if dir, err := os.UserConfigDir(); err == nil {
		p.User = filepath.Join(dir, "langhost", "config.yaml")
	}
	return p
}

// Load builds the effective configuration. flags may be nil.
func Load(paths Paths, flags *pflag.FlagSet, env func(string) (string, bool)) (*Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	v := viper.New()
	c := &Config{origins: map[string]string{}}
	for _, k := range Keys {
		v.SetDefault(k.Name, k.Default)
		c.origins[k.Name] = "default"
	}
	for _, file := range []string{paths.User, paths.Workspace} {
		if file == "" {
			continue
		}
		values, err := readFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := v.MergeConfigMap(values); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		c.Files = append(c.Files, file)
		for _, k := range Keys {
			if lookupNested(values, k.Name) {
				c.origins[k.Name] = file
			}
		}
	}
	for _, k := range Keys {
		name := k.envName()
		if val, ok := env(name); ok {
			if _, isList := k.Default.([]string); isList {
				v.Set(k.Name, splitList(val))
			} else {
				v.Set(k.Name, val)
			}
			c.origins[k.Name] = "env " + name
		}
		if flags == nil || k.Flag == "" {
			continue
		}
		if f := flags.Lookup(k.Flag); f != nil && f.Changed {
			if err := v.BindPFlag(k.Name, f); err != nil {
				return nil, err
			}
			c.origins[k.Name] = "flag --" + k.Flag
		}
	}

	c.Workspace = v.GetString("workspace")
	c.Languages = v.GetStringSlice("languages")
	c.Format = v.GetString("format")
	c.AllowTools = v.GetStringSlice("tools.allow")
	c.LogLevel = v.GetString("log.level")
	c.MCPToken = v.GetString("mcp.token")
	c.MaxOutput = v.GetInt("max_output")
	c.SpecMaxSize = v.GetInt64("spec.max_size")
	d, err := time.ParseDuration(v.GetString("timeout"))
	if err != nil {
		return nil, fmt.Errorf("timeout (from %s): invalid duration %q", c.origins["timeout"], v.GetString("timeout"))
	}
	c.Timeout = d
	if err := c.loadDaemon(v); err != nil {
		return nil, err
	}
	switch c.Format {
	case "", "json", "text":
	default:
		return nil, fmt.Errorf("format (from %s): %q is not json or text", c.origins["format"], c.Format)
	}
	if c.MaxOutput <= 0 {
		return nil, fmt.Errorf("max_output (from %s): must be a positive number of bytes", c.origins["max_output"])
	}
	if c.SpecMaxSize <= 0 {
		return nil, fmt.Errorf("spec.max_size (from %s): must be a positive number of bytes", c.origins["spec.max_size"])
	}
	for _, p := range c.AllowTools {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("tools.allow (from %s): bad glob %q: %w", c.origins["tools.allow"], p, err)
		}
	}
	return c, nil
}

// Allows reports whether tools.allow lets tool id change files without
// confirmation. Entries are tool ids or globs ("go.*").
func (c *Config) Allows(id string) bool {
	for _, p := range c.AllowTools {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

// Values returns every setting's effective value, for `config show`.
func (c *Config) Values() map[string]any {
	return map[string]any{
		"workspace":     c.Workspace,
		"languages":     c.Languages,
		"timeout":       c.Timeout.String(),
		"max_output":    c.MaxOutput,
		"format":        c.Format,
		"tools.allow":   c.AllowTools,
		"log.level":     c.LogLevel,
		"mcp.token":     redact(c.MCPToken),
		"spec.max_size": c.SpecMaxSize,
	}
}

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "(set, hidden)"
}

// loadDaemon reads the daemon settings. The environment gives strings, so
// the switch is parsed strictly here rather than by viper, which reads
// "no" as false and "yes" as false too.
func (c *Config) loadDaemon(v *viper.Viper) error {
	switch on := v.Get("daemon.enabled").(type) {
	case bool:
		c.Daemon = on
	case string:
		b, err := strconv.ParseBool(on)
		if err != nil {
			return fmt.Errorf("daemon.enabled (from %s): %q is not a boolean (use 1/0 or true/false)", c.origins["daemon.enabled"], on)
		}
		c.Daemon = b
	default:
		return fmt.Errorf("daemon.enabled (from %s): %v is not a boolean", c.origins["daemon.enabled"], on)
	}
	d, err := time.ParseDuration(v.GetString("daemon.idle_timeout"))
	if err != nil || d <= 0 {
		return fmt.Errorf("daemon.idle_timeout (from %s): %q is not a positive duration", c.origins["daemon.idle_timeout"], v.GetString("daemon.idle_timeout"))
	}
	c.DaemonIdleTimeout = d
	return nil
}

func (k Key) envName() string {
	if k.Env != "" {
		return k.Env
	}
	return EnvName(k.Name)
}

// EnvName is the environment variable of a key: LANGHOST_TOOLS_ALLOW.
func EnvName(key string) string {
	return "LANGHOST_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// readFile reads a config file strictly: unknown keys are errors naming the
// file, line and the closest known key.
func readFile(file string) (map[string]any, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: invalid YAML: %w", file, err)
	}
	if len(root.Content) == 0 {
		return map[string]any{}, nil
	}
	known := make([]string, len(Keys))
	for i, k := range Keys {
		known[i] = k.Name
	}
	if err := checkKeys(file, root.Content[0], "", known); err != nil {
		return nil, err
	}
	var values map[string]any
	if err := root.Content[0].Decode(&values); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return values, nil
}

func checkKeys(file string, n *yaml.Node, prefix string, known []string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d:%d: expected a mapping of settings", file, n.Line, n.Column)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name := k.Value
		if prefix != "" {
			name = prefix + "." + k.Value
		}
		if contains(known, name) {
			continue
		}
		if val.Kind == yaml.MappingNode && hasPrefix(known, name+".") {
			if err := checkKeys(file, val, name, known); err != nil {
				return err
			}
			continue
		}
		msg := fmt.Sprintf("%s:%d:%d: unknown setting %q", file, k.Line, k.Column, name)
		if s := textdist.Closest(name, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return errors.New(msg)
	}
	return nil
}

func lookupNested(m map[string]any, key string) bool {
	head, rest, nested := strings.Cut(key, ".")
	v, ok := m[head]
	if !ok || !nested {
		return ok
	}
	sub, ok := v.(map[string]any)
	return ok && lookupNested(sub, rest)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func hasPrefix(list []string, prefix string) bool {
	for _, v := range list {
		if strings.HasPrefix(v, prefix) {
			return true
		}
	}
	return false
}

// SortedKeys returns the key names in display order.
func SortedKeys() []string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	sort.Strings(names)
	return names
}
