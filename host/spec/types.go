package spec

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/langhost/langhost/parsers"
)

// File is one language spec: everything langhost knows about a language.
// It is a superset of the seed schema; the seed's YAML loads verbatim.
type File struct {
	Language     Language         `yaml:"language" json:"language" jsonschema:"identity of the language"`
	Capabilities []string         `yaml:"capabilities,omitempty" json:"capabilities,omitempty" jsonschema:"capability tags used to pick an agent"`
	Priority     int              `yaml:"priority,omitempty" json:"priority,omitempty" jsonschema:"agent priority; higher wins"`
	Agent        *Agent           `yaml:"agent,omitempty" json:"agent,omitempty" jsonschema:"LLM settings of the language's CLI-wrapper agent"`
	Tools        map[string]*Tool `yaml:"tools" json:"tools" jsonschema:"CLI tools keyed by a short name"`
	Prompt       Prompt           `yaml:"prompt,omitempty" json:"prompt,omitempty" jsonschema:"prompt sections for agents"`
	// The seed places these two either inside prompt: or at top level.
	BestPractices   string `yaml:"bestPractices,omitempty" json:"bestPractices,omitempty" jsonschema:"best practices (top-level placement)"`
	SyntaxReminders string `yaml:"syntaxReminders,omitempty" json:"syntaxReminders,omitempty" jsonschema:"syntax reminders (top-level placement)"`
	// Servers describes language servers once, by name (as helix's
	// languages.toml does); semantic.servers picks among them.
	Servers  map[string]*Server `yaml:"servers,omitempty" json:"servers,omitempty" jsonschema:"language servers by name; semantic.servers names the ones this language uses"`
	Semantic *Semantic          `yaml:"semantic,omitempty" json:"semantic,omitempty" jsonschema:"the language server(s) serving semantic operations"`
	// Gate names the tool that checks an edit when no language server
	// does (host/gate): it runs on a copy of the workspace before and
	// after the edit, and new diagnostics reject the edit.
	Gate string `yaml:"gate,omitempty" json:"gate,omitempty" jsonschema:"key or id of the tool that gates file writes when no language server serves the language, e.g. check"`
	// Packet is how diagnostics results are shaped when a call does not
	// say (see diagnostic.Packet*): "" and raw keep the tool's own text.
	Packet string `yaml:"packet,omitempty" json:"packet,omitempty" jsonschema:"default feedback packet of this language's diagnostics results when a call does not ask: raw (default), compact or guided"`

	// Source is the file the spec was loaded from ("embedded:go.yaml" for shipped ones).
	Source string `yaml:"-" json:"-"`
	// ToolOrder lists the keys of Tools in file order.
	ToolOrder []string `yaml:"-" json:"-"`
}

// Language identifies a language.
type Language struct {
	ID           string   `yaml:"id" json:"id" jsonschema:"short id used as tool id prefix, e.g. go"`
	Name         string   `yaml:"name,omitempty" json:"name,omitempty" jsonschema:"display name"`
	Extensions   []string `yaml:"extensions,omitempty" json:"extensions,omitempty" jsonschema:"source file extensions with the dot"`
	ProjectFiles []string `yaml:"projectFiles,omitempty" json:"projectFiles,omitempty" jsonschema:"glob patterns of project files"`
}

// Agent holds the LLM settings of the language's CLI-wrapper agent.
type Agent struct {
	Provider    string  `yaml:"provider,omitempty" json:"provider,omitempty"`
	Model       string  `yaml:"model,omitempty" json:"model,omitempty"`
	Temperature float64 `yaml:"temperature,omitempty" json:"temperature,omitempty"`
	MaxSteps    int     `yaml:"maxSteps,omitempty" json:"maxSteps,omitempty"`
}

// Prompt holds the prompt sections of a language.
type Prompt struct {
	Workflow         string `yaml:"workflow,omitempty" json:"workflow,omitempty"`
	AvailableTools   string `yaml:"availableTools,omitempty" json:"availableTools,omitempty"`
	BestPractices    string `yaml:"bestPractices,omitempty" json:"bestPractices,omitempty"`
	SyntaxReminders  string `yaml:"syntaxReminders,omitempty" json:"syntaxReminders,omitempty"`
	ProjectStructure string `yaml:"projectStructure,omitempty" json:"projectStructure,omitempty"`
}

