// Package config loads the host configuration (not language specs) with
// viper from, lowest precedence first: built-in defaults, the user config
// file, the workspace's .langhost.yaml, LANGHOST_* environment variables
// and command line flags. It remembers where every value came from.
//
// The workspace is untrusted unless the user trusts it (`langhost trust`,
// trust_workspace): an untrusted workspace's .langhost.yaml may set only
// the keys that grant nothing (see Key.Workspace and Key.Tighten); the
// others are ignored and reported.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/langhost/langhost/internal/safefile"
	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/internal/workspace"
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

	// Workspace says an untrusted workspace's .langhost.yaml may set the
	// key, because it changes only presentation. Tighten says it may lower
	// the key (a limit) to a valid, positive value but not raise or remove
	// it (0 is "no limit" for timeout): the limits protect against the
	// workspace's own tools. Every other key grants something (Grants says
	// what) and is taken from a workspace only when the user trusts it, so
	// a new key is safe by default.
	Workspace bool
	Tighten   bool
	Grants    string
}

// Keys lists every setting.
var Keys = []Key{
	{Name: "workspace", Flag: "workspace", Default: ".", Description: "workspace root; tool paths are confined to it",
		Grants: "moves the root that tool paths are confined to"},
	{Name: "languages", Flag: "languages", Default: []string{}, Description: "extra directories of language specs, searched last",
		Grants: "adds language specs, whose commands langhost runs"},
	{Name: "timeout", Flag: "timeout", Default: "10m", Description: "cap on any tool run", Tighten: true,
		Grants: "raises a limit on the workspace's own tools"},
	{Name: "max_output", Default: 1 << 20, Description: "bytes of stdout and of stderr kept per run", Tighten: true,
		Grants: "raises a limit on the workspace's own tools"},
	{Name: "format", Flag: "format", Default: "", Description: "output format: json or text (default: text on a terminal, else json)", Workspace: true},
	{Name: "tools.allow", Default: []string{}, Description: "tool ids or globs (go.*) allowed to change files without --yes",
		Grants: "lets tools change files without confirmation"},
	{Name: "log.level", Flag: "log-level", Default: "warn", Description: "log level: trace, debug, info, warn, error", Workspace: true},
	{Name: "mcp.token", Default: "", Description: "bearer token required by `langhost mcp --http` (required off loopback)",
		Grants: "sets a token its authors know, letting them call tools when mcp serves off loopback"},
	{Name: "mcp.profile", Default: "", Description: "tools `langhost mcp` serves: readonly, edit, all or a name from mcp.profiles (default: every tool of the detected languages)", Workspace: true},
	{Name: "mcp.profiles", Default: map[string]any{}, Description: "named tool sets for mcp.profile: name -> list of tool id globs or category:NAME",
		Grants: "defines which tools a profile serves"},
	{Name: "mcp.writes", Flag: "writes", Default: "", Description: "who confirms the writes of `langhost mcp`: client (the MCP client's approval; the default on stdio) or allow (only tools in tools.allow or --allow write; the default over --http)",
		Grants: "lets an MCP client's approval confirm writes"},
	{Name: "mcp.prewarm", Flag: "prewarm", Default: true, Description: "`langhost mcp` starts the served languages' language servers at start-up, not on the first call", Workspace: true},
	{Name: "mcp.max_sessions", Default: 64, Description: "open sessions `langhost mcp --http` accepts; one more initialize gets HTTP 503", Tighten: true,
		Grants: "raises a limit on what MCP clients can make the server hold"},
	{Name: "mcp.max_concurrent", Default: max(4, 2*runtime.NumCPU()), Description: "tool calls `langhost mcp` runs at once; more wait for a slot, then fail as busy", Tighten: true,
		Grants: "raises a limit on the processes MCP clients can start at once"},
	{Name: "daemon.enabled", Env: "LANGHOST_DAEMON", Default: true, Description: "serve semantic tools of `langhost run` from a per-workspace background daemon",
		Grants: "decides whether a background process outlives the command"},
	{Name: "daemon.idle_timeout", Default: "10m", Description: "a daemon exits after this long without calls", Tighten: true,
		Grants: "keeps a background process alive longer"},
	{Name: "spec.max_size", Default: 1 << 20, Description: "largest language spec file read, in bytes; larger files are skipped and reported", Tighten: true,
		Grants: "raises a limit on the files langhost reads"},
	{Name: "trust_workspace", Flag: "trust-workspace", Env: "LANGHOST_TRUST_WORKSPACE", Default: false,
		Description: "trust every workspace: apply all of its .langhost.yaml and load its specs (for CI)",
		Grants:      "would let the workspace trust itself"},
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
	// MCPProfile and MCPProfiles select the tools `langhost mcp` serves.
	MCPProfile  string
	MCPProfiles map[string][]string
	// MCPPrewarm makes `langhost mcp` start the served languages' plugins
	// and language servers when it starts.
	MCPPrewarm bool
	// MCPWrites says who confirms the writes of `langhost mcp`: client,
	// allow, or "" for the transport's default.
	MCPWrites string
	// MCPMaxSessions caps the sessions of `langhost mcp --http`, and
	// MCPMaxConcurrent the tool calls `langhost mcp` runs at once.
	MCPMaxSessions   int
	MCPMaxConcurrent int
	// Daemon lets `langhost run` send semantic calls to a per-workspace
	// daemon that keeps language servers warm between calls.
	Daemon            bool
	DaemonIdleTimeout time.Duration
	// SpecMaxSize is the largest spec file read, in bytes.
	SpecMaxSize int64
	// TrustAll is trust_workspace: every workspace is trusted.
	TrustAll bool

	// Trust says whether the workspace may grant permissions: set every
	// key of its .langhost.yaml, and have its specs loaded.
	Trust Trust
	// Ignored lists the workspace settings that were not applied because
	// the workspace is not trusted.
	Ignored []Ignored

	// Files are the config files that were read, lowest precedence first.
	Files   []string
	origins map[string]string
}

