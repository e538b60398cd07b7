package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUntrustedLimitsOnlyTighten: an untrusted workspace may lower a
// limit to a valid, positive value and nothing else. Zero (for timeout:
// no limit), negative, unparsable and looser values are ignored with a
// warning naming file:line:col and the key, and the user's limit stays.
func TestUntrustedLimitsOnlyTighten(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		file    string
		ignored string // key ignored, "" when the value applies
		grants  string // in the warning
		check   func(c *Config) bool
	}{
		{"timeout 0s removes the cap", "", "timeout: 0s\n", "timeout", "remove the limit",
			func(c *Config) bool { return c.Timeout == 10*time.Minute }},
		{"timeout 0", "timeout: 5m\n", "timeout: 0\n", "timeout", "remove the limit",
			func(c *Config) bool { return c.Timeout == 5*time.Minute }},
		{"negative timeout", "", "timeout: -1s\n", "timeout", "remove the limit",
			func(c *Config) bool { return c.Timeout == 10*time.Minute }},
		{"timeout without unit", "", "timeout: 5\n", "timeout", "not a valid limit",
			func(c *Config) bool { return c.Timeout == 10*time.Minute }},
		{"timeout garbage", "", "timeout: forever\n", "timeout", "not a valid limit",
			func(c *Config) bool { return c.Timeout == 10*time.Minute }},
		{"timeout raised", "", "timeout: 1h\n", "timeout", "raises a limit",
			func(c *Config) bool { return c.Timeout == 10*time.Minute }},
		{"timeout lowered", "", "timeout: 30s\n", "", "",
			func(c *Config) bool { return c.Timeout == 30*time.Second }},
		{"timeout under a user's no-limit", "timeout: 0s\n", "timeout: 30s\n", "", "",
			func(c *Config) bool { return c.Timeout == 30*time.Second }},
		{"max_output 0", "", "max_output: 0\n", "max_output", "remove the limit",
			func(c *Config) bool { return c.MaxOutput == 1<<20 }},
		{"max_output negative", "", "max_output: -1\n", "max_output", "remove the limit",
			func(c *Config) bool { return c.MaxOutput == 1<<20 }},
		{"max_output float", "", "max_output: 10.5\n", "max_output", "not a valid limit",
			func(c *Config) bool { return c.MaxOutput == 1<<20 }},
		{"max_output boolean", "", "max_output: true\n", "max_output", "not a valid limit",
			func(c *Config) bool { return c.MaxOutput == 1<<20 }},
		{"max_output huge", "", "max_output: 99999999999999999999\n", "max_output", "not a valid limit",
			func(c *Config) bool { return c.MaxOutput == 1<<20 }},
		{"max_output lowered", "", "max_output: 4096\n", "", "",
			func(c *Config) bool { return c.MaxOutput == 4096 }},
		{"idle timeout 0s", "", "daemon:\n  idle_timeout: 0s\n", "daemon.idle_timeout", "remove the limit",
			func(c *Config) bool { return c.DaemonIdleTimeout == 10*time.Minute }},
		{"spec.max_size negative", "", "spec:\n  max_size: -5\n", "spec.max_size", "remove the limit",
			func(c *Config) bool { return c.SpecMaxSize == 1<<20 }},
		{"spec.max_size as text", "", "spec:\n  max_size: \"0\"\n", "spec.max_size", "remove the limit",
			func(c *Config) bool { return c.SpecMaxSize == 1<<20 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			if tt.user != "" {
				if err := os.WriteFile(s.paths.User, []byte(tt.user), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s.write(".langhost.yaml", tt.file)
			c := s.mustLoad()
			if !tt.check(c) {
				t.Errorf("limit applied: %v", c.Values())
			}
			w := c.Warnings()
			if tt.ignored == "" {
				if len(w) != 0 {
					t.Errorf("warnings = %q", w)
				}
				return
			}
			at := filepath.Join(s.ws, ".langhost.yaml") + ":"
			if len(w) != 1 || !strings.HasPrefix(w[0], at) || !strings.Contains(w[0], " "+tt.ignored+" ignored") ||
				!strings.Contains(w[0], tt.grants) || !strings.Contains(w[0], "langhost trust") {
				t.Errorf("warnings = %q, want one at %s for %s saying %q", w, at, tt.ignored, tt.grants)
			}
			if c.Ignored[0].Line == 0 || c.Ignored[0].Column == 0 {
				t.Errorf("ignored entry without a position: %+v", c.Ignored[0])
			}
		})
	}
}

// TestNegativeTimeoutRefused: a negative timeout from a trusted source
// is an error, not a silent "no limit".
func TestNegativeTimeoutRefused(t *testing.T) {
	s := newSetup(t)
	if err := os.WriteFile(s.paths.User, []byte("timeout: -5s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load(); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("Load = %v, want an error about a negative timeout", err)
	}
}
