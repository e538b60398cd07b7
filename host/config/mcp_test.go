package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestMCPProfiles(t *testing.T) {
	s := newSetup(t)
	if err := os.WriteFile(s.paths.User, []byte("mcp:\n  profile: review\n  profiles:\n    review: [\"go.vet\", \"category:testing\", \"*.find_*\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := s.mustLoad()
	if c.MCPProfile != "review" || !slices.Equal(c.MCPProfiles["review"], []string{"go.vet", "category:testing", "*.find_*"}) {
		t.Errorf("profile %q profiles %v", c.MCPProfile, c.MCPProfiles)
	}
	if c.Origin("mcp.profiles") != s.paths.User {
		t.Errorf("origin = %q", c.Origin("mcp.profiles"))
	}
}

func TestMCPProfilesErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"mcp:\n  profiles: [a]\n", "must be a mapping"},
		{"mcp:\n  profiles:\n    x: go.vet\n", `profile "x": must be a list`},
		{"mcp:\n  profiles:\n    x: [\"[\"]\n", `bad glob "["`},
		{"mcp:\n  profiles:\n    x: [3]\n", "is not a tool glob"},
		{"mcp:\n  profil: x\n", `did you mean "mcp.profile"`},
	} {
		s := newSetup(t)
		if err := os.WriteFile(s.paths.User, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := s.load()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// An untrusted workspace may pick a profile (it only narrows what is
// served) but not define one.
func TestMCPProfileFromUntrustedWorkspace(t *testing.T) {
	s := newSetup(t)
	s.write(".langhost.yaml", "mcp:\n  profile: readonly\n  profiles:\n    mine: [\"*\"]\n")
	c := s.mustLoad()
	if c.MCPProfile != "readonly" {
		t.Errorf("profile = %q", c.MCPProfile)
	}
	if len(c.MCPProfiles) != 0 || !slices.ContainsFunc(c.Ignored, func(i Ignored) bool { return i.Key == "mcp.profiles" }) {
		t.Errorf("profiles %v ignored %v", c.MCPProfiles, c.Ignored)
	}
}

// mcp.prewarm grants nothing (the servers would start on the first call
// anyway), so an untrusted workspace may turn it off; a flag beats it.
func TestMCPPrewarm(t *testing.T) {
	tests := []struct {
		name      string
		user, ws  string
		env, flag string
		want      bool
		wantErr   string
	}{
		{name: "default", want: true},
		{name: "user off", user: "mcp:\n  prewarm: false\n", want: false},
		{name: "untrusted workspace off", ws: "mcp:\n  prewarm: false\n", want: false},
		{name: "env off", env: "0", want: false},
		{name: "flag beats workspace", ws: "mcp:\n  prewarm: false\n", flag: "true", want: true},
		{name: "not a boolean", ws: "mcp:\n  prewarm: sometimes\n", wantErr: `mcp.prewarm (from `},
		{name: "bad env", env: "maybe", wantErr: "mcp.prewarm (from env LANGHOST_MCP_PREWARM)"},
		{name: "misspelt", user: "mcp:\n  prewarn: false\n", wantErr: `did you mean "mcp.prewarm"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			s.flags.Bool("prewarm", true, "")
			if tt.user != "" {
				if err := os.WriteFile(s.paths.User, []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.ws != "" {
				s.write(".langhost.yaml", tt.ws)
			}
			if tt.env != "" {
				s.env["LANGHOST_MCP_PREWARM"] = tt.env
			}
			if tt.flag != "" {
				if err := s.flags.Set("prewarm", tt.flag); err != nil {
					t.Fatal(err)
				}
			}
			c, err := s.load()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.MCPPrewarm != tt.want {
				t.Errorf("prewarm = %v, want %v (origin %s)", c.MCPPrewarm, tt.want, c.Origin("mcp.prewarm"))
			}
			if len(c.Ignored) != 0 {
				t.Errorf("ignored %v", c.Ignored)
			}
		})
	}
}
