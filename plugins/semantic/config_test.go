package semantic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		servers []string // command/dialect of each candidate
		field   string   // of the invalid_input error
	}{
		{"inline", `{"command": "gopls"}`, []string{"gopls/standard"}, ""},
		{"servers", `{"servers": [{"command": "roslyn-language-server", "dialect": "roslyn"}, {"command": "csharp-ls", "dialect": "csharp-ls"}], "projectOperations": true}`,
			[]string{"roslyn-language-server/roslyn", "csharp-ls/csharp-ls"}, ""},
		{"empty", ``, nil, ""},
		{"not an object", `[1]`, nil, ""},
		{"no command", `{"args": ["x"]}`, nil, "semantic.command"},
		{"both", `{"command": "x", "servers": [{"command": "y"}]}`, nil, "semantic.command"},
		{"server without command", `{"servers": [{"command": "y"}, {"dialect": "roslyn"}]}`, nil, "semantic.servers[1].command"},
		{"unknown dialect", `{"servers": [{"command": "y", "dialect": "clangd"}]}`, nil, "semantic.servers[0].dialect"},
		{"nested servers", `{"servers": [{"command": "y", "servers": [{"command": "z"}]}]}`, nil, "semantic.servers[0].servers"},
		{"bad duration", `{"command": "x", "readyTimeout": "-1s"}`, nil, "semantic.readyTimeout"},
		{"bad diagnosticsQuiet", `{"command": "x", "diagnosticsQuiet": "soon"}`, nil, "semantic.diagnosticsQuiet"},
		{"bad regex", `{"servers": [{"command": "x", "readyMessage": "(("}]}`, nil, "semantic.servers[0].readyMessage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig(json.RawMessage(tt.raw))
			if tt.servers == nil {
				wantCode(t, err, failure.InvalidInput, tt.field)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range c.Servers {
				got = append(got, s.Command+"/"+s.Dialect)
			}
			if strings.Join(got, ",") != strings.Join(tt.servers, ",") {
				t.Errorf("servers = %q, want %q", got, tt.servers)
			}
		})
	}
}

// The first candidate installed is the one run, with its own settings.
func TestSelectServer(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"b-ls", "c-ls"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	raw := json.RawMessage(`{"servers": [
		{"command": "a-ls", "dialect": "roslyn"},
		{"command": "b-ls", "dialect": "csharp-ls", "readyTimeout": "5s", "languageIds": {".cs": "csharp"}},
		{"command": "c-ls"}]}`)
	c, err := selectServer(raw, "csharp")
	if err != nil {
		t.Fatal(err)
	}
	if c.Command != "b-ls" || c.Dialect != DialectCSharpLS || c.readyTimeout().String() != "5s" || c.LanguageIDs[".cs"] != "csharp" || len(c.Servers) != 0 {
		t.Errorf("selected %+v, want b-ls with its settings", c)
	}
	if _, ok := newDialect(c).(*csharpLSDialect); !ok {
		t.Errorf("dialect %T, want the csharp-ls dialect", newDialect(c))
	}
	_, err = selectServer(json.RawMessage(`{"servers": [{"command": "a-ls"}, {"command": "z-ls"}]}`), "csharp")
	fe := wantCode(t, err, failure.Precondition, "")
	if !strings.Contains(fe.Message, `none of the language servers "a-ls", "z-ls" (semantic.servers) is installed; `+"`langhost prereqs --check csharp`") {
		t.Errorf("message = %q", fe.Message)
	}
}

// FuzzSemanticConfig feeds arbitrary JSON to ParseConfig, which reads what
// a host (or anyone who can start the plugin) sends: it never panics, and
// what it accepts is a list of servers with a command and a known dialect.
func FuzzSemanticConfig(f *testing.F) {
	for _, s := range []string{
		`{"command": "gopls"}`,
		`{"servers": [{"command": "a", "dialect": "roslyn"}, {"command": "b", "dialect": "csharp-ls", "readyTimeout": "3m"}]}`,
		`{"servers": [{"command": "a", "servers": []}], "command": ""}`,
		`{"command": "x", "readyMessage": "(?i)ready", "readyQuiet": "1ms", "settings": {"a": {"b": [1, null]}}}`,
		`{"servers": null}`, `null`, `"x"`, `{"command": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if failure.CodeOf(err) != failure.InvalidInput {
				t.Fatalf("error %v is not invalid_input", err)
			}
			return
		}
		if len(c.Servers) == 0 {
			t.Fatalf("accepted without a server: %s", data)
		}
		for _, s := range c.Servers {
			if s.Command == "" || len(s.Servers) > 0 {
				t.Fatalf("accepted server %+v from %s", s, data)
			}
			switch s.Dialect {
			case DialectStandard, DialectRoslyn, DialectCSharpLS:
			default:
				t.Fatalf("accepted dialect %q", s.Dialect)
			}
			newDialect(s) // compiles the ready message: must not panic
		}
	})
}
