package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A write through workspace.write_file is listed, shown, undone, and an
// undo of a file changed since is refused naming it.
func TestUndoAndTransactions(t *testing.T) {
	c := newCLI(t)
	c.ws = t.TempDir()
	notes := filepath.Join(c.ws, "notes.txt")
	write(t, notes, "before\n")

	o := c.run("run", "workspace.write_file", "--yes", "--input", `{"path": "notes.txt", "content": "after\n"}`)
	if o.code != 0 {
		t.Fatalf("write: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	id, _ := o.env.Data.(map[string]any)["transaction_id"].(string)
	if id == "" {
		t.Fatalf("no transaction id in %s", o.stdout)
	}

	o = c.run("transactions", "list")
	list, _ := o.env.Data.([]any)
	if o.code != 0 || len(list) != 1 || list[0].(map[string]any)["id"] != id {
		t.Fatalf("list: exit %d %s", o.code, o.stdout)
	}
	o = c.run("transactions", "show", id)
	if o.code != 0 || o.env.Data.(map[string]any)["tool"] != "workspace.write_file" {
		t.Fatalf("show: exit %d %s", o.code, o.stdout)
	}
	c.json = false
	o = c.run("transactions", "list")
	if o.code != 0 || !strings.Contains(o.stdout, id) || !strings.Contains(o.stdout, "notes.txt") || !strings.Contains(o.stdout, "UNDONE BY") {
		t.Fatalf("list text: exit %d\n%s", o.code, o.stdout)
	}
	c.json = true

	o = c.run("undo")
	if o.code != 0 || o.env.Data.(map[string]any)["undone"] != id {
		t.Fatalf("undo: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	if got, _ := os.ReadFile(notes); string(got) != "before\n" {
		t.Fatalf("undo left %q", got)
	}
	if o := c.run("undo", id); o.code != 4 || !strings.Contains(o.env.Errors[0].Message, "undone already") {
		t.Fatalf("second undo: exit %d %+v", o.code, o.env.Errors)
	}

	// A file changed since the transaction is not overwritten.
	if o := c.run("run", "workspace.write_file", "--yes", "--input", `{"path": "notes.txt", "content": "again\n"}`); o.code != 0 {
		t.Fatalf("write: exit %d %s", o.code, o.stderr)
	}
	write(t, notes, "edited by hand\n")
	o = c.run("undo")
	if o.code != 4 || o.env.Errors[0].Code != "precondition_failed" || !strings.Contains(o.env.Errors[0].Message, "notes.txt") {
		t.Fatalf("undo of a changed file: exit %d %+v", o.code, o.env.Errors)
	}
	if got, _ := os.ReadFile(notes); string(got) != "edited by hand\n" {
		t.Fatalf("a refused undo changed the file: %q", got)
	}

	for _, bad := range []struct {
		args []string
		code int
	}{
		{[]string{"transactions", "show", "../../etc/passwd"}, 2},
		{[]string{"transactions", "show", "20990101T000000000000-deadbeef"}, 3},
		{[]string{"undo", "-x"}, 2},
		{[]string{"undo", "a", "b"}, 2},
	} {
		if o := c.run(bad.args...); o.code != bad.code {
			t.Errorf("%v: exit %d, want %d: %s", bad.args, o.code, bad.code, o.stdout)
		}
	}
}
