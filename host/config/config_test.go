package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// setup is a user config dir and a workspace for one test.
type setup struct {
	t     *testing.T
	paths Paths
	ws    string
	env   map[string]string
	flags *pflag.FlagSet
}

func newSetup(t *testing.T) *setup {
	t.Helper()
	user := t.TempDir()
	ws := t.TempDir()
	flags := pflag.NewFlagSet("langhost", pflag.ContinueOnError)
	flags.String("workspace", ".", "")
	flags.Bool("trust-workspace", false, "")
	if err := flags.Set("workspace", ws); err != nil {
		t.Fatal(err)
	}
	return &setup{t: t, ws: ws, env: map[string]string{}, flags: flags, paths: Paths{
		User:      filepath.Join(user, "config.yaml"),
		Workspace: ".langhost.yaml",
		Trust:     filepath.Join(user, "trusted.json"),
	}}
}

func (s *setup) write(rel, data string) {
	s.t.Helper()
	p := filepath.Join(s.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *setup) load() (*Config, error) {
	return Load(s.paths, s.flags, func(k string) (string, bool) {
		v, ok := s.env[k]
		return v, ok
	})
}

func (s *setup) mustLoad() *Config {
	s.t.Helper()
	c, err := s.load()
	if err != nil {
		s.t.Fatalf("Load: %v", err)
	}
	return c
}

func (s *setup) trust() {
	s.t.Helper()
	snap, err := TakeSnapshot(s.paths, s.ws)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := (TrustStore{File: s.paths.Trust}).Add(snap, time.Now()); err != nil {
		s.t.Fatal(err)
	}
}

func TestWorkspaceTrust(t *testing.T) {
	const allowAll = "tools:\n  allow: [\"*\"]\n"
	tests := []struct {
		name    string
		prepare func(s *setup)
		trusted bool
		reason  string // in Trust.Reason
	}{
		{"untrusted", func(*setup) {}, false, "workspace not trusted; run `langhost trust`"},
		{"trusted with langhost trust", func(s *setup) { s.trust() }, true, "trusted with `langhost trust`"},
		{"config changed since", func(s *setup) {
			s.trust()
			s.write(".langhost.yaml", allowAll+"format: json\n")
		}, false, "changed since it was trusted"},
		{"config removed since", func(s *setup) {
			s.trust()
			os.Remove(filepath.Join(s.ws, ".langhost.yaml"))
			s.write(".langhost.yaml", "")
		}, false, "changed since"},
		{"spec added since", func(s *setup) {
			s.trust()
			s.write(".langhost/languages/x.yaml", "language: {id: x}\n")
		}, false, "changed since"},
		{"spec changed since", func(s *setup) {
			s.write(".langhost/languages/x.yaml", "language: {id: x}\n")
			s.trust()
			s.write(".langhost/languages/x.yaml", "language: {id: y}\n")
		}, false, "changed since"},
		{"other file changed", func(s *setup) {
			s.trust()
			s.write("main.go", "package main\n")
		}, true, "trusted with"},
		{"other workspace trusted", func(s *setup) {
			other := s.ws
			s.ws = t.TempDir()
			s.write(".langhost.yaml", allowAll)
			s.trust()
			s.ws = other
		}, false, "workspace not trusted"},
		{"env", func(s *setup) { s.env["LANGHOST_TRUST_WORKSPACE"] = "1" }, true, "trusted by env LANGHOST_TRUST_WORKSPACE"},
		{"env false", func(s *setup) { s.env["LANGHOST_TRUST_WORKSPACE"] = "false" }, false, "not trusted"},
		{"flag", func(s *setup) { s.flags.Set("trust-workspace", "true") }, true, "trusted by flag --trust-workspace"},
		{"user config", func(s *setup) {
			os.WriteFile(s.paths.User, []byte("trust_workspace: true\n"), 0o644)
		}, true, "config.yaml"},
		{"workspace trusts itself", func(s *setup) { s.write(".langhost.yaml", "trust_workspace: true\n"+allowAll) }, false, "not trusted"},
		{"through a symlink", func(s *setup) {
			s.trust()
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(s.ws, link); err != nil {
				t.Fatal(err)
			}
			s.flags.Set("workspace", link)
		}, true, "trusted with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			s.write(".langhost.yaml", allowAll)
			tt.prepare(s)
			c := s.mustLoad()
			if c.Trust.Trusted != tt.trusted || !strings.Contains(c.Trust.Reason, tt.reason) {
				t.Fatalf("trust = %+v, want trusted=%v with %q", c.Trust, tt.trusted, tt.reason)
			}
			allowed := c.Allows("go.fmt")
			wantAllowed := tt.trusted && !strings.Contains(tt.name, "removed")
			if allowed != wantAllowed {
				t.Errorf("tools.allow applied = %v, want %v (ignored: %v)", allowed, wantAllowed, c.Ignored)
			}
		})
	}
}

