package filetools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/gate"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// setup makes a workspace with files and a registry holding the tools,
// with the shipped language specs.
func setup(t testing.TB, files map[string]string) (*registry.Registry, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	set, err := spec.LoadLanguages(context.Background(),
		[]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded:languages", NamedByID: true}}, nil, spec.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := Register(reg, Options{Workspace: ws, Specs: set}); err != nil {
		t.Fatal(err)
	}
	return reg, ws.Dir()
}

// call runs a tool confirmed and decodes its data into out.
func call(t *testing.T, reg *registry.Registry, id string, input map[string]any, out any) error {
	t.Helper()
	res, err := reg.Call(context.Background(), id, registry.Call{WorkspaceCode: true, Input: input, Confirmed: true})
	if err != nil {
		return err
	}
	if out != nil {
		if err := json.Unmarshal(res.Data, out); err != nil {
			t.Fatalf("%s: result %s: %v", id, res.Data, err)
		}
	}
	return nil
}

// wantFailure checks the class and input key of err.
func wantFailure(t *testing.T, err error, code failure.Code, field string) {
	t.Helper()
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Code != code || field != "" && fe.Field != field {
		t.Fatalf("err = %v (%#v), want %s on %q", err, fe, code, field)
	}
}

func TestReadFile(t *testing.T) {
	reg, dir := setup(t, map[string]string{
		"a.txt":   "one\ntwo\r\nthree\n",
		"bin.dat": "PK\x00\x03binary",
		"latin1":  "caf\xe9\n",
		"long":    strings.Repeat("x", 5000) + "\n",
		"many":    strings.Repeat("line\n", 2500),
	})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o600)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out-link"))
	os.Symlink("a.txt", filepath.Join(dir, "in-link"))
	huge, _ := os.Create(filepath.Join(dir, "huge.log"))
	huge.Truncate(maxReadSize + 1) // sparse: costs no disk
	huge.Close()

	tests := []struct {
		name    string
		input   map[string]any
		content string // substring
		check   func(t *testing.T, out readOutput)
		code    failure.Code
		field   string
	}{
		{name: "whole file with numbers", input: map[string]any{"path": "a.txt"}, content: "     1\tone\n     2\ttwo\n     3\tthree\n",
			check: func(t *testing.T, o readOutput) {
				if o.TotalLines != 3 || o.StartLine != 1 || o.EndLine != 3 || o.Truncated {
					t.Errorf("%+v", o)
				}
			}},
		{name: "range", input: map[string]any{"path": "a.txt", "start_line": 2, "end_line": 2}, content: "     2\ttwo\n"},
		{name: "end past the end", input: map[string]any{"path": "a.txt", "start_line": 3, "end_line": 99}, content: "     3\tthree\n"},
		{name: "start past the end", input: map[string]any{"path": "a.txt", "start_line": 4}, code: failure.InvalidInput, field: "start_line"},
		{name: "empty range", input: map[string]any{"path": "a.txt", "start_line": 3, "end_line": 2}, code: failure.InvalidInput, field: "end_line"},
		{name: "binary", input: map[string]any{"path": "bin.dat"}, check: func(t *testing.T, o readOutput) {
			if !o.Binary || o.Content != "" || o.Size != 10 {
				t.Errorf("%+v", o)
			}
		}},
		{name: "invalid utf-8 is binary", input: map[string]any{"path": "latin1"}, check: func(t *testing.T, o readOutput) {
			if !o.Binary {
				t.Errorf("%+v", o)
			}
		}},
		{name: "long line cut", input: map[string]any{"path": "long"}, check: func(t *testing.T, o readOutput) {
			if len(o.Content) > maxLineLen+100 || !strings.Contains(o.Content, "line cut") {
				t.Errorf("content of %d bytes", len(o.Content))
			}
		}},
		{name: "many lines paged", input: map[string]any{"path": "many"}, check: func(t *testing.T, o readOutput) {
			if !o.Truncated || o.EndLine != maxReadLines || o.NextStartLine != maxReadLines+1 || o.TotalLines != 2500 {
				t.Errorf("truncated=%v end=%d next=%d total=%d", o.Truncated, o.EndLine, o.NextStartLine, o.TotalLines)
			}
		}},
		{name: "symlink inside", input: map[string]any{"path": "in-link"}, content: "one"},
		{name: "symlink out", input: map[string]any{"path": "out-link"}, code: failure.Precondition, field: "path"},
		{name: "dot dot", input: map[string]any{"path": "../" + filepath.Base(outside) + "/secret"}, code: failure.InvalidInput, field: "path"},
		{name: "dot dot inside is fine", input: map[string]any{"path": "x/../a.txt"}, content: "one"},
		{name: "absolute", input: map[string]any{"path": filepath.Join(dir, "a.txt")}, code: failure.InvalidInput, field: "path"},
		{name: "missing", input: map[string]any{"path": "nope.txt"}, code: failure.NotFound, field: "path"},
		{name: "directory", input: map[string]any{"path": "."}, code: failure.Precondition, field: "path"},
		{name: "huge", input: map[string]any{"path": "huge.log"}, code: failure.Precondition, field: "path"},
		{name: "nul byte", input: map[string]any{"path": "a\x00.txt"}, code: failure.InvalidInput, field: "path"},
		{name: "unknown input", input: map[string]any{"path": "a.txt", "lines": 3}, code: failure.InvalidInput, field: "lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out readOutput
			err := call(t, reg, "workspace.read_file", tt.input, &out)
			if tt.code != "" {
				wantFailure(t, err, tt.code, tt.field)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Content, tt.content) {
				t.Errorf("content = %q, want it to contain %q", out.Content, tt.content)
			}
			if tt.check != nil {
				tt.check(t, out)
			}
		})
	}
}

