package txnlog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apply writes a transaction the way the semantic engine does: the new
// content on disk, then the record.
func apply(t *testing.T, root string, files map[string][2]string) *Record {
	t.Helper()
	rec := &Record{Tool: "test", Operation: "edit_file", Trace: []string{"edit"}}
	before := map[string][]byte{}
	for p, ba := range files {
		f := File{Path: p, After: Hash([]byte(ba[1]))}
		if ba[0] != "" {
			f.Before = Hash([]byte(ba[0]))
			before[p] = []byte(ba[0])
		}
		rec.Files = append(rec.Files, f)
		writeFile(t, filepath.Join(root, p), ba[1])
	}
	if err := Save(root, rec, before); err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestSaveListLoadUndo(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "one\n")
	first := apply(t, root, map[string][2]string{"a.go": {"one\n", "two\n"}})
	second := apply(t, root, map[string][2]string{"a.go": {"two\n", "three\n"}, "dir/new.go": {"", "created\n"}})

	recs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != second.ID || recs[1].ID != first.ID {
		t.Fatalf("List = %v, want newest first [%s %s]", recs, second.ID, first.ID)
	}
	if got := readFile(t, filepath.Join(root, Dir, ".gitignore")); got != "*\n" {
		t.Errorf(".gitignore = %q, want every record ignored", got)
	}
	fi, err := os.Stat(filepath.Join(root, Dir, first.ID+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode = %v, %v; want 0600", fi.Mode(), err)
	}

	undo, err := Undo(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "a.go")); got != "two\n" {
		t.Errorf("a.go after undo = %q, want two", got)
	}
	if _, err := os.Stat(filepath.Join(root, "dir/new.go")); !os.IsNotExist(err) {
		t.Errorf("the created file survived the undo: %v", err)
	}
	if rec, err := Load(root, second.ID); err != nil || rec.UndoneBy != undo.ID {
		t.Errorf("Load(%s) = %+v, %v; want undone by %s", second.ID, rec, err, undo.ID)
	}
	// The next undo skips the undo record and the undone one.
	undo2, err := Undo(context.Background(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "a.go")); got != "one\n" {
		t.Errorf("a.go after the second undo = %q, want one", got)
	}
	// The first undo's files changed since (the second undo); undoing
	// the second undo redoes the first transaction.
	if _, err := Undo(context.Background(), root, undo.ID); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("undoing an undo whose files changed since = %v, want precondition_failed", err)
	}
	if _, err := Undo(context.Background(), root, undo2.ID); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "a.go")); got != "two\n" {
		t.Errorf("a.go after the redo = %q, want two", got)
	}
	// A redo is undone by a plain undo again.
	if _, err := Undo(context.Background(), root, ""); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(root, "a.go")); got != "one\n" {
		t.Errorf("a.go after undoing the redo = %q, want one", got)
	}
	if _, err := Undo(context.Background(), root, ""); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("undo with nothing left = %v, want not_found", err)
	}
	_, err = Undo(context.Background(), root, second.ID)
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("undoing an undone transaction: %v, want precondition_failed", err)
	}
}

func TestUndoRefusesChangedFiles(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "one\n")
	writeFile(t, filepath.Join(root, "b.go"), "b1\n")
	rec := apply(t, root, map[string][2]string{"a.go": {"one\n", "two\n"}, "b.go": {"b1\n", "b2\n"}})
	writeFile(t, filepath.Join(root, "b.go"), "edited by hand\n")

	_, err := Undo(context.Background(), root, rec.ID)
	fe, ok := err.(*failure.Error)
	if !ok || fe.Code != failure.Precondition {
		t.Fatalf("Undo = %v, want precondition_failed", err)
	}
	if changed, _ := fe.Details["changed"].([]string); len(changed) != 1 || changed[0] != "b.go" {
		t.Errorf("details.changed = %v, want [b.go]", fe.Details["changed"])
	}
	if got := readFile(t, filepath.Join(root, "a.go")); got != "two\n" {
		t.Errorf("a.go = %q: a refused undo wrote it", got)
	}
}

func TestHostileIDsAndRecords(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	writeFile(t, outside, "keep\n")
	for _, id := range []string{"../../victim", "a/b", ".hidden", "", "x..y/", "-rf", "a\x00b"} {
		if id == "" {
			continue
		}
		if _, err := Load(root, id); failure.CodeOf(err) != failure.InvalidInput {
			t.Errorf("Load(%q) = %v, want invalid_input", id, err)
		}
	}
	if _, err := Load(root, "20260101T000000000000-abcd"); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("Load of a missing id = %v, want not_found", err)
	}
	// A record planted in the repository that points outside it.
	rel, _ := filepath.Rel(root, outside)
	rec := &Record{Tool: "t", Operation: "edit_file", Files: []File{{Path: filepath.ToSlash(rel), Before: Hash([]byte("x")), After: Hash([]byte("keep\n"))}}}
	if err := Save(root, rec, map[string][]byte{rec.Files[0].Path: []byte("x")}); failure.CodeOf(err) != failure.InvalidInput {
		t.Errorf("Save of a path outside = %v, want invalid_input", err)
	}
	planted := `{"id":"evil","tool":"t","operation":"x","trace":[],"files":[{"path":"` + filepath.ToSlash(rel) + `","before":"` + Hash([]byte("x")) + `","after":"` + Hash([]byte("keep\n")) + `"}]}`
	writeFile(t, filepath.Join(root, Dir, "evil.json"), planted)
	writeFile(t, filepath.Join(root, Dir, "evil.before.json"), `{"`+filepath.ToSlash(rel)+`":"eA=="}`)
	if _, err := Undo(context.Background(), root, "evil"); err == nil {
		t.Error("undo of a planted record wrote outside the workspace")
	}
	// A symlinked record directory leading out is refused.
	root2 := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(root2, ".langhost")); err != nil {
		t.Fatal(err)
	}
	if err := Save(root2, &Record{Tool: "t", Operation: "x"}, nil); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("Save through a symlink out = %v, want precondition_failed", err)
	}
	if got := readFile(t, outside); got != "keep\n" {
		t.Errorf("the file outside was changed: %q", got)
	}
}

func TestWriteCreateNeverReplaces(t *testing.T) {
	root := t.TempDir()
	ws := mustWS(t, root)
	writeFile(t, filepath.Join(root, "exists.go"), "mine\n")
	err := Write(ws, []Change{{Path: filepath.Join(root, "exists.go"), Name: "exists.go", New: []byte("theirs\n")}}, nil)
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("creating over an existing file = %v, want precondition_failed", err)
	}
	if got := readFile(t, filepath.Join(root, "exists.go")); got != "mine\n" {
		t.Errorf("exists.go = %q", got)
	}
	// A failed replacement removes the files created with it.
	writeFile(t, filepath.Join(root, "a.go"), "a\n")
	err = Write(ws, []Change{
		{Path: filepath.Join(root, "new.go"), Name: "new.go", New: []byte("new\n")},
		{Path: filepath.Join(root, "a.go"), Name: "a.go", Exists: true, Old: []byte("stale\n"), New: []byte("b\n")},
	}, nil)
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("Write with a stale file = %v, want precondition_failed", err)
	}
	if _, err := os.Stat(filepath.Join(root, "new.go")); !os.IsNotExist(err) {
		t.Errorf("new.go survived a failed Write: %v", err)
	}
}

func mustWS(t *testing.T, root string) *workspace.Root {
	t.Helper()
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
