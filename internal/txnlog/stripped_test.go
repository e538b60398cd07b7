package txnlog

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestUndoFindsRecordsOfAStrippedEnvironment: an MCP client (Codex) starts
// the server with HOME but without XDG_STATE_HOME, so its records go to
// ~/.local/state; the user's shell, with XDG_STATE_HOME set, lists and
// undoes them, in order with its own records, and marks them undone where
// they are.
func TestUndoFindsRecordsOfAStrippedEnvironment(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "one\n")

	// The shell first, then the server with the stripped environment.
	t.Setenv("XDG_STATE_HOME", xdg)
	shell := apply(t, root, map[string][2]string{"a.go": {"one\n", "two\n"}})
	t.Setenv("XDG_STATE_HOME", "")
	server := apply(t, root, map[string][2]string{"a.go": {"two\n", "three\n"}})
	serverDir, err := Location(root)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(serverDir)) != filepath.Join(home, ".local", "state", "langhost") {
		t.Fatalf("a server without XDG_STATE_HOME records in %s", serverDir)
	}

	t.Setenv("XDG_STATE_HOME", xdg)
	recs, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != server.ID || recs[1].ID != shell.ID {
		t.Fatalf("List from the shell = %v, want [%s %s]", recs, server.ID, shell.ID)
	}
	undo, err := Undo(context.Background(), root, "")
	if err != nil {
		t.Fatalf("undo from the shell: %v", err)
	}
	if undo.Undoes != server.ID || readFile(t, filepath.Join(root, "a.go")) != "two\n" {
		t.Fatalf("undo %+v left a.go = %q", undo, readFile(t, filepath.Join(root, "a.go")))
	}
	b, err := os.ReadFile(filepath.Join(serverDir, server.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := parseRecord(server.ID, b); err != nil || rec.UndoneBy != undo.ID {
		t.Errorf("the server's record in its own directory: %+v, %v; want undone by %s", rec, err, undo.ID)
	}
	// The next undo walks on to the shell's own record.
	undo2, err := Undo(context.Background(), root, "")
	if err != nil || undo2.Undoes != shell.ID || readFile(t, filepath.Join(root, "a.go")) != "one\n" {
		t.Fatalf("second undo = %+v, %v; a.go = %q", undo2, err, readFile(t, filepath.Join(root, "a.go")))
	}
	if _, err := Undo(context.Background(), root, ""); err == nil {
		t.Error("a third undo found something to undo")
	}
}