func TestListFiles(t *testing.T) {
	reg, dir := setup(t, map[string]string{
		".gitignore":          "*.log\n/build/\n!keep.log\n",
		"main.go":             "package main\n",
		"app.log":             "x",
		"keep.log":            "x",
		"build/out.o":         "x",
		"src/build/gen.go":    "package build\n", // /build/ is anchored: this one stays
		"src/.gitignore":      "secret.go\n",
		"src/secret.go":       "package src\n",
		"src/a.go":            "package src\n",
		"src/x.log":           "ignored by the root .gitignore, also when listing src",
		"src/deep/b.ts":       "x",
		".git/config":         "x",
		".git/info/exclude":   "*.tmp\n",
		"scratch.tmp":         "ignored by .git/info/exclude",
		".langhost/x.json":    "x",
		"node_modules/m/i.js": "x",
	})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.go"), []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "linked")) // never followed
	tests := []struct {
		name  string
		input map[string]any
		want  string // files joined by " "
		trunc bool
	}{
		{"all", map[string]any{}, ".gitignore keep.log main.go node_modules/m/i.js src/.gitignore src/a.go src/build/gen.go src/deep/b.ts", false},
		{"info exclude", map[string]any{"glob": "*.tmp", "include_ignored": true}, "scratch.tmp", false},
		{"glob by name", map[string]any{"glob": "*.go"}, "main.go src/a.go src/build/gen.go", false},
		{"glob by path", map[string]any{"glob": "src/**/*.ts"}, "src/deep/b.ts", false},
		{"directory", map[string]any{"path": "src"}, "src/.gitignore src/a.go src/build/gen.go src/deep/b.ts", false},
		{"include ignored", map[string]any{"path": "src", "include_ignored": true}, "src/.gitignore src/a.go src/build/gen.go src/deep/b.ts src/secret.go src/x.log", false},
		{"max results", map[string]any{"glob": "*.go", "max_results": 2}, "main.go src/a.go", true},
		{"private dir", map[string]any{"path": ".git"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out listOutput
			if err := call(t, reg, "workspace.list_files", tt.input, &out); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(out.Files, " "); got != tt.want || out.Truncated != tt.trunc {
				t.Errorf("files = %q (truncated %v), want %q (%v)", got, out.Truncated, tt.want, tt.trunc)
			}
		})
	}
	for _, bad := range []struct {
		input map[string]any
		code  failure.Code
		field string
	}{
		{map[string]any{"path": "../"}, failure.InvalidInput, "path"},
		{map[string]any{"path": "linked"}, failure.Precondition, "path"},
		{map[string]any{"max_results": 100000}, failure.InvalidInput, "max_results"},
		{map[string]any{"glob": "[a-"}, "", ""},
	} {
		err := call(t, reg, "workspace.list_files", bad.input, nil)
		if bad.code == "" {
			if err != nil {
				t.Errorf("%v: %v", bad.input, err)
			}
			continue
		}
		wantFailure(t, err, bad.code, bad.field)
	}
}

