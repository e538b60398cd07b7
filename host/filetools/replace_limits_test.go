package filetools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/internal/editlimit"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// replaceEdits returns n edits replacing "k<i>;" by "v<i>;".
func replaceEdits(n int) []any {
	edits := make([]any, n)
	for i := range edits {
		edits[i] = map[string]any{"old_text": fmt.Sprintf("k%d;", i), "new_text": fmt.Sprintf("v%d;", i)}
	}
	return edits
}

// keys is a file holding "k<i>;" for i < n, padded to at least size bytes.
func keys(n, size int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d;\n", i)
	}
	if pad := size - b.Len(); pad > 0 {
		b.WriteString(strings.Repeat("#", pad))
	}
	return b.String()
}

// Issue 24: workspace.replace_in_file had no limits; 20,001 edits on a
// 15 MB file, as a dry run, cost 32 s of CPU and 1.29 GB. It now refuses,
// before any edit and as invalid_input on "edits", what edit_file refuses:
// too many edits, a file too large for edits and too much work.
func TestReplaceInFileLimits(t *testing.T) {
	huge := keys(20001, 15<<20)
	mid := keys(editlimit.MaxEdits, editlimit.MaxWork/editlimit.MaxEdits+1)
	tests := []struct {
		name, file, want string
		edits            []any
	}{
		{"the issue's 20,001 edits on 15 MB", "huge.txt", "20001 edits; at most 1000 per call", replaceEdits(20001)},
		{"one edit too many", "mid.txt", "at most 1000 per call", replaceEdits(editlimit.MaxEdits + 1)},
		{"a file too large for edits", "huge.txt", fmt.Sprintf("huge.txt is larger than %d bytes", editlimit.MaxFileBytes), replaceEdits(1)},
		{"too much work", "mid.txt", "too much work", replaceEdits(editlimit.MaxEdits)},
	}
	reg, dir := setup(t, map[string]string{"huge.txt": huge, "mid.txt": mid})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := call(t, reg, "workspace.replace_in_file", map[string]any{"path": tt.file, "edits": tt.edits, "dry_run": true}, nil)
			wantFailure(t, err, failure.InvalidInput, "edits")
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "workspace.write_file") {
				t.Errorf("err = %v, want it to say %q and name workspace.write_file", err, tt.want)
			}
		})
	}
	for name, want := range map[string]string{"huge.txt": huge, "mid.txt": mid} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s changed", name)
		}
	}
	// Within the limits it works.
	if err := call(t, reg, "workspace.replace_in_file", map[string]any{"path": "mid.txt", "edits": replaceEdits(3)}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "mid.txt")); !strings.HasPrefix(string(got), "v0;\nv1;\nv2;\nk3;\n") {
		t.Errorf("mid.txt = %.40q", got)
	}
}

// A canceled replace_in_file stops its edit loop and writes nothing.
func TestReplaceInFileStopsWhenCanceled(t *testing.T) {
	text := keys(editlimit.MaxEdits, 0)
	reg, dir := setup(t, map[string]string{"f.txt": text})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reg.Call(ctx, "workspace.replace_in_file", registry.Call{Input: map[string]any{"path": "f.txt", "edits": replaceEdits(editlimit.MaxEdits)}, Confirmed: true})
	if failure.CodeOf(err) != failure.Canceled || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("err = %v, want canceled", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(got) != text {
		t.Errorf("f.txt changed")
	}
}

// BenchmarkReplaceInFileWorstCase is the most work replace_in_file
// accepts: 1,000 edits (each the last line) on a file of 256 KiB, a dry
// run. Budget: well under a second per call (it was 32 s before the
// limits, for the 20,001 edits on 15 MB).
func BenchmarkReplaceInFileWorstCase(b *testing.B) {
	n := editlimit.MaxEdits
	size := editlimit.MaxWork / n
	var lines strings.Builder
	lines.WriteString(strings.Repeat("#", size-n*8))
	for i := range n {
		fmt.Fprintf(&lines, "\nk%05d;", i)
	}
	edits := make([]any, n)
	for i := range edits {
		edits[i] = map[string]any{"old_text": fmt.Sprintf("k%05d;", n-1-i), "new_text": "v"}
	}
	reg, _ := setup(b, map[string]string{"w.txt": lines.String()})
	b.ResetTimer()
	for b.Loop() {
		if _, err := reg.Call(context.Background(), "workspace.replace_in_file", registry.Call{Input: map[string]any{"path": "w.txt", "edits": edits, "dry_run": true}, Confirmed: true}); err != nil {
			b.Fatal(err)
		}
	}
}
