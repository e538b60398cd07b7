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