func TestUntrustedWorkspaceSettings(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		file    string
		ignored []string // keys, in file order
		check   func(t *testing.T, c *Config)
	}{
		{
			name:    "allow all",
			file:    "tools:\n  allow: [\"*\"]\n",
			ignored: []string{"tools.allow"},
			check: func(t *testing.T, c *Config) {
				if len(c.AllowTools) != 0 || c.Origin("tools.allow") != "default" {
					t.Errorf("tools.allow = %v from %s", c.AllowTools, c.Origin("tools.allow"))
				}
			},
		},
		{
			name:    "dotted key spelling",
			file:    "tools.allow: [\"*\"]\n",
			ignored: []string{"tools.allow"},
			check: func(t *testing.T, c *Config) {
				if len(c.AllowTools) != 0 {
					t.Errorf("tools.allow = %v", c.AllowTools)
				}
			},
		},
		{
			name:    "user allowlist kept",
			user:    "tools:\n  allow: [go.fmt]\n",
			file:    "tools:\n  allow: [\"*\"]\n",
			ignored: []string{"tools.allow"},
			check: func(t *testing.T, c *Config) {
				if !slices.Equal(c.AllowTools, []string{"go.fmt"}) || c.Allows("go.build") {
					t.Errorf("tools.allow = %v", c.AllowTools)
				}
			},
		},
		{
			name:    "commands, confinement root and token",
			file:    "languages: [/tmp/evil]\nworkspace: /\nmcp:\n  token: known\ndaemon:\n  enabled: true\n",
			ignored: []string{"languages", "workspace", "mcp.token", "daemon.enabled"},
			check: func(t *testing.T, c *Config) {
				if len(c.Languages) != 0 || c.Workspace == "/" || c.MCPToken != "" {
					t.Errorf("languages=%v workspace=%q token=%q", c.Languages, c.Workspace, c.MCPToken)
				}
				if got := c.Ignored[2].Value; got != "(set, hidden)" {
					t.Errorf("ignored token shown as %v", got)
				}
			},
		},
		{
			name: "presentation applies",
			file: "format: json\nlog:\n  level: debug\n",
			check: func(t *testing.T, c *Config) {
				if c.Format != "json" || c.LogLevel != "debug" {
					t.Errorf("format=%q log.level=%q", c.Format, c.LogLevel)
				}
			},
		},
		{
			name:    "limits may be lowered, not raised",
			user:    "timeout: 5m\n",
			file:    "timeout: 1m\nmax_output: 1000\nspec:\n  max_size: 99999999\ndaemon:\n  idle_timeout: 2h\n",
			ignored: []string{"spec.max_size", "daemon.idle_timeout"},
			check: func(t *testing.T, c *Config) {
				if c.Timeout != time.Minute || c.MaxOutput != 1000 || c.SpecMaxSize != 1<<20 || c.DaemonIdleTimeout != 10*time.Minute {
					t.Errorf("timeout=%v max_output=%d spec.max_size=%d idle=%v", c.Timeout, c.MaxOutput, c.SpecMaxSize, c.DaemonIdleTimeout)
				}
			},
		},
		{
			name:    "raising the user's limit",
			user:    "timeout: 5m\n",
			file:    "timeout: 6m\n",
			ignored: []string{"timeout"},
			check: func(t *testing.T, c *Config) {
				if c.Timeout != 5*time.Minute || c.Origin("timeout") == "" {
					t.Errorf("timeout = %v", c.Timeout)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			if tt.user != "" {
				os.WriteFile(s.paths.User, []byte(tt.user), 0o644)
			}
			s.write(".langhost.yaml", tt.file)
			c := s.mustLoad()
			var keys []string
			for _, i := range c.Ignored {
				keys = append(keys, i.Key)
				if i.File != filepath.Join(s.ws, ".langhost.yaml") || i.Line == 0 || i.Grants == "" || !strings.Contains(i.Reason, "langhost trust") {
					t.Errorf("ignored entry lacks file, line, grants or reason: %+v", i)
				}
			}
			if !slices.Equal(keys, tt.ignored) {
				t.Errorf("ignored %v, want %v", keys, tt.ignored)
			}
			if len(c.Warnings()) != len(tt.ignored) {
				t.Errorf("warnings = %q", c.Warnings())
			}
			tt.check(t, c)

			// The same file applies in full once the workspace is trusted.
			s.trust()
			if c := s.mustLoad(); len(c.Ignored) != 0 {
				t.Errorf("trusted workspace: ignored %v", c.Ignored)
			}
		})
	}
}

