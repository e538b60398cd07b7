//go:build unix

package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TestReadHostileTranscripts: a transcript is a file in the workspace, so
// a repository may ship one that is a symlink out of it, a named pipe or
// a directory. Find confines it and Read refuses what is not a regular
// file, without blocking.
func TestReadHostileTranscripts(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	if err := os.WriteFile(outside, []byte(`{"seq":1,"type":"run_start","task":"outside secret"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, runs string)
		code  failure.Code
	}{
		{"symlink out of the workspace", func(t *testing.T, runs string) {
			if err := os.Symlink(outside, filepath.Join(runs, "run-1.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, failure.Precondition},
		{"dangling symlink out", func(t *testing.T, runs string) {
			if err := os.Symlink("/nonexistent/run.jsonl", filepath.Join(runs, "run-1.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, failure.Precondition},
		{"named pipe", func(t *testing.T, runs string) {
			if err := syscall.Mkfifo(filepath.Join(runs, "run-1.jsonl"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, failure.InvalidInput},
		{"directory", func(t *testing.T, runs string) {
			if err := os.Mkdir(filepath.Join(runs, "run-1.jsonl"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, failure.InvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t)
			runs := filepath.Join(ws.Dir(), ".langhost", "runs")
			if err := os.MkdirAll(runs, 0o700); err != nil {
				t.Fatal(err)
			}
			tt.plant(t, runs)
			p, err := transcript.Find(ws, "run-1")
			if err == nil {
				var evs []transcript.Event
				evs, err = transcript.ReadContext(context.Background(), p)
				if err == nil {
					t.Fatalf("read %d events from a planted transcript", len(evs))
				}
			}
			if failure.CodeOf(err) != tt.code || strings.Contains(err.Error(), "outside secret") {
				t.Fatalf("err = %v (%s), want %s", err, failure.CodeOf(err), tt.code)
			}
		})
	}
}

// TestFindRefusesRunsDirOutside: .langhost/runs as a symlink to a
// directory outside the workspace is refused, for the newest run too.
func TestFindRefusesRunsDirOutside(t *testing.T) {
	ws := newWorkspace(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "run-9.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws.Dir(), ".langhost"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Dir(), ".langhost", "runs")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "run-9"} {
		if p, err := transcript.Find(ws, id); failure.CodeOf(err) != failure.Precondition {
			t.Errorf("Find(%q) = %q, %v; want precondition_failed", id, p, err)
		}
	}
}
