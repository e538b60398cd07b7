package semantic

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// editLimitsCall is a call on a workspace holding the given files, for
// the checks edit_file makes before any server is asked.
func editLimitsCall(t *testing.T, files map[string]string) *call {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	e := New(nil)
	e.ws, e.root = ws, ws.Dir()
	return &call{e: e, s: &session{e: e, name: "scripted"}}
}

func replaces(n int, old string) []textReplace {
	edits := make([]textReplace, n)
	for i := range edits {
		edits[i] = textReplace{OldText: fmt.Sprintf("%s%d;", old, i), NewText: "y"}
	}
	return edits
}

// TestEditFileLimits: edit_file refuses, as invalid_input naming the
// edits key, more edits than it takes, a file too large to edit by
// replacements and a call whose edits would scan too much; nothing is
// written.
func TestEditFileLimits(t *testing.T) {
	big := strings.Repeat("x", maxEditFileBytes+1)
	mid := strings.Repeat("x = 1;\n", (maxEditWork/maxEdits)/7+1)
	c := editLimitsCall(t, map[string]string{"big.go": big, "mid.go": mid})
	tests := []struct {
		name, want string
		in         editFileInput
	}{
		{"too many edits", "at most 1000", editFileInput{File: "mid.go", Edits: replaces(maxEdits+1, "x")}},
		{"twenty thousand edits", "at most 1000", editFileInput{File: "mid.go", Edits: replaces(20000, "x"), DryRun: true}},
		{"file too large", "give the whole file as content", editFileInput{File: "big.go", Edits: replaces(1, "x"), DryRun: true}},
		{"too much work", "too much work", editFileInput{File: "mid.go", Edits: replaces(maxEdits, "x"), DryRun: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.validate()
			if err == nil {
				_, err = editFile(context.Background(), c, &tt.in)
			}
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != "edits" || !strings.Contains(fe.Message, tt.want) {
				t.Errorf("err = %v, want invalid_input on edits saying %q", err, tt.want)
			}
		})
	}
	for name, want := range map[string]string{"big.go": big, "mid.go": mid} {
		if got, _ := os.ReadFile(filepath.Join(c.e.root, name)); string(got) != want {
			t.Errorf("%s changed", name)
		}
	}
}

// TestApplyEditsStopsWhenCanceled: the edit loop checks its context, so a
// canceled dry run stops instead of running on.
func TestApplyEditsStopsWhenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("a;", 1000)
	_, err := applyEdits(ctx, text, []textReplace{{OldText: "a;", NewText: "b"}}, "f.go")
	if failure.CodeOf(err) != failure.Canceled || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("err = %v, want canceled", err)
	}
}

func TestReplaceOnce(t *testing.T) {
	text := "a\nb\nx\nc\nx\nd\nx\n"
	tests := []struct {
		name, old, want string
		code            failure.Code
		lines           []int
	}{
		{"once", "b\n", "a\nB\nx\nc\nx\nd\nx\n", "", nil},
		{"first line", "a\n", "A\nb\nx\nc\nx\nd\nx\n", "", nil},
		{"missing", "zz", "", failure.AnchorNotResolved, nil},
		{"three times", "x\n", "", failure.Ambiguous, []int{3, 5, 7}},
		{"multi-line", "\nx\n", "", failure.Ambiguous, []int{2, 4, 6}},
	}
	for _, tt := range tests {
		got, err := replaceOnce(text, textReplace{OldText: tt.old, NewText: strings.ToUpper(tt.old)}, 0, "f")
		if failure.CodeOf(err) != tt.code || got != tt.want {
			t.Errorf("%s: %q, %v; want %q, code %q", tt.name, got, err, tt.want, tt.code)
		}
		if tt.lines != nil {
			var fe *failure.Error
			if !errors.As(err, &fe) || fmt.Sprint(fe.Details["lines"]) != fmt.Sprint(tt.lines) {
				t.Errorf("%s: lines %v, want %v", tt.name, fe.Details["lines"], tt.lines)
			}
		}
	}
	// An anchor found everywhere lists a bounded number of lines.
	_, err := replaceOnce(strings.Repeat("x\n", 100000), textReplace{OldText: "x", NewText: "y"}, 0, "f")
	var fe *failure.Error
	if !errors.As(err, &fe) || len(fe.Details["lines"].([]int)) != maxAmbiguousLines || !strings.Contains(fe.Message, "100000 times") {
		t.Errorf("err = %v", err)
	}
}

// BenchmarkApplyEdits: the most edits the work bound lets through on a
// 1 MB file.
func BenchmarkApplyEdits(b *testing.B) {
	const n = maxEditWork / (1 << 20)
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "line %d;\n%s\n", i, strings.Repeat("z", (1<<20)/n-16))
	}
	text := sb.String()
	edits := replaces(n, "line ")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := applyEdits(context.Background(), text, edits, "f"); err != nil {
			b.Fatal(err)
		}
	}
}