func TestIgnoredWarningNamesFileLineAndKey(t *testing.T) {
	s := newSetup(t)
	s.write(".langhost.yaml", "format: json\ntools:\n  allow: [\"*\"]\n")
	w := s.mustLoad().Warnings()
	want := filepath.Join(s.ws, ".langhost.yaml") + ":3:3: tools.allow ignored (it lets tools change files without confirmation): workspace not trusted; run `langhost trust`"
	if len(w) != 1 || w[0] != want {
		t.Errorf("warnings = %q\nwant %q", w, want)
	}
}

// hostileConfigCase is a workspace .langhost.yaml an attacker shaped, and
// the error it must cause ("" when it loads but grants nothing).
type hostileConfigCase struct {
	name    string
	prepare func(s *setup)
	errText string
}

func TestHostileWorkspaceConfigFile(t *testing.T) {
	tests := []hostileConfigCase{
		{"merge key", func(s *setup) {
			s.write(".langhost.yaml", "format: &f json\n<<: {tools: {allow: [\"*\"]}}\n")
		}, `unknown setting "<<"`},
		{"nested merge key", func(s *setup) {
			s.write(".langhost.yaml", "tools:\n  <<: {allow: [\"*\"]}\n")
		}, `unknown setting "tools.<<"`},
		{"set twice", func(s *setup) {
			s.write(".langhost.yaml", "tools.allow: [a]\ntools:\n  allow: [b]\n")
		}, "tools.allow is set twice (first at line 1)"},
		{"symlink out of the workspace", func(s *setup) {
			outside := filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(outside, []byte("format: json\n"), 0o644)
			if err := os.Symlink(outside, filepath.Join(s.ws, ".langhost.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "outside the workspace"},
		{"device", func(s *setup) {
			if err := os.Symlink("/dev/zero", filepath.Join(s.ws, ".langhost.yaml")); err != nil {
				t.Fatal(err)
			}
		}, "outside the workspace"},
		{"directory", func(s *setup) { os.Mkdir(filepath.Join(s.ws, ".langhost.yaml"), 0o755) }, "not a regular file"},
		{"huge", func(s *setup) {
			s.write(".langhost.yaml", "format: json\n"+strings.Repeat("#", maxConfigSize))
		}, "larger than"},
		{"alias bomb", func(s *setup) {
			// Each known key holds ten aliases of the one before: 10^12
			// strings if expanded.
			keys := []string{"format", "workspace", "languages", "timeout", "max_output", "mcp:\n  token", "log:\n  level",
				"tools:\n  allow", "daemon:\n  enabled", "daemon:\n  idle_timeout", "spec:\n  max_size", "trust_workspace"}
			var b strings.Builder
			for i, k := range keys {
				item := "x"
				if i > 0 {
					item = fmt.Sprintf("*a%d", i-1)
				}
				fmt.Fprintf(&b, "%s: &a%d [%s]\n", k, i, strings.TrimSuffix(strings.Repeat(item+", ", 10), ", "))
			}
			s.write(".langhost.yaml", b.String())
		}, "excessive aliasing"},
		{"untrusted still loads", func(s *setup) {
			s.write(".langhost.yaml", "tools:\n  allow: &a [\"*\"]\nlanguages: *a\n")
		}, ""},
	}
	tests = append(tests, unixHostileConfigCases(t)...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t)
			tt.prepare(s)
			c, err := s.load()
			if tt.errText == "" {
				// Loads, and grants nothing.
				if err != nil || len(c.AllowTools) != 0 || len(c.Languages) != 0 {
					t.Fatalf("err=%v allow=%v languages=%v", err, c.AllowTools, c.Languages)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("err = %v, want %q", err, tt.errText)
			}
			if !strings.Contains(err.Error(), ".langhost.yaml") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestTrustStore(t *testing.T) {
	s := newSetup(t)
	store := TrustStore{File: s.paths.Trust}
	if list, err := store.List(); err != nil || len(list) != 0 {
		t.Fatalf("missing store: %v %v", list, err)
	}
	s.trust()
	s.trust() // trusting again replaces the entry
	list, err := store.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("list = %v %v", list, err)
	}
	real, _ := filepath.EvalSymlinks(s.ws)
	if ok, err := store.Remove(real); !ok || err != nil {
		t.Fatalf("remove = %v %v", ok, err)
	}
	if ok, _ := store.Remove(real); ok {
		t.Error("removed twice")
	}
	os.WriteFile(s.paths.Trust, []byte("{not json"), 0o600)
	if _, err := s.load(); err == nil || !strings.Contains(err.Error(), s.paths.Trust) {
		t.Errorf("corrupt store: %v", err)
	}
	if _, err := (TrustStore{}).Add(&Snapshot{Root: s.ws}, time.Now()); err == nil {
		t.Error("a store without a file accepted an entry")
	}
}

func TestWorkspaceConfigIsInTheWorkspace(t *testing.T) {
	// The workspace's file is read from the workspace root, not from the
	// current directory, so `mcp --workspace DIR` gets DIR's settings and
	// DIR's trust.
	s := newSetup(t)
	s.write(".langhost.yaml", "format: json\n")
	if c := s.mustLoad(); c.Format != "json" || !slices.Contains(c.Files, filepath.Join(s.ws, ".langhost.yaml")) {
		t.Errorf("format = %q, files %v", c.Format, c.Files)
	}
	s.flags.Set("workspace", filepath.Join(s.ws, "missing"))
	c, err := s.load()
	if err != nil || c.Trust.Trusted || c.Format != "" {
		t.Errorf("missing workspace: %v %+v", err, c)
	}
}

// FuzzWorkspaceConfig feeds arbitrary bytes as an untrusted workspace's
// .langhost.yaml: Load may fail, but must never grant anything.
func FuzzWorkspaceConfig(f *testing.F) {
	for _, seed := range []string{
		"tools:\n  allow: [\"*\"]\n",
		"tools.allow: [\"*\"]\n",
		"<<: {tools: {allow: [x]}}\n",
		"a: &a {allow: [x]}\ntools: *a\n",
		"languages: [/x]\nworkspace: /\nmcp: {token: t}\ntrust_workspace: true\n",
		"timeout: 1h\nmax_output: 99999999999\n",
		"format: json\nlog: {level: debug}\n",
		"tools: {allow: !!binary aGk=}\n",
		"Tools: {Allow: [x]}\n",
	} {
		f.Add([]byte(seed))
	}
	user := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		ws := t.TempDir()
		if err := os.WriteFile(filepath.Join(ws, ".langhost.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths := Paths{Workspace: ".langhost.yaml", Trust: filepath.Join(user, "trusted.json")}
		c, err := Load(paths, nil, func(k string) (string, bool) {
			if k == "LANGHOST_WORKSPACE" {
				return ws, true
			}
			return "", false
		})
		if err != nil {
			return
		}
		if c.Trust.Trusted || len(c.AllowTools) != 0 || len(c.Languages) != 0 || c.MCPToken != "" || c.Workspace != ws || c.TrustAll ||
			c.Timeout > 10*time.Minute || c.MaxOutput > 1<<20 || c.SpecMaxSize > 1<<20 || c.DaemonIdleTimeout > 10*time.Minute {
			t.Fatalf("untrusted workspace config granted something: %+v", c)
		}
	})
}
