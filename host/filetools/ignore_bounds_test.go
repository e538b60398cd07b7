package filetools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/gitignore"
)

// TestListFilesHostileGitignore: a repository with twelve 1 MiB
// .gitignore files is listed with the patterns langhost keeps applied,
// the rest left out and said so in ignore_note, instead of the walk
// compiling gigabytes of patterns.
func TestListFilesHostileGitignore(t *testing.T) {
	files := map[string]string{".gitignore": "*.log\n", "main.go": "package main\n", "x.log": ""}
	for i := range 12 {
		var b strings.Builder
		for j := 0; b.Len() < 1<<20-32; j++ { // under maxIgnoreSize, so read
			fmt.Fprintf(&b, "p%d-%d\n", i, j)
		}
		files[fmt.Sprintf("d%02d/.gitignore", i)] = b.String()
		files[fmt.Sprintf("d%02d/p%d-0", i, i)] = ""
	}
	reg, _ := setup(t, files)
	var out listOutput
	if err := call(t, reg, "workspace.list_files", map[string]any{}, &out); err != nil {
		t.Fatal(err)
	}
	listed := strings.Join(out.Files, " ")
	if !strings.Contains(listed, "main.go") || strings.Contains(listed, "x.log") || strings.Contains(listed, "d00/p0-0") {
		t.Errorf("listed %v: want main.go, not x.log or d00/p0-0 (ignored by kept patterns)", out.Files)
	}
	if !strings.Contains(listed, "d11/p11-0") {
		t.Errorf("listed %v: d11/p11-0 is ignored only by patterns beyond the bound", out.Files)
	}
	if !strings.Contains(out.IgnoreNote, fmt.Sprint(gitignore.MaxPatterns)) {
		t.Errorf("ignore_note = %q", out.IgnoreNote)
	}
	var search searchOutput
	if err := call(t, reg, "workspace.search", map[string]any{"pattern": "package"}, &search); err != nil {
		t.Fatal(err)
	}
	if search.IgnoreNote == "" {
		t.Error("search: no ignore_note")
	}
}