// Tool is one CLI tool of a language.
type Tool struct {
	ID                   string                  `yaml:"id,omitempty" json:"id,omitempty" jsonschema:"registered id; defaults to <language>.<key>"`
	Name                 string                  `yaml:"name,omitempty" json:"name,omitempty"`
	Command              string                  `yaml:"command" json:"command" jsonschema:"executable, looked up on PATH; never run through a shell"`
	Args                 []string                `yaml:"args,omitempty" json:"args,omitempty"`
	ProjectArg           *int                    `yaml:"projectArg,omitempty" json:"projectArg,omitempty" jsonschema:"insert the project input at this index of args (-1 appends)"`
	PathArg              *int                    `yaml:"pathArg,omitempty" json:"pathArg,omitempty" jsonschema:"insert the path input at this index of args (-1 appends)"`
	ScriptArg            *int                    `yaml:"scriptArg,omitempty" json:"scriptArg,omitempty" jsonschema:"insert the script input at this index of args (-1 appends)"`
	ConfigArg            []string                `yaml:"configArg,omitempty" json:"configArg,omitempty" jsonschema:"flag appended with the configuration input, e.g. [--configuration]"`
	Description          string                  `yaml:"description,omitempty" json:"description,omitempty"`
	Categories           []string                `yaml:"categories,omitempty" json:"categories,omitempty"`
	RequiresConfirmation bool                    `yaml:"requiresConfirmation,omitempty" json:"requiresConfirmation,omitempty" jsonschema:"the tool changes files; it runs only when confirmed"`
	ReadOnly             bool                    `yaml:"readOnly,omitempty" json:"readOnly,omitempty" jsonschema:"the tool changes nothing on disk"`
	Idempotent           bool                    `yaml:"idempotent,omitempty" json:"idempotent,omitempty" jsonschema:"running twice has the same effect as once"`
	OutputParsers        map[string]parsers.Spec `yaml:"outputParsers,omitempty" json:"outputParsers,omitempty"`
	Fallback             *Fallback               `yaml:"fallback,omitempty" json:"fallback,omitempty" jsonschema:"used only when command is not installed"`
	Install              string                  `yaml:"install,omitempty" json:"install,omitempty" jsonschema:"package URL of the tool, e.g. pkg:golang/golang.org/x/tools/gopls@v0.23.0"`
	Version              *VersionProbe           `yaml:"version,omitempty" json:"version,omitempty"`
	SuccessCodes         []int                   `yaml:"successCodes,omitempty" json:"successCodes,omitempty" jsonschema:"exit codes that mean success (default [0])"`
	Timeout              Duration                `yaml:"timeout,omitempty" json:"timeout,omitempty" jsonschema:"per-run timeout, e.g. 5m"`
	Env                  map[string]string       `yaml:"env,omitempty" json:"env,omitempty" jsonschema:"extra environment variables"`
	PassEnv              []string                `yaml:"passEnv,omitempty" json:"passEnv,omitempty" jsonschema:"host environment variables the tool gets although they look secret (API keys, tokens), which tools otherwise never see"`
	Inputs               map[string]*Input       `yaml:"inputs,omitempty" json:"inputs,omitempty" jsonschema:"extra parameters and overrides of project/path/script/configuration"`
	WorkspaceCode        string                  `yaml:"workspaceCode,omitempty" json:"workspaceCode,omitempty" jsonschema:"the code the workspace controls that the tool runs, in one clause (the package's tests, build.rs and proc macros, eslint.config.js), or none; such a tool runs in an untrusted workspace only with the user's consent"`
	EndOfOptions         bool                    `yaml:"endOfOptions,omitempty" json:"endOfOptions,omitempty" jsonschema:"put -- before the positional inputs so that none can be read as an option; every positional input must append (-1), and command and fallback must accept --"`

	// Key is the tool's key in the tools map.
	Key string `yaml:"-" json:"-"`
	// InputOrder lists the keys of Inputs in file order.
	InputOrder []string `yaml:"-" json:"-"`
	// Parsers are the compiled output parsers.
	Parsers map[string]*parsers.Parser `yaml:"-" json:"-"`
}

// GateTool returns the tool named by Gate (by key or id), or nil.
func (f *File) GateTool() *Tool {
	if f.Gate == "" {
		return nil
	}
	if t := f.Tools[f.Gate]; t != nil {
		return t
	}
	for _, t := range f.Tools {
		if t != nil && t.ID == f.Gate {
			return t
		}
	}
	return nil
}

// Fallback is the command run when the primary executable is not installed.
type Fallback struct {
	Command string   `yaml:"command" json:"command"`
	Args    []string `yaml:"args,omitempty" json:"args,omitempty"`
	Install string   `yaml:"install,omitempty" json:"install,omitempty"`
}

// VersionProbe tells how to ask a tool for its version.
type VersionProbe struct {
	Args  []string `yaml:"args" json:"args" jsonschema:"arguments printing the version, e.g. [--version]"`
	Regex string   `yaml:"regex,omitempty" json:"regex,omitempty" jsonschema:"regex whose first group is the version"`
}

