package spec

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/semantic"
)

const serversSpec = `language: {id: csharp}
servers:
  roslyn-language-server:
    command: roslyn-language-server
    args: [--stdio]
    dialect: roslyn
    rootMarkers: ["*.sln"]
    languageIds: {".cs": csharp}
    readyTimeout: 3m
  csharp-ls:
    command: csharp-ls
    dialect: csharp-ls
    install: pkg:nuget/csharp-ls
  unused:
    command: other-ls
semantic:
  servers: [roslyn-language-server, csharp-ls]
  projectOperations: true
`

func TestParseServers(t *testing.T) {
	f, err := Parse("csharp.yaml", []byte(serversSpec))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Semantic
	var names []string
	for _, c := range s.Candidates {
		names = append(names, c.Name+"="+c.Command+"/"+c.Dialect)
	}
	if got := strings.Join(names, ","); got != "roslyn-language-server=roslyn-language-server/roslyn,csharp-ls=csharp-ls/csharp-ls" {
		t.Errorf("candidates = %s", got)
	}
	if p := s.Preferred(); p.Command != "roslyn-language-server" || time.Duration(p.ReadyTimeout) != 3*time.Minute || !s.ProjectOperations {
		t.Errorf("preferred = %+v", p)
	}
	if f.Servers["unused"].Name != "unused" || s.Command != "" {
		t.Errorf("servers table = %+v, inline command %q", f.Servers, s.Command)
	}
}

// The form before the servers table still loads: one inline server, and
// its fallback, which shares every setting but command, args and install.
func TestParseInlineServer(t *testing.T) {
	f, err := Parse("csharp.yaml", []byte(`language: {id: csharp}
semantic:
  command: roslyn-language-server
  args: [--stdio]
  dialect: roslyn
  languageIds: {".cs": csharp}
  install: pkg:nuget/roslyn-language-server
  version: {args: [--version]}
  fallback: {command: csharp-ls, args: [--loglevel, info], install: pkg:nuget/csharp-ls}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Semantic.Candidates
	if len(c) != 2 {
		t.Fatalf("candidates = %+v", c)
	}
	if c[0].Name != "roslyn-language-server" || !slices.Equal(c[0].Args, []string{"--stdio"}) || c[0].Version == nil {
		t.Errorf("first = %+v", c[0])
	}
	if c[1].Name != "csharp-ls" || c[1].Command != "csharp-ls" || !slices.Equal(c[1].Args, []string{"--loglevel", "info"}) ||
		c[1].Install != "pkg:nuget/csharp-ls" || c[1].Dialect != "roslyn" || c[1].LanguageIDs[".cs"] != "csharp" || c[1].Version != nil {
		t.Errorf("fallback = %+v", c[1])
	}
}

// What the host sends the agent plugin is what the engine reads: every
// candidate in full, in order.
func TestSemanticPluginConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // command/dialect/readyTimeout of each server
	}{
		{"servers table", serversSpec, []string{"roslyn-language-server/roslyn/3m0s", "csharp-ls/csharp-ls/"}},
		{"inline", "language: {id: go}\nsemantic: {command: gopls, readyTimeout: 1m, rootMarkers: [go.mod]}\n", []string{"gopls/standard/1m0s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("x.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(f.Semantic)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := semantic.ParseConfig(raw)
			if err != nil {
				t.Fatalf("the engine refuses %s: %v", raw, err)
			}
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, s.Command+"/"+s.Dialect+"/"+s.ReadyTimeout)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("engine servers = %q, want %q (from %s)", got, tc.want, raw)
			}
		})
	}
}

// The spec accepts the dialects the built-in engine speaks.
func TestDialectsMatchEngine(t *testing.T) {
	if !slices.Equal(dialects, semantic.Dialects()) {
		t.Errorf("spec dialects %q, engine dialects %q", dialects, semantic.Dialects())
	}
}

func TestParseServersProblems(t *testing.T) {
	const table = "language: {id: cs}\nservers:\n  roslyn-language-server: {command: roslyn-language-server, dialect: roslyn}\n  csharp-ls: {command: csharp-ls}\n"
	tests := []struct {
		name string
		yaml string
		want []string // every problem, in order, as file:line:col: field: message prefixes
	}{
		{"unknown server", table + "semantic:\n  servers: [roslyn-language-server, csharp-lsp]\n",
			[]string{`x.yaml:6:37: semantic.servers[1]: unknown server "csharp-lsp" (did you mean "csharp-ls"?); the servers table has csharp-ls, roslyn-language-server`}},
		{"no servers table", "language: {id: cs}\nsemantic: {servers: [gopls]}\n",
			[]string{`x.yaml:2:22: semantic.servers[0]: unknown server "gopls": the spec has no servers table`}},
		{"listed twice", table + "semantic: {servers: [csharp-ls, csharp-ls]}\n",
			[]string{`x.yaml:5:33: semantic.servers[1]: server "csharp-ls" is listed twice`}},
		{"servers and an inline server", table + "semantic:\n  servers: [csharp-ls]\n  command: csharp-ls\n  dialect: roslyn\n  fallback: {command: x}\n",
			[]string{
				`x.yaml:7:3: semantic.command: command describes an inline server; with semantic.servers, set it in the servers table entry`,
				`x.yaml:8:3: semantic.dialect: dialect describes an inline server`,
				`x.yaml:9:3: semantic.fallback: fallback describes an inline server`,
			}},
		{"server without command", "language: {id: cs}\nservers:\n  csharp-ls: {args: [x]}\nsemantic: {servers: [csharp-ls]}\n",
			[]string{`x.yaml:3:14: servers.csharp-ls.command: missing required field`}},
		{"server command with spaces", "language: {id: cs}\nservers:\n  ls: {command: dotnet csharp-ls}\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:17: servers.ls.command: command "dotnet csharp-ls" contains spaces`}},
		{"unknown dialect", "language: {id: cs}\nservers:\n  ls: {command: csharp-ls, dialect: csharpls}\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:37: servers.ls.dialect: unknown dialect "csharpls" (want standard, roslyn, csharp-ls); did you mean "csharp-ls"?`}},
		{"unknown server field", "language: {id: cs}\nservers:\n  ls: {comand: csharp-ls}\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:8: servers.ls.comand: unknown field "comand" (did you mean "command"?)`, `x.yaml:3:7: servers.ls.command: missing required field`}},
		{"empty server", "language: {id: cs}\nservers:\n  ls:\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:6: servers.ls: empty server definition`}},
		{"server not a mapping", "language: {id: cs}\nservers:\n  ls: csharp-ls\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:7: servers.ls: expected a mapping, found string "csharp-ls"`}},
		{"bad server name", "language: {id: cs}\nservers:\n  \"my server\": {command: x}\nsemantic: {servers: [my server]}\n",
			[]string{`x.yaml:3:3: servers.my server: "my server" is not a valid server name`}},
		{"bad ready message", "language: {id: cs}\nservers:\n  ls: {command: x, readyMessage: '(('}\nsemantic: {servers: [ls]}\n",
			[]string{`x.yaml:3:34: servers.ls.readyMessage: invalid regex`}},
		{"servers not a list", table + "semantic: {servers: csharp-ls}\n",
			[]string{`x.yaml:5:21: semantic.servers: expected a list, found string "csharp-ls"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tt.yaml))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if len(fe.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(fe.Problems), len(tt.want), err)
			}
			for i, p := range fe.Problems {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, p.String(), tt.want[i])
				}
			}
		})
	}
}