func TestSearch(t *testing.T) {
	reg, _ := setup(t, map[string]string{
		".gitignore":  "gen/\n",
		"a.go":        "package a\n\nfunc Add(a, b int) int { return a + b }\n",
		"b.go":        "package a\n\nfunc add2() {}\n",
		"gen/z.go":    "func Add() {}\n",
		"blob.bin":    "func Add\x00",
		"slow.txt":    strings.Repeat("a", 100000) + "!\n",
		"wide.txt":    strings.Repeat("x", 10000) + "NEEDLE" + strings.Repeat("y", 10000) + "\n",
		"sub/c.py":    "def Add(): pass\n",
		"sub/d.crlf":  "first\r\nAdd here\r\n",
		"empty.txt":   "",
		"noeol.txt":   "Add",
		"unicode.txt": "ü Add\n",
	})
	tests := []struct {
		name  string
		input map[string]any
		want  []string // path:line:column
	}{
		{"plain", map[string]any{"pattern": `func Add\b`}, []string{"a.go:3:1"}},
		{"ignore case, glob", map[string]any{"pattern": `add`, "ignore_case": true, "glob": "*.go"}, []string{"a.go:3:6", "b.go:3:6"}},
		{"subdirectory", map[string]any{"pattern": `Add`, "path": "sub"}, []string{"sub/c.py:1:5", "sub/d.crlf:2:1"}},
		{"include ignored", map[string]any{"pattern": `func Add\(\)`, "include_ignored": true}, []string{"gen/z.go:1:1"}},
		{"no trailing newline and unicode", map[string]any{"pattern": `^Add$|ü Add`}, []string{"noeol.txt:1:1", "unicode.txt:1:1"}},
		// (a+)+$ backtracks exponentially in PCRE; RE2 is linear.
		{"catastrophic pattern", map[string]any{"pattern": `(a+)+$`, "path": "slow.txt"}, nil},
		{"single file", map[string]any{"pattern": `NEEDLE`, "path": "wide.txt"}, []string{"wide.txt:1:10001"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out searchOutput
			if err := call(t, reg, "workspace.search", tt.input, &out); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range out.Matches {
				got = append(got, m.Path+":"+strconv.Itoa(m.Line)+":"+strconv.Itoa(m.Column))
				if len(m.Text) > maxMatchText+10 {
					t.Errorf("%s: text of %d bytes", m.Path, len(m.Text))
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("matches = %v, want %v", got, tt.want)
			}
		})
	}
	var out searchOutput
	if err := call(t, reg, "workspace.search", map[string]any{"pattern": `NEEDLE`}, &out); err != nil || !strings.Contains(out.Matches[0].Text, "NEEDLE") {
		t.Errorf("excerpt of a long line lost the match: %+v %v", out.Matches, err)
	}
	if err := call(t, reg, "workspace.search", map[string]any{"pattern": `.`, "max_results": 3}, &out); err != nil || len(out.Matches) != 3 || !out.Truncated {
		t.Errorf("max_results: %d matches, truncated %v, %v", len(out.Matches), out.Truncated, err)
	}
	for _, bad := range []map[string]any{
		{"pattern": `(a)\1`},                   // backreferences: not RE2
		{"pattern": strings.Repeat("a", 2000)}, // too long
		{"pattern": ""},                        // empty
		{"pattern": `x{1001}`},                 // repeat count over RE2's limit
	} {
		wantFailure(t, call(t, reg, "workspace.search", bad, nil), failure.InvalidInput, "pattern")
	}
}

const goodC = "int add(int a, int b) { return a + b; }\n"

func TestWrite(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		input   map[string]any
		code    failure.Code
		field   string
		file    string // the file to check afterwards
		want    string // its content afterwards ("" = as before)
		gate    string
		written bool
	}{
		{name: "text file unchecked", tool: "write_file", input: map[string]any{"path": "notes.txt", "content": "new\n"},
			file: "notes.txt", want: "new\n", written: true},
		{name: "create in new directory", tool: "write_file", input: map[string]any{"path": "docs/new/x.md", "content": "# x\n"},
			file: "docs/new/x.md", want: "# x\n", written: true},
		{name: "c edit gated and accepted", tool: "write_file", input: map[string]any{"path": "add.c", "content": "int add(int a, int b) { return b + a; }\n"},
			file: "add.c", want: "int add(int a, int b) { return b + a; }\n", gate: "c.check", written: true},
		{name: "c edit adding an error rejected", tool: "replace_in_file",
			input: map[string]any{"path": "add.c", "edits": []any{map[string]any{"old_text": "a + b", "new_text": "a + c"}}},
			code:  failure.DiagnosticRegression, file: "add.c"},
		{name: "dry run writes nothing", tool: "write_file", input: map[string]any{"path": "add.c", "content": "int add(int a, int b) { return 0; }\n", "dry_run": true},
			file: "add.c", gate: "c.check"},
		{name: "replace", tool: "replace_in_file",
			input: map[string]any{"path": "notes.txt", "edits": []any{map[string]any{"old_text": "old", "new_text": "new"}, map[string]any{"old_text": "new", "new_text": "newer"}}},
			file:  "notes.txt", want: "newer\ntwice twice\n", written: true},
		{name: "anchor not found", tool: "replace_in_file",
			input: map[string]any{"path": "notes.txt", "edits": []any{map[string]any{"old_text": "absent", "new_text": "x"}}},
			code:  failure.AnchorNotResolved, field: "edits[0].old_text", file: "notes.txt"},
		{name: "anchor ambiguous", tool: "replace_in_file",
			input: map[string]any{"path": "notes.txt", "edits": []any{map[string]any{"old_text": "twice", "new_text": "x"}}},
			code:  failure.Ambiguous, field: "edits[0].old_text", file: "notes.txt"},
		{name: "empty anchor", tool: "replace_in_file",
			input: map[string]any{"path": "notes.txt", "edits": []any{map[string]any{"old_text": "", "new_text": "x"}}},
			code:  failure.InvalidInput, field: "edits[0].old_text", file: "notes.txt"},
		{name: "replace in a missing file", tool: "replace_in_file",
			input: map[string]any{"path": "nope.txt", "edits": []any{map[string]any{"old_text": "a", "new_text": "b"}}},
			code:  failure.NotFound, field: "path"},
		{name: "git hook", tool: "write_file", input: map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nrm -rf ~\n"},
			code: failure.Precondition, field: "path", file: ".git/hooks/pre-commit"},
		{name: "transaction records", tool: "write_file", input: map[string]any{"path": "./.langhost/transactions/x.json", "content": "{}"},
			code: failure.Precondition, field: "path"},
		// Issue 17: a repository symlink to .git/config, whose
		// core.fsmonitor git would run.
		{name: "symlink to .git/config", tool: "write_file", input: map[string]any{"path": "cfg-link", "content": "[core]\n\tfsmonitor = touch pwned\n"},
			code: failure.Precondition, field: "path", file: ".git/config"},
		{name: "replace through a symlink to .git/config", tool: "replace_in_file",
			input: map[string]any{"path": "cfg-link", "edits": []any{map[string]any{"old_text": "[core]", "new_text": "[core]\n\tfsmonitor = touch pwned"}}},
			code:  failure.Precondition, field: "path", file: ".git/config"},
		{name: "nested clone's .git/config", tool: "write_file", input: map[string]any{"path": "vendor/lib/.git/config", "content": "[core]\n\tpager = touch pwned\n"},
			code: failure.Precondition, field: "path", file: "vendor/lib/.git/config"},
		{name: "a fake repository, file by file", tool: "write_file", input: map[string]any{"path": "a/.git/HEAD", "content": "ref: refs/heads/main\n"},
			code: failure.Precondition, field: "path"},
		{name: "a .git file", tool: "write_file", input: map[string]any{"path": "sub/.git", "content": "gitdir: ../x\n"},
			code: failure.Precondition, field: "path"},
		{name: "nested .langhost", tool: "write_file", input: map[string]any{"path": "sub/.langhost/languages/x.yaml", "content": "x"},
			code: failure.Precondition, field: "path"},
		{name: "dot dot", tool: "write_file", input: map[string]any{"path": "../escape.txt", "content": "x"}, code: failure.InvalidInput, field: "path"},
		{name: "absolute", tool: "write_file", input: map[string]any{"path": "/tmp/escape.txt", "content": "x"}, code: failure.InvalidInput, field: "path"},
		{name: "symlink out", tool: "write_file", input: map[string]any{"path": "out-link", "content": "x"}, code: failure.Precondition, field: "path"},
		{name: "through a symlinked directory out", tool: "write_file", input: map[string]any{"path": "out-dir/new.txt", "content": "x"}, code: failure.Precondition, field: "path"},
		{name: "bad policy", tool: "write_file", input: map[string]any{"path": "notes.txt", "content": "y", "policy": "sometimes"}, code: failure.InvalidInput, field: "policy", file: "notes.txt"},
		{name: "unchanged", tool: "write_file", input: map[string]any{"path": "notes.txt", "content": "old\ntwice twice\n"}, code: failure.InvalidInput, field: "path", file: "notes.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			reg, dir := setup(t, map[string]string{"add.c": goodC, "notes.txt": "old\ntwice twice\n", ".git/hooks/pre-commit": "#!/bin/sh\n",
				".git/config": "[core]\n", "vendor/lib/.git/config": "[core]\n"})
			os.Symlink(filepath.Join(".git", "config"), filepath.Join(dir, "cfg-link"))
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "target"), []byte("outside"), 0o644)
			os.Symlink(filepath.Join(outside, "target"), filepath.Join(dir, "out-link"))
			os.Symlink(outside, filepath.Join(dir, "out-dir"))
			var before []byte
			if tt.file != "" {
				before, _ = os.ReadFile(filepath.Join(dir, tt.file))
			}
			var out gate.Result
			err := call(t, reg, "workspace."+tt.tool, tt.input, &out)
			var after []byte
			if tt.file != "" {
				after, _ = os.ReadFile(filepath.Join(dir, tt.file))
			}
			if got, _ := os.ReadFile(filepath.Join(outside, "target")); string(got) != "outside" {
				t.Errorf("the file outside was written: %q", got)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 {
				t.Errorf("a file was created outside: %v", entries)
			}
			if tt.code != "" {
				wantFailure(t, err, tt.code, tt.field)
				if !bytes.Equal(after, before) {
					t.Errorf("a refused edit changed %s:\n%s", tt.file, after)
				}
				if recs, _ := txnlog.List(dir); len(recs) != 0 {
					t.Errorf("a refused edit was recorded")
				}
				for _, made := range []string{"a", "sub"} {
					if _, err := os.Lstat(filepath.Join(dir, made)); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("a refused edit created %s: %v", made, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = string(before)
			}
			if string(after) != want {
				t.Errorf("%s = %q, want %q", tt.file, after, want)
			}
			if out.Gate != tt.gate || out.Written != tt.written || out.Diff == "" {
				t.Errorf("result = %+v", out)
			}
			if tt.gate == "" && !strings.Contains(out.Note, "no gate applied") {
				t.Errorf("an unchecked write does not say so: %+v", out)
			}
			if !tt.written {
				return
			}
			// Undo restores what was there before.
			if err := call(t, reg, "workspace.undo", map[string]any{"id": out.TransactionID}, nil); err != nil {
				t.Fatal(err)
			}
			wantFailure(t, call(t, reg, "workspace.undo", map[string]any{"id": out.TransactionID}, nil), failure.Precondition, "id")
			got, err := os.ReadFile(filepath.Join(dir, tt.file))
			if len(before) == 0 {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("undo of a created file left %q (%v)", got, err)
				}
			} else if !bytes.Equal(got, before) {
				t.Errorf("after undo %s = %q, want %q", tt.file, got, before)
			}
		})
	}
}

// Writes change files: without confirmation nothing runs.
func TestWriteNeedsConfirmation(t *testing.T) {
	reg, dir := setup(t, map[string]string{"notes.txt": "old\n"})
	_, err := reg.Call(context.Background(), "workspace.write_file", registry.Call{WorkspaceCode: true, Input: map[string]any{"path": "notes.txt", "content": "new\n"}})
	wantFailure(t, err, failure.Precondition, "")
	if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != "old\n" {
		t.Errorf("written without confirmation: %q", got)
	}
	for _, tool := range reg.Tools() {
		readOnly := !strings.Contains(tool.ID, "write") && !strings.Contains(tool.ID, "replace") && !strings.Contains(tool.ID, "undo")
		if tool.ReadOnly != readOnly || tool.RequiresConfirmation == readOnly || (tool.SideEffects == "none") != readOnly || tool.Kind != KindBuiltin {
			t.Errorf("%s: readOnly %v, confirmation %v, side effects %s, kind %s", tool.ID, tool.ReadOnly, tool.RequiresConfirmation, tool.SideEffects, tool.Kind)
		}
	}
}
