package transcript_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func newWorkspace(t *testing.T) *workspace.Root {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestWriteReadSummarize(t *testing.T) {
	ws := newWorkspace(t)
	const key = "my-secret-key-123456"
	w, err := transcript.Create(ws, "run-1", []string{key, ""})
	if err != nil {
		t.Fatal(err)
	}
	evs := []transcript.Event{
		{Type: transcript.RunStart, Run: "run-1", Agent: "go-coding", Task: "use " + key + " and sk-abcdefghijklmnopqrstuv"},
		{Type: transcript.RoleChange, From: "", To: "coder", Reason: "start"},
		{Type: transcript.ModelCall, Role: "coder", Step: 1, Usage: &model.Usage{InputTokens: 10, OutputTokens: 5}},
		{Type: transcript.ToolCall, Role: "coder", Step: 1, Tool: "go_test"},
		{Type: transcript.Escalation, Role: "reviewer", Step: 2, Tool: "go.fmt"},
	}
	for _, ev := range evs {
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(w.Path())
	if strings.Contains(string(raw), key) || strings.Contains(string(raw), "sk-abc") {
		t.Fatalf("a secret was written:\n%s", raw)
	}
	fi, _ := os.Stat(w.Path())
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("transcript mode %v, want 0600", fi.Mode().Perm())
	}
	// A line still being written is not an error.
	f, _ := os.OpenFile(w.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq": 6, "type": "mess`)
	f.Close()
	got, err := transcript.Read(w.Path())
	if err != nil || len(got) != len(evs) {
		t.Fatalf("read %d events, %v", len(got), err)
	}
	p, err := transcript.Find(ws, "")
	if err != nil || p != w.Path() {
		t.Fatalf("Find = %q, %v", p, err)
	}
	st := transcript.Summarize(p, got)
	if st.State != "running" || st.Role != "reviewer" || st.Step != 2 || st.ToolCalls != 1 || st.Escalations != 1 || st.Tokens.InputTokens != 10 {
		t.Fatalf("status = %+v", st)
	}
}

func TestReadBadLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte("{\"seq\":1}\nnot json\n"), 0o600)
	if _, err := transcript.Read(p); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("err = %v, want line 2 named", err)
	}
}

// TestCreateRefusesEscapes: a workspace whose .langhost/runs leads out of
// it, or a planted file at the transcript's path, gets no transcript.
func TestCreateRefusesEscapes(t *testing.T) {
	ws := newWorkspace(t)
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(ws.Dir(), ".langhost"), 0o700)
	if err := os.Symlink(outside, filepath.Join(ws.Dir(), ".langhost", "runs")); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.Create(ws, "run-1", nil); failure.CodeOf(err) != failure.Precondition && failure.CodeOf(err) != failure.InvalidInput {
		t.Fatalf("err = %v (%s), want a refusal", err, failure.CodeOf(err))
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatal("a transcript was written outside the workspace")
	}

	ws = newWorkspace(t)
	dir := filepath.Join(ws.Dir(), ".langhost", "runs")
	os.MkdirAll(dir, 0o700)
	target := filepath.Join(outside, "planted")
	if err := os.Symlink(target, filepath.Join(dir, "run-2.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, err := transcript.Create(ws, "run-2", nil); err == nil {
		t.Fatal("created a transcript through a planted symlink")
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the planted symlink's target was created")
	}
	for _, id := range []string{"../x", "", "a/b", strings.Repeat("a", 70)} {
		if _, err := transcript.Create(ws, id, nil); failure.CodeOf(err) != failure.InvalidInput {
			t.Errorf("Create(%q) = %v, want invalid_input", id, err)
		}
	}
}

// TestReadTooLarge: a transcript over MaxSize is refused, not cut.
func TestReadTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(transcript.MaxSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := transcript.Read(p); failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want invalid_input: larger than", err)
	}
}

// TestParseCancelled: parsing stops when the context is done.
func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lines := strings.Repeat("{\"seq\":1}\n", 5000)
	if _, err := transcript.Parse(ctx, "x.jsonl", strings.NewReader(lines)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