// Input is an extra tool parameter, or metadata for a standard one.
type Input struct {
	Type        string `yaml:"type,omitempty" json:"type,omitempty" jsonschema:"string, path, integer, number, boolean or array"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Required    bool   `yaml:"required,omitempty" json:"required,omitempty"`
	Default     any    `yaml:"default,omitempty" json:"default,omitempty"`
	Enum        []any  `yaml:"enum,omitempty" json:"enum,omitempty"`
	Flag        string `yaml:"flag,omitempty" json:"flag,omitempty" jsonschema:"flag put before the value; a flag ending in = is joined to it; booleans add just the flag"`
	Arg         *int   `yaml:"arg,omitempty" json:"arg,omitempty" jsonschema:"insert the value at this index of args (-1 appends)"`
	Items       string `yaml:"items,omitempty" json:"items,omitempty" jsonschema:"type of the elements of an array input: string (default) or path"`
	AllowDash   bool   `yaml:"allowDash,omitempty" json:"allowDash,omitempty" jsonschema:"the value may start with - or @: only for a flag that always takes the next argument as its value, or a positional input after --"`
}

// Server describes one language server: how to start it and how to talk
// to it.
type Server struct {
	Command               string            `yaml:"command" json:"command" jsonschema:"executable, looked up on PATH; never run through a shell"`
	Args                  []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Dialect               string            `yaml:"dialect,omitempty" json:"dialect,omitempty" jsonschema:"standard (default), roslyn or csharp-ls: how the server starts up and says it is ready"`
	RootMarkers           []string          `yaml:"rootMarkers,omitempty" json:"rootMarkers,omitempty" jsonschema:"file names or globs marking the directory the server is rooted at, searched from the workspace upwards"`
	InitializationOptions map[string]any    `yaml:"initializationOptions,omitempty" json:"initializationOptions,omitempty"`
	Settings              map[string]any    `yaml:"settings,omitempty" json:"settings,omitempty" jsonschema:"answers to workspace/configuration"`
	LanguageIDs           map[string]string `yaml:"languageIds,omitempty" json:"languageIds,omitempty" jsonschema:"file extension to LSP languageId"`
	ReadyTimeout          Duration          `yaml:"readyTimeout,omitempty" json:"readyTimeout,omitempty"`
	RequestTimeout        Duration          `yaml:"requestTimeout,omitempty" json:"requestTimeout,omitempty"`
	ReadyQuiet            Duration          `yaml:"readyQuiet,omitempty" json:"readyQuiet,omitempty" jsonschema:"standard dialect: ready once the server has been quiet this long"`
	ReadyMessage          string            `yaml:"readyMessage,omitempty" json:"readyMessage,omitempty" jsonschema:"regex of a window/logMessage that means the server is ready"`
	OpenFileOnStart       bool              `yaml:"openFileOnStart,omitempty" json:"openFileOnStart,omitempty" jsonschema:"standard dialect: open the first source file after initialize and wait for its diagnostics, for servers that know no project until then"`
	DiagnosticsQuiet      Duration          `yaml:"diagnosticsQuiet,omitempty" json:"diagnosticsQuiet,omitempty" jsonschema:"for a server that publishes a file's diagnostics only when they change: after an edit, this much silence means they did not"`
	Install               string            `yaml:"install,omitempty" json:"install,omitempty" jsonschema:"package URL of the server"`
	Version               *VersionProbe     `yaml:"version,omitempty" json:"version,omitempty"`
	WorkspaceCode         string            `yaml:"workspaceCode,omitempty" json:"workspaceCode,omitempty" jsonschema:"the code the workspace controls that the server runs when it starts, in one clause (an MSBuild design-time build of the solution), or none; such a server starts in an untrusted workspace only with the user's consent"`
	SafeMode              *SafeMode         `yaml:"safeMode,omitempty" json:"safeMode,omitempty" jsonschema:"how to start the server so that it runs none of the workspace's code; used in an untrusted workspace, where the server then needs no consent"`

	// Name is the server's key in the servers table; for an inline server,
	// its command.
	Name string `yaml:"-" json:"-"`
}

// SafeMode is how a server runs none of the workspace's code, for an
// untrusted workspace: typescript-language-server with langhost's own
// TypeScript instead of the workspace's node_modules/typescript.
type SafeMode struct {
	// InitializationOptions are merged over the server's own. A string
	// value may hold ${commandDir}: the directory of the server's
	// executable after symlinks, where its own packages are installed.
	InitializationOptions map[string]any `yaml:"initializationOptions,omitempty" json:"initializationOptions,omitempty" jsonschema:"merged over initializationOptions; ${commandDir} is the directory of the server's executable after symlinks"`
	// Paths lists files (with ${commandDir}) that must exist outside the
	// workspace for the safe mode to hold; the server does not start
	// when one is missing.
	Paths []string `yaml:"paths,omitempty" json:"paths,omitempty" jsonschema:"files that must exist outside the workspace for the safe mode to hold (${commandDir} allowed)"`
}

// WorkspaceCodeNone is the value of workspaceCode for a tool or server
// that runs none of the workspace's code.
const WorkspaceCodeNone = "none"

// RunsWorkspaceCode returns the clause naming the workspace code t runs,
// or "" when it runs none (or does not say).
func (t *Tool) RunsWorkspaceCode() string {
	if t.WorkspaceCode == WorkspaceCodeNone {
		return ""
	}
	return t.WorkspaceCode
}

// RunsWorkspaceCode returns the clause naming the workspace code the
// server runs in a workspace whose code may run (trusted), or "".
func (s *Server) RunsWorkspaceCode() string {
	if s.WorkspaceCode == WorkspaceCodeNone {
		return ""
	}
	return s.WorkspaceCode
}

// ServerWorkspaceCode returns the first candidate server that runs code
// the workspace controls when it starts, with its clause, or nil and "".
// In an untrusted workspace a server with a safe mode runs none.
func (s *Semantic) ServerWorkspaceCode(trusted bool) (*Server, string) {
	servers := s.Candidates
	if len(servers) == 0 {
		servers = inlineCandidates(s)
	}
	for _, srv := range servers {
		if srv.SafeMode != nil && !trusted {
			continue
		}
		if code := srv.RunsWorkspaceCode(); code != "" {
			return srv, code
		}
	}
	return nil, ""
}

// dialects lists the values of Server.Dialect: those of the built-in
// engine (semantic.Dialects; a test keeps them equal).
var dialects = []string{"standard", "roslyn", "csharp-ls"}

// Semantic names the language server(s) behind the semantic operations:
// entries of the servers table in order of preference (servers), or one
// server described inline, the form that came before the table.
type Semantic struct {
	Servers []string `yaml:"servers,omitempty" json:"servers,omitempty" jsonschema:"names in the servers table, in order of preference: the first whose command is installed is used"`
	// Server is the inline form: command, args, dialect, ... right in the
	// semantic block. Specs written before the servers table use it.
	Server            `yaml:",inline"`
	Fallback          *Fallback `yaml:"fallback,omitempty" json:"fallback,omitempty" jsonschema:"inline form only: an alternative server used when command is not installed; it shares the other settings"`
	Plugin            string    `yaml:"plugin,omitempty" json:"plugin,omitempty" jsonschema:"external plugin executable; default is langhost's built-in agent"`
	ProjectOperations bool      `yaml:"projectOperations,omitempty" json:"projectOperations,omitempty" jsonschema:"also serve .sln/.csproj structure operations"`

	// Candidates are the servers to try, in order of preference, resolved
	// by Parse: the servers named, or the inline server and its fallback.
	Candidates []*Server `yaml:"-" json:"-"`
}

// Preferred is the server used when it is installed: the first candidate.
func (s *Semantic) Preferred() *Server {
	if len(s.Candidates) > 0 {
		return s.Candidates[0]
	}
	return &s.Server
}

// MarshalJSON encodes the block as the agent plugin receives it
// (pluginapi.OpenRequest.Config): every candidate server in full, in order
// of preference, so that the plugin needs no servers table.
func (s Semantic) MarshalJSON() ([]byte, error) {
	servers := s.Candidates
	if len(servers) == 0 {
		// Not from Parse: the inline form.
		servers = inlineCandidates(&s)
	}
	return json.Marshal(struct {
		Servers           []*Server `json:"servers"`
		Plugin            string    `json:"plugin,omitempty"`
		ProjectOperations bool      `json:"projectOperations,omitempty"`
	}{servers, s.Plugin, s.ProjectOperations})
}

// inlineCandidates are the servers of the inline form: the server, then
// its fallback, which differs only in command, args and install.
func inlineCandidates(s *Semantic) []*Server {
	if s.Command == "" {
		return nil
	}
	first := s.Server
	first.Name = first.Command
	out := []*Server{&first}
	if fb := s.Fallback; fb != nil && fb.Command != "" {
		alt := first
		alt.Name, alt.Command, alt.Args, alt.Install, alt.Version = fb.Command, fb.Command, fb.Args, fb.Install, nil
		out = append(out, &alt)
	}
	return out
}

// Duration is a time.Duration written as a Go duration string ("90s", "5m").
type Duration time.Duration

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (want e.g. 30s, 5m)", b)
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }
