package txnlog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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

// isolate gives the test its own state directory, so that records go
// neither to the user's nor to another test's.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	return dir
}

func TestSaveListLoadUndo(t *testing.T) {
	isolate(t)
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
	if recs[0].Seq <= recs[1].Seq {
		t.Errorf("sequence numbers %d, %d: want the newest larger", recs[0].Seq, recs[1].Seq)
	}
	// The records are the user's, outside the workspace, owner-only.
	if _, err := os.Lstat(filepath.Join(root, ".langhost")); !os.IsNotExist(err) {
		t.Errorf("recording wrote into the workspace: %v", err)
	}
	dir, err := Location(root)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, first.ID+".json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode = %v, %v; want 0600", fi, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("record directory mode = %v, %v; want 0700", fi, err)
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
	isolate(t)
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
	isolate(t)
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	writeFile(t, outside, "keep\n")
	for _, id := range []string{"../../victim", "a/b", ".hidden", "x..y/", "-rf", "a\x00b"} {
		if _, err := Load(root, id); failure.CodeOf(err) != failure.InvalidInput {
			t.Errorf("Load(%q) = %v, want invalid_input", id, err)
		}
	}
	if _, err := Load(root, "20260101T000000000000-abcd"); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("Load of a missing id = %v, want not_found", err)
	}
	rel, _ := filepath.Rel(root, outside)
	rec := &Record{Tool: "t", Operation: "edit_file", Files: []File{{Path: filepath.ToSlash(rel), Before: Hash([]byte("x")), After: Hash([]byte("keep\n"))}}}
	if err := Save(root, rec, map[string][]byte{rec.Files[0].Path: []byte("x")}); failure.CodeOf(err) != failure.InvalidInput {
		t.Errorf("Save of a path outside = %v, want invalid_input", err)
	}
	// Git metadata is never recorded, so never restored.
	writeFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	rec = &Record{Tool: "t", Operation: "edit_file", Files: []File{{Path: ".git/config", Before: Hash([]byte("x")), After: Hash([]byte("[core]\n"))}}}
	if err := Save(root, rec, map[string][]byte{".git/config": []byte("x")}); failure.CodeOf(err) != failure.Precondition {
		t.Errorf("Save of .git/config = %v, want precondition_failed", err)
	}
	if got := readFile(t, outside); got != "keep\n" {
		t.Errorf("the file outside was changed: %q", got)
	}
}

// The attack of issue 17: the repository ships a record in
// .langhost/transactions, dated in the future so that it is "the last
// one", whose before content undo would write. Such records are never
// read; the commands say they are there.
func TestWorkspaceRecordsAreNeverUndone(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), "package main\n")
	writeFile(t, filepath.Join(root, ".git", "config"), "[core]\n")
	for _, target := range []string{"main.go", ".git/config"} {
		id := "20990101T000000000000-" + map[string]string{"main.go": "aaaa", ".git/config": "bbbb"}[target]
		planted := `{"id":"` + id + `","seq":999999,"time":"2099-01-01T00:00:00Z","tool":"t","operation":"edit_file","trace":[],` +
			`"files":[{"path":"` + target + `","before":"` + Hash([]byte("evil\n")) + `","after":"` + Hash([]byte(readFile(t, filepath.Join(root, target)))) + `"}]}`
		writeFile(t, filepath.Join(root, LegacyDir, id+".json"), planted)
		writeFile(t, filepath.Join(root, LegacyDir, id+".before.json"), `{"`+target+`":"ZXZpbAo="}`)
		if _, err := Undo(context.Background(), root, id); failure.CodeOf(err) != failure.NotFound {
			t.Errorf("Undo(%s) of a planted record = %v, want not_found", id, err)
		}
	}
	_, err := Undo(context.Background(), root, "")
	if failure.CodeOf(err) != failure.NotFound || !strings.Contains(err.Error(), "never undone") {
		t.Errorf("Undo() with only planted records = %v, want not_found saying they are never undone", err)
	}
	if recs, err := List(root); err != nil || len(recs) != 0 {
		t.Errorf("List = %v, %v; want no records", recs, err)
	}
	if n := WorkspaceRecords(root); n != 2 {
		t.Errorf("WorkspaceRecords = %d, want 2", n)
	}
	if got := readFile(t, filepath.Join(root, "main.go")); got != "package main\n" {
		t.Errorf("main.go = %q", got)
	}
	if got := readFile(t, filepath.Join(root, ".git", "config")); got != "[core]\n" {
		t.Errorf(".git/config = %q", got)
	}
}

// A record in the user's own directory that names git metadata (written
// by a langhost without the check, or edited by hand) is not restored,
// and records are ordered by their sequence number, not their time.
func TestUndoRefusesGitMetadataAndOrdersBySeq(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "one\n")
	writeFile(t, filepath.Join(root, "sub", ".git", "config"), "[core]\n")
	apply(t, root, map[string][2]string{"a.go": {"one\n", "two\n"}})
	good := apply(t, root, map[string][2]string{"a.go": {"two\n", "three\n"}})
	dir, err := Location(root)
	if err != nil {
		t.Fatal(err)
	}
	id := "20990101T000000000000-cccc"
	forged := `{"id":"` + id + `","seq":1,"time":"2099-01-01T00:00:00Z","tool":"t","operation":"edit_file","trace":[],` +
		`"files":[{"path":"sub/.git/config","before":"` + Hash([]byte("[core]\n\tfsmonitor = touch /tmp/pwned\n")) + `","after":"` + Hash([]byte("[core]\n")) + `"}]}`
	writeFile(t, filepath.Join(dir, id+".json"), forged)
	writeFile(t, filepath.Join(dir, id+".before.json"), `{"sub/.git/config":"W2NvcmVdCglmc21vbml0b3IgPSB0b3VjaCAvdG1wL3B3bmVkCg=="}`)

	recs, err := List(root)
	if err != nil || len(recs) != 3 || recs[0].ID != good.ID {
		t.Fatalf("List = %v, %v; want %s first (larger seq) despite the other's time", recs, err, good.ID)
	}
	_, err = Undo(context.Background(), root, id)
	if fe, ok := err.(*failure.Error); !ok || fe.Code != failure.Precondition || !strings.Contains(err.Error(), "git metadata") {
		t.Errorf("Undo of a record naming sub/.git/config = %v, want precondition_failed about git metadata", err)
	}
	if got := readFile(t, filepath.Join(root, "sub", ".git", "config")); got != "[core]\n" {
		t.Errorf("sub/.git/config = %q", got)
	}
	if undo, err := Undo(context.Background(), root, ""); err != nil || undo.Undoes != good.ID {
		t.Errorf("Undo() = %+v, %v; want the undo of %s", undo, err, good.ID)
	}
}

// Undo twice: the second names what redo would redo and does not redo
// it; Redo does, and the redo is undone by a plain undo.
func TestUndoTwiceThenRedo(t *testing.T) {
	isolate(t)
	root := t.TempDir()
	a := filepath.Join(root, "a.go")
	writeFile(t, a, "one\n")
	edit := apply(t, root, map[string][2]string{"a.go": {"one\n", "two\n"}})
	ctx := context.Background()
	if _, err := Redo(ctx, root); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("Redo with nothing undone = %v, want not_found", err)
	}
	undo, err := Undo(ctx, root, "")
	if err != nil || undo.Operation != UndoOperation {
		t.Fatalf("Undo = %+v, %v", undo, err)
	}
	_, err = Undo(ctx, root, "")
	fe, ok := err.(*failure.Error)
	if !ok || fe.Code != failure.NotFound || !strings.Contains(fe.Message, "langhost redo") || !strings.Contains(fe.Message, edit.ID) || fe.Details["redo"] != undo.ID {
		t.Fatalf("second Undo = %v, want not_found naming what redo would redo", err)
	}
	if got := readFile(t, a); got != "one\n" {
		t.Fatalf("the second undo changed a.go: %q", got)
	}
	redo, err := Redo(ctx, root)
	if err != nil || redo.Operation != RedoOperation || redo.Undoes != undo.ID {
		t.Fatalf("Redo = %+v, %v", redo, err)
	}
	if got := readFile(t, a); got != "two\n" {
		t.Errorf("a.go after redo = %q, want two", got)
	}
	if _, err := Redo(ctx, root); failure.CodeOf(err) != failure.NotFound {
		t.Errorf("second Redo = %v, want not_found", err)
	}
	if u, err := Undo(ctx, root, ""); err != nil || u.Undoes != redo.ID {
		t.Errorf("Undo after redo = %+v, %v; want the undo of the redo", u, err)
	}
	// A redo whose files changed since is refused, naming them.
	writeFile(t, a, "by hand\n")
	if _, err := Redo(ctx, root); failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "a.go") {
		t.Errorf("Redo over a changed file = %v, want precondition_failed naming a.go", err)
	}
	if got := readFile(t, a); got != "by hand\n" {
		t.Errorf("a refused redo wrote a.go: %q", got)
	}
}

func TestWriteCreateNeverReplaces(t *testing.T) {
	isolate(t)
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
