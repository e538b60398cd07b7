package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/config"
)

func TestHelpTopics(t *testing.T) {
	tests := []struct {
		topic string
		want  []string
	}{
		{"exit-codes", []string{
			"EXIT  CODE", "0     -", "1     tool_failed", "4     unsupported_by_server",
			"6     ambiguous_target", "10    diagnostic_regression", "130   canceled",
		}},
		{"environment", []string{"LANGHOST_DAEMON", "LANGHOST_TRUST_WORKSPACE", "LANGHOST_TOOLS_ALLOW",
			"LANGHOST_MCP_TOKEN", "LANGHOST_PROFILE_DIR", "NO_COLOR", "DOTNET_CLI_HOME", "XDG_STATE_HOME"}},
	}
	for _, tt := range tests {
		t.Run(tt.topic, func(t *testing.T) {
			c := newCLI(t)
			c.raw = true
			o := c.run("help", tt.topic)
			if o.code != 0 {
				t.Fatalf("exit %d: %s", o.code, o.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("help %s lacks %q:\n%s", tt.topic, w, o.stdout)
				}
			}
		})
	}
	// Every config key's variable is listed.
	c := newCLI(t)
	c.raw = true
	out := c.run("help", "environment").stdout
	for _, k := range config.Keys {
		name := k.Env
		if name == "" {
			name = config.EnvName(k.Name)
		}
		if !regexp.MustCompile(`(?m)^` + name + ` `).MatchString(out) {
			t.Errorf("help environment lacks %s", name)
		}
	}
}

func TestHelpGroupsCommandsAndHidesInternalOnes(t *testing.T) {
	c := newCLI(t)
	c.raw = true
	o := c.run("--help")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, g := range commandGroups {
		if !strings.Contains(o.stdout, g.title) {
			t.Errorf("--help lacks the group %q:\n%s", g.title, o.stdout)
		}
	}
	for _, hidden := range []string{"serve", "plugin"} {
		if regexp.MustCompile(fmt.Sprintf(`(?m)^  %s\s`, hidden)).MatchString(o.stdout) {
			t.Errorf("--help lists the internal command %s:\n%s", hidden, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "Additional Commands:") {
		t.Errorf("a command is in no group:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "exit-codes") || !strings.Contains(o.stdout, "environment") {
		t.Errorf("--help does not list the help topics:\n%s", o.stdout)
	}
}
