package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchRepo is a cloned repository shipping a bench scenario whose check
// command would run the repository authors' command, and a run config
// file with an external runner's command. Each command leaves a marker
// file when it runs.
func benchRepo(t *testing.T) (repo, marker string) {
	t.Helper()
	repo = t.TempDir()
	marker = filepath.Join(t.TempDir(), "ran")
	for _, dir := range []string{"bench/fixtures/f", "elsewhere/f"} {
		if err := os.MkdirAll(filepath.Join(repo, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(repo, "bench", "fixtures", "f", "go.mod"), "module example.com/f\n\ngo 1.22\n")
	write(t, filepath.Join(repo, "bench", "evil.yaml"), `name: evil
language: go
fixture: fixtures/f
task: nothing
checks:
  - command: [touch, `+marker+`]
`)
	write(t, filepath.Join(repo, "bench", "tools-only.yaml"), `name: tools-only
language: go
fixture: fixtures/f
task: nothing
checks:
  - tool: go.build
`)
	write(t, filepath.Join(repo, "bench", "configs.yaml"), `configs:
  - {name: evil, runner: external, command: [touch, `+marker+`]}
`)
	write(t, filepath.Join(repo, "elsewhere", "evil.yaml"), `name: elsewhere
language: go
fixture: f
task: nothing
checks:
  - command: [touch, `+marker+`]
`)
	return repo, marker
}

// TestBenchRunTrust: bench run runs a scenario's check commands and a run
// config file's commands only from the bench/ directory of a workspace
// the user trusted (and whose trust still holds), or with
// --trust-workspace; otherwise it exits 4 naming the file, the field and
// langhost trust, before anything runs.
func TestBenchRunTrust(t *testing.T) {
	repo, marker := benchRepo(t)
	noop := []string{"--runner", "external", "--command", `["true"]`}
	tests := []struct {
		name    string
		prepare func(c *cli)
		args    []string
		code    int    // 4 refused; otherwise the run happened
		want    string // in the refusal
	}{
		{"untrusted scenario command", nil, append(noop, "bench/evil.yaml"), 4, "checks[0].command runs \"touch"},
		{"untrusted run config command", nil, []string{"--config", "bench/configs.yaml", "bench/tools-only.yaml"}, 4, "configs[0].command"},
		{"trusted, outside bench/", func(c *cli) { c.run("trust", repo) }, append(noop, "elsewhere/evil.yaml"), 4, "covers only bench"},
		{"trusted, then changed", func(c *cli) {
			c.run("trust", repo)
			write(t, filepath.Join(repo, "bench", "evil.yaml"), strings.Replace(readFile(t, filepath.Join(repo, "bench", "evil.yaml")), "task: nothing", "task: changed", 1))
		}, append(noop, "bench/evil.yaml"), 4, "changed since it was trusted"},
		{"trusted", func(c *cli) { c.run("trust", repo) }, append(noop, "bench/evil.yaml"), 0, ""},
		{"trust_workspace", func(c *cli) { c.env["LANGHOST_TRUST_WORKSPACE"] = "1" }, append(noop, "bench/evil.yaml"), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			c := newCLI(t)
			c.ws = repo
			if tt.prepare != nil {
				tt.prepare(c)
			}
			t.Chdir(repo)
			args := append([]string{"bench", "run", "--out", t.TempDir()}, tt.args...)
			o := c.run(args...)
			_, err := os.Stat(marker)
			ran := err == nil
			if tt.code == 4 {
				if o.code != 4 || ran || len(o.env.Errors) == 0 || !strings.Contains(o.env.Errors[0].Message, tt.want) ||
					!strings.Contains(o.env.Errors[0].Message, "langhost trust") {
					t.Fatalf("exit %d, ran %v, want a refusal with %q\n%s\n%s", o.code, ran, tt.want, o.stdout, o.stderr)
				}
				return
			}
			if !ran {
				t.Fatalf("exit %d: the trusted check command did not run\n%s\n%s", o.code, o.stdout, o.stderr)
			}
		})
	}
}

// TestBenchRunToolChecksNeedNoTrust: a scenario whose checks are all
// registered tools runs from an untrusted workspace; nothing of the
// repository's is run by langhost itself.
func TestBenchRunToolChecksNeedNoTrust(t *testing.T) {
	repo, _ := benchRepo(t)
	c := newCLI(t)
	c.ws = repo
	o := c.run("bench", "run", "--out", t.TempDir(), "--runner", "external", "--command", `["true"]`, filepath.Join(repo, "bench", "tools-only.yaml"))
	if o.code == 4 {
		t.Fatalf("refused a scenario without commands:\n%s\n%s", o.stdout, o.stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestBenchRunResultsDirConfined: the default results directory is the
// workspace's .langhost/bench; when that leads out of the workspace
// through a symlink, bench run refuses (exit 4) and writes nothing there.
func TestBenchRunResultsDirConfined(t *testing.T) {
	repo, _ := benchRepo(t)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".langhost"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(repo, ".langhost", "bench")); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	c.ws = repo
	o := c.run("bench", "run", "--runner", "external", "--command", `["true"]`, filepath.Join(repo, "bench", "tools-only.yaml"))
	if o.code != 4 || !strings.Contains(o.env.Errors[0].Message, "outside the workspace") {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("results written outside the workspace: %v", entries)
	}
}
