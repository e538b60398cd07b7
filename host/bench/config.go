package bench

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
)

// Runners.
const (
	RunnerLanghost = "langhost" // langhost's own Language Specialist agent
	RunnerExternal = "external" // an agent CLI given as an argv template
)

// Interfaces through which an agent reaches langhost's tools.
const (
	InterfaceCLI = "cli" // in process, through the registry (the CLI's path)
	InterfaceMCP = "mcp" // through a `langhost mcp` process and the MCP SDK client
)

// Scripted providers replay the scenario's model script on a local
// scripted model server, over the OpenAI or the Anthropic wire format.
const (
	ProviderScripted          = "scripted"
	ProviderScriptedAnthropic = "scripted-anthropic"
)

// RunConfig is one variant to run every scenario with.
type RunConfig struct {
	Name   string `yaml:"name" json:"name"`
	Runner string `yaml:"runner,omitempty" json:"runner"`
	// Command is the external runner's argv template; the placeholders
	// {task}, {workspace}, {scenario}, {model} are replaced inside each
	// element, which stays one argument (no shell).
	Command   []string `yaml:"command,omitempty" json:"command,omitempty"`
	Provider  string   `yaml:"provider,omitempty" json:"provider,omitempty"`
	Model     string   `yaml:"model,omitempty" json:"model,omitempty"`
	BaseURL   string   `yaml:"base_url,omitempty" json:"base_url,omitempty"`
	Interface string   `yaml:"interface,omitempty" json:"interface"`
	// Packet is the feedback packet mode asked of the tools that shape
	// diagnostics (raw, compact, guided); empty leaves the tools' default.
	Packet string `yaml:"packet,omitempty" json:"packet,omitempty"`
	// Timeout bounds an external run; the scenario's time budget wins
	// when it is shorter.
	Timeout Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
}

// ConfigFile is a file of run configs.
type ConfigFile struct {
	Configs []RunConfig `yaml:"configs"`
}

// placeholderRE finds {name} placeholders in an argv template.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[A-Za-z_]+\}`) })

// Placeholders an argv template may use.
var Placeholders = []string{"{task}", "{workspace}", "{scenario}", "{model}"}

// Normalize fills defaults and checks c; errors name the field, prefixed
// by where the config came from.
func (c *RunConfig) Normalize(where string) error {
	bad := func(field, format string, args ...any) error { return invalid(where, field, format, args...) }
	if c.Runner == "" {
		c.Runner = RunnerLanghost
		if len(c.Command) > 0 {
			c.Runner = RunnerExternal
		}
	}
	if c.Interface == "" {
		// An agent CLI reaches langhost as an MCP server; langhost's own
		// agent calls the registry in process unless told otherwise.
		c.Interface = InterfaceCLI
		if c.Runner == RunnerExternal {
			c.Interface = InterfaceMCP
		}
	}
	switch c.Runner {
	case RunnerLanghost:
		if len(c.Command) > 0 {
			return bad("command", "only the %s runner takes a command", RunnerExternal)
		}
		if c.Provider == "" {
			c.Provider = ProviderScripted
		}
		if !slices.Contains(append([]string{ProviderScripted, ProviderScriptedAnthropic}, model.Providers...), c.Provider) {
			return bad("provider", "unknown provider %q; want %s, %s or one of %s", c.Provider,
				ProviderScripted, ProviderScriptedAnthropic, strings.Join(model.Providers, ", "))
		}
	case RunnerExternal:
		if len(c.Command) == 0 || strings.TrimSpace(c.Command[0]) == "" {
			return bad("command", "the external runner needs an argv template, e.g. [codex, exec, \"{task}\"]")
		}
		for i, arg := range c.Command {
			for _, p := range placeholderRE().FindAllString(arg, -1) {
				if !slices.Contains(Placeholders, p) {
					return bad(fmt.Sprintf("command[%d]", i), "unknown placeholder %s; want one of %s", p, strings.Join(Placeholders, ", "))
				}
			}
		}
	default:
		return bad("runner", "unknown runner %q; want %s or %s", c.Runner, RunnerLanghost, RunnerExternal)
	}
	if c.Interface != InterfaceCLI && c.Interface != InterfaceMCP {
		return bad("interface", "unknown interface %q; want %s or %s", c.Interface, InterfaceCLI, InterfaceMCP)
	}
	if c.Packet != "" && !diagnostic.ValidPacket(c.Packet) {
		return bad("packet", "unknown packet mode %q; want raw, compact or guided", c.Packet)
	}
	if c.Name == "" {
		c.Name = c.defaultName()
	}
	if !nameRE().MatchString(c.Name) {
		return bad("name", "%q must be lower-case letters, digits, '.', '-' or '_' (it names result directories)", c.Name)
	}
	return nil
}

func (c *RunConfig) defaultName() string {
	parts := []string{c.Runner}
	if c.Runner == RunnerExternal {
		parts = []string{strings.ToLower(filepathBase(c.Command[0]))}
	} else {
		parts = append(parts, c.Provider)
	}
	parts = append(parts, c.Interface)
	if c.Packet != "" {
		parts = append(parts, c.Packet)
	}
	name := strings.Join(parts, "-")
	return strings.Trim(regexp.MustCompile(`[^a-z0-9._-]+`).ReplaceAllString(name, "-"), "-._")
}

func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// LoadConfigs reads a file of run configs. Names must be unique.
func LoadConfigs(file string) ([]RunConfig, error) {
	var cf ConfigFile
	if err := readStrict(file, file, "run configs", &cf); err != nil {
		return nil, err
	}
	if len(cf.Configs) == 0 {
		return nil, invalid(file, "configs", "no run configs")
	}
	if err := NormalizeConfigs(file, cf.Configs); err != nil {
		return nil, err
	}
	return cf.Configs, nil
}

// NormalizeConfigs normalizes each config and checks names are unique.
func NormalizeConfigs(where string, cs []RunConfig) error {
	seen := map[string]bool{}
	for i := range cs {
		if err := cs[i].Normalize(fmt.Sprintf("%s: configs[%d]", where, i)); err != nil {
			return err
		}
		if seen[cs[i].Name] {
			return invalid(where, fmt.Sprintf("configs[%d].name", i), "%q is used twice", cs[i].Name)
		}
		seen[cs[i].Name] = true
	}
	return nil
}
