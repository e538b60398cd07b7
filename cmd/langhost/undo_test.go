package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/txnlog"
)

// A write through workspace.write_file is listed, shown, undone, and an
// undo of a file changed since is refused naming it.
func TestUndoAndTransactions(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
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
	short := id[strings.IndexByte(id, '-')+1:]
	for _, abbrev := range []string{id, short, short[:4], id[:len(id)-3]} {
		o = c.run("transactions", "show", abbrev)
		if o.code != 0 || o.env.Data.(map[string]any)["tool"] != "workspace.write_file" || o.env.Data.(map[string]any)["id"] != id {
			t.Fatalf("show %s: exit %d %s", abbrev, o.code, o.stdout)
		}
	}
	c.json = false
	o = c.run("transactions", "list")
	// The list shows the ID by its random part, which show and undo take.
	if o.code != 0 || !strings.Contains(o.stdout, short) || strings.Contains(o.stdout, id) || !strings.Contains(o.stdout, "notes.txt") || !strings.Contains(o.stdout, "UNDONE BY") {
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
	// Undo twice: the second writes nothing and says what redo would
	// redo; redo does it, and undo undoes the redo.
	undoID, _ := o.env.Data.(map[string]any)["undo"].(map[string]any)["id"].(string)
	o = c.run("undo")
	if o.code != 3 || o.env.Errors[0].Code != "not_found" || !strings.Contains(o.env.Errors[0].Message, "would redo "+id) ||
		o.env.Errors[0].Details["redo"] != undoID {
		t.Fatalf("undo with every edit undone: exit %d %+v", o.code, o.env.Errors)
	}
	if got, _ := os.ReadFile(notes); string(got) != "before\n" {
		t.Fatalf("the second undo changed the file: %q", got)
	}
	c.json = false
	o = c.run("redo")
	if o.code != 0 || !strings.Contains(o.stdout, "redid the edit undone by "+undoID) {
		t.Fatalf("redo: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	c.json = true
	if got, _ := os.ReadFile(notes); string(got) != "after\n" {
		t.Fatalf("redo left %q", got)
	}
	if o := c.run("redo"); o.code != 3 {
		t.Fatalf("second redo: exit %d %s", o.code, o.stdout)
	}
	if o := c.run("undo"); o.code != 0 {
		t.Fatalf("undo of the redo: exit %d %s", o.code, o.stdout)
	}
	if got, _ := os.ReadFile(notes); string(got) != "before\n" {
		t.Fatalf("undo of the redo left %q", got)
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

// Issue 17: a repository ships a record in .langhost/transactions, dated
// in the future and with a huge sequence number, whose before content
// would go into .git/config and a source file. Neither undo nor list
// reads it; both say it is there.
func TestUndoIgnoresRecordsInTheWorkspace(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c := newCLI(t)
	c.ws = t.TempDir()
	write(t, filepath.Join(c.ws, "main.go"), "package main\n")
	mustOK(t, os.MkdirAll(filepath.Join(c.ws, ".git"), 0o755))
	write(t, filepath.Join(c.ws, ".git", "config"), "[core]\n")
	dir := filepath.Join(c.ws, ".langhost", "transactions")
	mustOK(t, os.MkdirAll(dir, 0o755))
	id := "20990101T000000000000-abcdef01"
	write(t, filepath.Join(dir, id+".json"), `{"id":"`+id+`","seq":9999999,"time":"2099-01-01T00:00:00Z","tool":"workspace.write_file","operation":"write_file","trace":[],"files":[`+
		`{"path":".git/config","before":"`+txnlog.Hash([]byte("[core]\n\tfsmonitor = touch pwned\n"))+`","after":"`+txnlog.Hash([]byte("[core]\n"))+`"},`+
		`{"path":"main.go","before":"`+txnlog.Hash([]byte("package main // pwned\n"))+`","after":"`+txnlog.Hash([]byte("package main\n"))+`"}]}`)
	write(t, filepath.Join(dir, id+".before.json"), `{".git/config":"W2NvcmVdCglmc21vbml0b3IgPSB0b3VjaCBwd25lZAo=","main.go":"cGFja2FnZSBtYWluIC8vIHB3bmVkCg=="}`)

	o := c.run("undo")
	if o.code != 3 || !strings.Contains(o.env.Errors[0].Message, "never undone") {
		t.Errorf("undo: exit %d %+v", o.code, o.env.Errors)
	}
	if o := c.run("undo", id); o.code != 3 {
		t.Errorf("undo %s: exit %d %s", id, o.code, o.stdout)
	}
	o = c.run("transactions", "list")
	if list, _ := o.env.Data.([]any); o.code != 0 || len(list) != 0 || !strings.Contains(o.stderr, "never undone") {
		t.Errorf("list: exit %d %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
	for name, want := range map[string]string{"main.go": "package main\n", ".git/config": "[core]\n"} {
		if got, _ := os.ReadFile(filepath.Join(c.ws, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// Writes into git metadata are refused with precondition_failed (exit 4)
// naming the input key, however the path gets there.
func TestWriteRefusesGitMetadata(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c := newCLI(t)
	c.ws = t.TempDir()
	for _, name := range []string{".git/config", "sub/.git/config"} {
		mustOK(t, os.MkdirAll(filepath.Join(c.ws, filepath.Dir(name)), 0o755))
		write(t, filepath.Join(c.ws, name), "[core]\n")
	}
	mustOK(t, os.Symlink(filepath.Join(".git", "config"), filepath.Join(c.ws, "x")))
	mustOK(t, os.Symlink(".git", filepath.Join(c.ws, "g")))
	for _, p := range []string{"x", "sub/.git/config", "a/.git/HEAD", "g/hooks/pre-commit", ".langhost/transactions/x.json"} {
		o := c.run("run", "workspace.write_file", "--yes", "--input", `{"path": "`+p+`", "content": "[core]\n\tfsmonitor = touch pwned\n"}`)
		if o.code != 4 || len(o.env.Errors) == 0 || o.env.Errors[0].Code != "precondition_failed" || o.env.Errors[0].Field != "path" {
			t.Errorf("write %s: exit %d %s", p, o.code, o.stdout)
			continue
		}
		if msg := o.env.Errors[0].Message; !strings.Contains(msg, "git metadata") && !strings.Contains(msg, ".langhost") {
			t.Errorf("write %s: the error does not say why: %s", p, msg)
		}
	}
	for _, name := range []string{".git/config", "sub/.git/config"} {
		if got, _ := os.ReadFile(filepath.Join(c.ws, name)); string(got) != "[core]\n" {
			t.Errorf("%s = %q", name, got)
		}
	}
	for _, name := range []string{"a", ".git/hooks", ".langhost"} {
		if _, err := os.Lstat(filepath.Join(c.ws, name)); !os.IsNotExist(err) {
			t.Errorf("a refused write created %s: %v", name, err)
		}
	}
}

// Records hold what a model or a language server named: their text
// output never carries a control character to the terminal.
func TestTransactionsPrintNoEscapes(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c := newCLI(t)
	c.ws = t.TempDir()
	name := "\x1b]0;pwned\x07\x1b[2J.txt"
	o := c.run("run", "workspace.write_file", "--yes", "--input", `{"path": "\u001b]0;pwned\u0007\u001b[2J.txt", "content": "x\n"}`)
	if o.code != 0 {
		t.Fatalf("write: exit %d %s %s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(c.ws, name)); err != nil {
		t.Fatal(err)
	}
	id, _ := o.env.Data.(map[string]any)["transaction_id"].(string)
	c.json = false
	for _, args := range [][]string{{"transactions", "list"}, {"transactions", "show", id}, {"undo"}, {"redo"}} {
		o := c.run(args...)
		if o.code != 0 {
			t.Errorf("%v: exit %d %s %s", args, o.code, o.stdout, o.stderr)
		}
		if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") || !strings.Contains(o.stdout, `\x1b]0;pwned\x07`) {
			t.Errorf("%v printed a control character, or not the file's name:\n%q", args, o.stdout)
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