// Trust is the trust decision for the workspace.
type Trust struct {
	Trusted bool   `json:"trusted"`
	Root    string `json:"root,omitempty"` // real path of the workspace, if it exists
	// Reason says why, for users: "trusted by flag --trust-workspace",
	// "trusted with `langhost trust` at ...", or what to do to trust it.
	Reason string `json:"reason"`
}

// Ignored is a workspace setting that was not applied.
type Ignored struct {
	Key    string `json:"key"`
	Value  any    `json:"value"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Grants string `json:"grants"` // what the key would grant
	Reason string `json:"reason"` // why the workspace is not trusted
}

func (i Ignored) String() string {
	return fmt.Sprintf("%s:%d:%d: %s ignored (it %s): %s", i.File, i.Line, i.Column, i.Key, i.Grants, i.Reason)
}

// Warnings are what a user should see on every run: the ignored settings.
func (c *Config) Warnings() []string {
	var w []string
	for _, i := range c.Ignored {
		w = append(w, i.String())
	}
	return w
}

// Origin says where the value of key came from: "default", a file path,
// "env LANGHOST_X" or "flag --x".
func (c *Config) Origin(key string) string { return c.origins[key] }

// Paths are where config files are looked for.
type Paths struct {
	User string // e.g. ~/.config/langhost/config.yaml
	// Workspace is the workspace's config file; a relative path is relative
	// to the workspace root (.langhost.yaml).
	Workspace string
	Trust     string // the trust store, e.g. ~/.config/langhost/trusted.json
}

// DefaultPaths returns the standard config file locations.
func DefaultPaths() Paths {
	p := Paths{Workspace: ".langhost.yaml"}
	if dir, err := os.UserConfigDir(); err == nil {
		p.User = filepath.Join(dir, "langhost", "config.yaml")
		p.Trust = filepath.Join(dir, "langhost", "trusted.json")
	}
	return p
}

// WorkspaceFile returns the config file of the workspace at root.
func (p Paths) WorkspaceFile(root string) string {
	if p.Workspace == "" || filepath.IsAbs(p.Workspace) {
		return p.Workspace
	}
	return filepath.Join(root, p.Workspace)
}

// Load builds the effective configuration. flags may be nil.
//
// The workspace, and whether it is trusted, are decided by the trusted
// sources alone: defaults, the user file, environment, flags and the trust
// store. The workspace's .langhost.yaml comes last.
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
	if paths.User != "" {
		data, err := readConfig(paths.User)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			if _, err := c.merge(v, paths.User, data, nil); err != nil {
				return nil, err
			}
		}
	}
	// Environment and flags go into viper's override layers, above every
	// file whatever the merge order, so they apply before the workspace
	// file is even located.
	overrides := map[string]string{}
	for _, k := range Keys {
		name := k.envName()
		if val, ok := env(name); ok {
			if _, isList := k.Default.([]string); isList {
				v.Set(k.Name, splitList(val))
			} else {
				v.Set(k.Name, val)
			}
			overrides[k.Name] = "env " + name
		}
		if flags == nil || k.Flag == "" {
			continue
		}
		if f := flags.Lookup(k.Flag); f != nil && f.Changed {
			if err := v.BindPFlag(k.Name, f); err != nil {
				return nil, err
			}
			overrides[k.Name] = "flag --" + k.Flag
		}
	}
	maps.Copy(c.origins, overrides)
	trustAll, err := toBool(v.Get("trust_workspace"))
	if err != nil {
		return nil, fmt.Errorf("trust_workspace (from %s): %w", c.origins["trust_workspace"], err)
	}
	c.TrustAll = trustAll
	c.Workspace = v.GetString("workspace")
	if c.origins["workspace"] == "default" {
		c.findRoot() // --workspace, the environment or a config file wins
	}
	if err := c.mergeWorkspace(v, paths); err != nil {
		return nil, err
	}
	maps.Copy(c.origins, overrides)

	c.Languages = v.GetStringSlice("languages")
	if c.Trust.Trusted && c.origins["languages"] == paths.WorkspaceFile(c.Trust.Root) {
		// The workspace's own spec directories are relative to it, not to
		// wherever langhost was started: trust covers them there.
		for i, dir := range c.Languages {
			c.Languages[i] = workspaceRelative(c.Trust.Root, dir)
		}
	}
	c.Format = v.GetString("format")
	c.AllowTools = v.GetStringSlice("tools.allow")
	c.LogLevel = v.GetString("log.level")
	c.MCPToken = v.GetString("mcp.token")
	c.MCPProfile = v.GetString("mcp.profile")
	if c.MCPProfiles, err = profiles(v.Get("mcp.profiles")); err != nil {
		return nil, fmt.Errorf("mcp.profiles (from %s): %w", c.origins["mcp.profiles"], err)
	}
	if c.MCPPrewarm, err = toBool(v.Get("mcp.prewarm")); err != nil {
		return nil, fmt.Errorf("mcp.prewarm (from %s): %w", c.origins["mcp.prewarm"], err)
	}
	c.MCPWrites = v.GetString("mcp.writes")
	c.MCPMaxSessions = v.GetInt("mcp.max_sessions")
	c.MCPMaxConcurrent = v.GetInt("mcp.max_concurrent")
	c.MaxOutput = v.GetInt("max_output")
	c.SpecMaxSize = v.GetInt64("spec.max_size")
	d, err := time.ParseDuration(v.GetString("timeout"))
	if err != nil {
		return nil, fmt.Errorf("timeout (from %s): invalid duration %q", c.origins["timeout"], v.GetString("timeout"))
	}
	if d < 0 {
		return nil, fmt.Errorf("timeout (from %s): %s is negative (0 means no limit)", c.origins["timeout"], d)
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
	for _, k := range []struct {
		name string
		n    int
	}{{"mcp.max_sessions", c.MCPMaxSessions}, {"mcp.max_concurrent", c.MCPMaxConcurrent}} {
		if k.n <= 0 {
			return nil, fmt.Errorf("%s (from %s): must be a positive number", k.name, c.origins[k.name])
		}
	}
	for _, p := range c.AllowTools {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("tools.allow (from %s): bad glob %q: %w", c.origins["tools.allow"], p, err)
		}
	}
	return c, nil
}

// mergeWorkspace decides whether the workspace is trusted and merges its
// config file: all of it when trusted, else only what grants nothing.
func (c *Config) mergeWorkspace(v *viper.Viper, paths Paths) error {
	root, err := workspace.New(c.Workspace)
	if err != nil {
		// The host reports a missing workspace; config show still works.
		c.Trust = Trust{Reason: fmt.Sprintf("workspace not trusted: %v", err)}
		return nil
	}
	file, data, err := readWorkspaceConfig(paths, root)
	if err != nil {
		return err
	}
	c.Trust, err = decideTrust(paths.Trust, root.Dir(), file, data, c.TrustAll, c.origins["trust_workspace"])
	if err != nil || file == "" {
		return err
	}
	c.Ignored, err = c.merge(v, file, data, func(k Key, val any) string {
		switch {
		case c.Trust.Trusted || k.Workspace:
			return ""
		case k.Tighten:
			return tightens(k, v.Get(k.Name), val)
		}
		return k.Grants
	})
	return err
}

// merge merges one config file into v and records where values came
// from. refuse, if not nil, says why a key's value may not be taken from
// the file ("" when it may: what taking it would grant); those values are
// dropped and returned.
func (c *Config) merge(v *viper.Viper, file string, data []byte, refuse func(Key, any) string) ([]Ignored, error) {
	values, pos, err := parseConfig(file, data)
	if err != nil {
		return nil, err
	}
	var ignored []Ignored
	for _, k := range Keys {
		val, ok := lookupNested(values, k.Name)
		if !ok {
			continue
		}
		if refuse != nil {
			if grants := refuse(k, val); grants != "" {
				deleteNested(values, k.Name)
				p := pos[k.Name]
				ignored = append(ignored, Ignored{Key: k.Name, Value: redactKey(k.Name, val), File: file,
					Line: p.Line, Column: p.Column, Grants: grants, Reason: c.Trust.Reason})
				continue
			}
		}
		c.origins[k.Name] = file
	}
	if err := v.MergeConfigMap(values); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c.Files = append(c.Files, file)
	sort.Slice(ignored, func(i, j int) bool { return ignored[i].Line < ignored[j].Line })
	return ignored, nil
}

// tightens says why an untrusted workspace may not set the limit k to
// next when the effective value is cur, or "" when next is a valid,
// positive limit no looser than cur. 0 means "no limit" for timeout, so
// zero and negative values are refused for every limit, and so is a value
// that does not parse: the user's limit stays.
func tightens(k Key, cur, next any) string {
	_, isDuration := k.Default.(string)
	n, ok := parseLimit(next, isDuration)
	switch {
	case !ok:
		return "is not a valid limit, so it would replace one"
	case n <= 0:
		return "would remove the limit: 0 or less means none"
	}
	c, ok := parseLimit(cur, isDuration)
	if ok && c > 0 && n > c {
		return k.Grants
	}
	// A user limit of 0 (none) is loosened by nothing.
	return ""
}

// parseLimit reads a limit as a byte count or a duration (in
// nanoseconds). Only integers count as byte counts: YAML gives floats,
// booleans and strings too, which a lenient cast would turn into numbers.
func parseLimit(v any, isDuration bool) (int64, bool) {
	if isDuration {
		if n, ok := v.(int); ok && n == 0 {
			return 0, true // "timeout: 0", which ParseDuration reads too
		}
		d, err := time.ParseDuration(fmt.Sprint(v))
		return int64(d), err == nil
	}
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		if n > math.MaxInt64 {
			return math.MaxInt64, true
		}
		return int64(n), true
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		return i, err == nil
	}
	return 0, false
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
		"workspace":           c.Workspace,
		"languages":           c.Languages,
		"timeout":             c.Timeout.String(),
		"max_output":          c.MaxOutput,
		"format":              c.Format,
		"tools.allow":         c.AllowTools,
		"log.level":           c.LogLevel,
		"mcp.token":           redact(c.MCPToken),
		"mcp.profile":         c.MCPProfile,
		"mcp.profiles":        c.MCPProfiles,
		"mcp.prewarm":         c.MCPPrewarm,
		"mcp.writes":          c.MCPWrites,
		"mcp.max_sessions":    c.MCPMaxSessions,
		"mcp.max_concurrent":  c.MCPMaxConcurrent,
		"daemon.enabled":      c.Daemon,
		"daemon.idle_timeout": c.DaemonIdleTimeout.String(),
		"spec.max_size":       c.SpecMaxSize,
		"trust_workspace":     c.TrustAll,
	}
}

func redact(s string) string {
	if s == "" {
		return ""
	}
	return "(set, hidden)"
}

// redactKey hides secret values (mcp.token) in reports.
func redactKey(key string, v any) any {
	if key == "mcp.token" {
		return redact(fmt.Sprint(v))
	}
	return v
}

// loadDaemon reads the daemon settings.
func (c *Config) loadDaemon(v *viper.Viper) error {
	on, err := toBool(v.Get("daemon.enabled"))
	if err != nil {
		return fmt.Errorf("daemon.enabled (from %s): %w", c.origins["daemon.enabled"], err)
	}
	c.Daemon = on
	d, err := time.ParseDuration(v.GetString("daemon.idle_timeout"))
	if err != nil || d <= 0 {
		return fmt.Errorf("daemon.idle_timeout (from %s): %q is not a positive duration", c.origins["daemon.idle_timeout"], v.GetString("daemon.idle_timeout"))
	}
	c.DaemonIdleTimeout = d
	return nil
}

// profiles reads mcp.profiles: a mapping of profile name to a list of
// tool id globs or category:NAME entries.
func profiles(v any) (map[string][]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("must be a mapping of profile name to a list of tool globs, not %T", v)
	}
	out := make(map[string][]string, len(m))
	for name, val := range m {
		list, ok := val.([]any)
		if !ok {
			return nil, fmt.Errorf("profile %q: must be a list of tool globs or category:NAME", name)
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("profile %q: %v is not a tool glob or category:NAME", name, e)
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("profile %q: bad glob %q: %w", name, s, err)
			}
			out[name] = append(out[name], s)
		}
	}
	return out, nil
}

// toBool parses a switch strictly: the environment gives strings, and
// viper would read "yes" as false.
func toBool(v any) (bool, error) {
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		parsed, err := strconv.ParseBool(b)
		if err != nil {
			return false, fmt.Errorf("%q is not a boolean (use 1/0 or true/false)", b)
		}
		return parsed, nil
	default:
		return false, fmt.Errorf("%v is not a boolean", v)
	}
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

// maxConfigSize caps config files: a workspace's is hostile and may be a
// huge file.
const maxConfigSize = 1 << 20

// readConfig reads a config file, which must be a regular file of at most
// maxConfigSize bytes.
func readConfig(file string) ([]byte, error) {
	return safefile.ReadRegular(file, maxConfigSize)
}

// position is where a key is in a config file.
type position struct{ Line, Column int }

// parseConfig decodes a config file strictly: unknown keys are errors
// naming the file, line and the closest known key. It returns the values,
// nested by key (a dotted key such as "tools.allow:" is nested too, so a
// key is found under one spelling only), and the position of every key.
func parseConfig(file string, data []byte) (map[string]any, map[string]position, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, fmt.Errorf("%s: invalid YAML: %w", file, err)
	}
	values, pos := map[string]any{}, map[string]position{}
	if len(root.Content) == 0 {
		return values, pos, nil
	}
	known := make([]string, len(Keys))
	for i, k := range Keys {
		known[i] = k.Name
	}
	nodes := map[string]*yaml.Node{}
	if err := checkKeys(file, root.Content[0], "", known, nodes, pos); err != nil {
		return nil, nil, err
	}
	for name, n := range nodes {
		var val any
		if err := n.Decode(&val); err != nil {
			return nil, nil, fmt.Errorf("%s:%d:%d: %s: %w", file, n.Line, n.Column, name, err)
		}
		setNested(values, name, val)
	}
	return values, pos, nil
}

// checkKeys collects the value node and position of every setting in the
// mapping n.
func checkKeys(file string, n *yaml.Node, prefix string, known []string, nodes map[string]*yaml.Node, pos map[string]position) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d:%d: expected a mapping of settings", file, n.Line, n.Column)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name := k.Value
		if prefix != "" {
			name = prefix + "." + k.Value
		}
		// Only plain keys: a merge key (<<) or an alias could bring in
		// settings that were never checked here.
		plain := k.Kind == yaml.ScalarNode && k.Tag != "!!merge"
		switch {
		case plain && contains(known, name):
			if p, dup := pos[name]; dup {
				return fmt.Errorf("%s:%d:%d: %s is set twice (first at line %d)", file, k.Line, k.Column, name, p.Line)
			}
			nodes[name] = val
			pos[name] = position{k.Line, k.Column}
			continue
		case plain && val.Kind == yaml.MappingNode && hasPrefix(known, name+"."):
			if err := checkKeys(file, val, name, known, nodes, pos); err != nil {
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

func lookupNested(m map[string]any, key string) (any, bool) {
	head, rest, nested := strings.Cut(key, ".")
	v, ok := m[head]
	if !ok || !nested {
		return v, ok
	}
	sub, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	return lookupNested(sub, rest)
}

func setNested(m map[string]any, key string, v any) {
	head, rest, nested := strings.Cut(key, ".")
	if !nested {
		m[head] = v
		return
	}
	sub, ok := m[head].(map[string]any)
	if !ok {
		sub = map[string]any{}
		m[head] = sub
	}
	setNested(sub, rest, v)
}

func deleteNested(m map[string]any, key string) {
	head, rest, nested := strings.Cut(key, ".")
	if !nested {
		delete(m, head)
		return
	}
	if sub, ok := m[head].(map[string]any); ok {
		deleteNested(sub, rest)
	}
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
