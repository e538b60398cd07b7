//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAgentStatusHostileTranscript: a cloned repository's
// .langhost/runs is its own; `agent status` must not follow a transcript
// (or the runs directory) out of the workspace, nor block on a named pipe
// planted where a transcript would be.
func TestAgentStatusHostileTranscript(t *testing.T) {
	outsideDir := t.TempDir()
	secret := filepath.Join(outsideDir, "run-1.jsonl")
	write(t, secret, `{"seq":1,"type":"run_start","run":"run-1","task":"outside secret"}`+"\n")
	tests := []struct {
		name  string
		plant func(t *testing.T, ws string)
		args  []string
		code  int
	}{
		{"transcript symlinked out", func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".langhost", "runs"))
			symlink(t, secret, filepath.Join(ws, ".langhost", "runs", "run-1.jsonl"))
		}, []string{"run-1"}, 4},
		{"runs directory symlinked out", func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".langhost"))
			symlink(t, outsideDir, filepath.Join(ws, ".langhost", "runs"))
		}, nil, 4},
		{"runs directory symlinked out, run named", func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".langhost"))
			symlink(t, outsideDir, filepath.Join(ws, ".langhost", "runs"))
		}, []string{"run-1"}, 4},
		{"transcript is a named pipe", func(t *testing.T, ws string) {
			mkdir(t, filepath.Join(ws, ".langhost", "runs"))
			if err := syscall.Mkfifo(filepath.Join(ws, ".langhost", "runs", "run-1.jsonl"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"run-1"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			c.ws = t.TempDir()
			tt.plant(t, c.ws)
			o := c.run(append([]string{"agent", "status"}, tt.args...)...)
			if o.code != tt.code || strings.Contains(o.stdout+o.stderr, "outside secret") {
				t.Fatalf("exit %d, want %d\n%s\n%s", o.code, tt.code, o.stdout, o.stderr)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestAgentRunRolesSymlinkedOut: an agent run in a workspace whose
// .langhost/roles leads out of it is refused (exit 4) before any model
// call, trusted or not: the roles there are not the workspace's to give.
func TestAgentRunRolesSymlinkedOut(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		c := newCLI(t)
		c.ws = agentWorkspace(t)
		outside := t.TempDir()
		write(t, filepath.Join(outside, "default.yaml"), "name: default\ndescription: outside\ntools: {sideEffects: [none, workspace, external], exec: true}\n")
		mkdir(t, filepath.Join(c.ws, ".langhost"))
		symlink(t, outside, filepath.Join(c.ws, ".langhost", "roles"))
		if trusted {
			c.env["LANGHOST_TRUST_WORKSPACE"] = "1"
		}
		o := c.run("agent", "run", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "fix it")
		if o.code != 4 || len(o.env.Errors) == 0 || !strings.Contains(o.env.Errors[0].Message, "leads outside the workspace") {
			t.Fatalf("trusted=%v: exit %d\n%s\n%s", trusted, o.code, o.stdout, o.stderr)
		}
		if _, err := os.Stat(filepath.Join(c.ws, ".langhost", "runs")); err == nil {
			t.Errorf("trusted=%v: a run was started", trusted)
		}
	}
}
