package semantic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// brokenPromise checks that err is postcondition_failed naming symbol,
// carrying the transaction it refused, and that nothing was written or
// recorded and the server sees the disk text again.
func brokenPromise(t *testing.T, e *Engine, root, file, before string, err error, symbol string) {
	t.Helper()
	fe := wantCode(t, err, failure.Postcondition, "")
	t.Log(fe.Message)
	if !strings.Contains(fe.Message, symbol) || !strings.Contains(fe.Message, "nothing was written") {
		t.Errorf("message %q does not name %s or say that nothing was written", fe.Message, symbol)
	}
	raw, _ := json.Marshal(fe.Details["transaction"])
	var tr TxnResult
	if err := json.Unmarshal(raw, &tr); err != nil || tr.Applied || tr.Diff == "" {
		t.Errorf("details.transaction = %s (%v), want the refused diff", raw, err)
	}
	if got := readFile(t, root, file); got != before {
		t.Errorf("the file changed:\n%s", got)
	}
	if recs, err := txnlog.List(root); err != nil || len(recs) != 0 {
		t.Errorf("transaction records = %d (%v), want none", len(recs), err)
	}
	// The overlay is gone: the server's symbols are those on disk.
	m := mustInvoke(t, e, "get_file_content", map[string]any{"file": file})
	if got := get(t, m, "content").(string); strings.Contains(got, "Escaped") || strings.Contains(got, "Extra") {
		t.Errorf("the server still sees the edit:\n%s", got)
	}
	syms := dump(mustInvoke(t, e, "file_symbols", map[string]any{"file": file}))
	if strings.Contains(syms, "Escaped") || strings.Contains(syms, "Extra") {
		t.Errorf("file_symbols still has the edit's declarations:\n%s", syms)
	}
}

// TestPostconditionsGo breaks each promise gopls lets a text edit break
// while the code still compiles (so no policy would catch it).
func TestPostconditionsGo(t *testing.T) {
	e, root := goEditEngine(t, nil)
	const file = "edits/edits.go"
	before := readFile(t, root, file)

	tests := []struct {
		name, op string
		input    map[string]any
		symbol   string
	}{
		{
			// Valid Go: Keep's body is "return 2", Extra follows it.
			name: "a body that closes its function and declares another",
			op:   "replace_symbol_body",
			input: map[string]any{"symbol": "Keep", "file": file,
				"body": "return 2\n}\n\nfunc Extra() int {\n\treturn 3"},
			symbol: "Keep",
		},
		{
			name: "the same as a dry run",
			op:   "replace_symbol_body",
			input: map[string]any{"symbol": "Keep", "file": file, "dry_run": true,
				"body": "return 2\n}\n\nfunc Extra() int {\n\treturn 3"},
			symbol: "Keep",
		},
		{
			// Valid Go again: the field closes the struct, Escaped is a
			// top-level function.
			name: "a member that escapes its type",
			op:   "add_member",
			input: map[string]any{"symbol": "Shape", "file": file,
				"member": "Extra int\n}\n\nfunc Escaped() {"},
			symbol: "Escaped",
		},
		{
			// The comment swallows the anchor; policy never would write it.
			name:   "an insertion that swallows its anchor",
			op:     "insert_before_symbol",
			input:  map[string]any{"symbol": "Keep", "file": file, "text": "/* Extra", "policy": "never"},
			symbol: "Keep",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := invokeConfirmed(t, e, tt.op, tt.input)
			brokenPromise(t, e, root, file, before, err, tt.symbol)
		})
	}

	t.Run("kept promises are written", func(t *testing.T) {
		for _, step := range []struct {
			op    string
			input map[string]any
		}{
			{"replace_symbol_body", map[string]any{"symbol": "Keep", "file": file, "body": "return 3"}},
			{"insert_after_symbol", map[string]any{"symbol": "Keep", "file": file, "text": "// After is new.\nfunc After() int { return Keep() }"}},
			{"insert_before_symbol", map[string]any{"symbol": "Keep", "file": file, "text": "// Before is new.\nfunc Before() int { return 0 }"}},
			{"add_member", map[string]any{"symbol": "Shape", "file": file, "member": "Color string"}},
			{"add_member", map[string]any{"symbol": "Shape", "file": file, "member": "// Twice doubles.\nfunc (s *Shape) Twice() int { return 2 * s.Sides }"}},
			{"update_imports", map[string]any{"file": file, "add": []string{"fmt"}, "policy": "never"}},
			{"replace_symbol_body", map[string]any{"symbol": "Old", "file": file, "body": "fmt.Println()\nreturn 1"}},
			{"rename_symbol", map[string]any{"symbol": "Before", "file": file, "new_name": "Prior"}},
			{"delete_symbol", map[string]any{"symbol": "Prior", "file": file}},
		} {
			m, err := invokeConfirmed(t, e, step.op, step.input)
			if err != nil {
				t.Fatalf("%s %v: %v\n%s", step.op, step.input, err, readFile(t, root, file))
			}
			if out := symbolEditOut(t, m); !out.Applied {
				t.Fatalf("%s %v: not applied: %s", step.op, step.input, dump(m))
			}
		}
		got := readFile(t, root, file)
		for _, want := range []string{"func Keep() int {\n\treturn 3\n}", "func After() int", "\tColor string\n", "func (s *Shape) Twice() int", "\"fmt\"", "fmt.Println()"} {
			if !strings.Contains(got, want) {
				t.Errorf("the file lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "Prior") || strings.Contains(got, "Before") {
			t.Errorf("the renamed and deleted function is still there:\n%s", got)
		}
	})
}

// syms builds the declarations of text for the checks: each entry names a
// declaration by path ("Shape/Area"), the text of its whole range and of
// its name (the first occurrence of each in text).
func syms(t *testing.T, text string, kind lsp.SymbolKind, decls ...[3]string) []fileSymbol {
	t.Helper()
	pos := func(off int) lsp.Position {
		ls := strings.LastIndexByte(text[:off], '\n') + 1
		return lsp.Position{Line: uint32(strings.Count(text[:off], "\n")), Character: uint32(off - ls)}
	}
	var out []fileSymbol
	for _, d := range decls {
		start := strings.Index(text, d[1])
		sel := strings.Index(text[start:], d[2])
		if start < 0 || sel < 0 {
			t.Fatalf("%q or %q is not in the text", d[1], d[2])
		}
		sel += start
		s := lsp.DocumentSymbol{Name: d[0], Kind: kind,
			Range:          lsp.Range{Start: pos(start), End: pos(start + len(d[1]))},
			SelectionRange: lsp.Range{Start: pos(sel), End: pos(sel + len(d[2]))}}
		out = append(out, fileSymbol{chain: []lsp.DocumentSymbol{s}, segs: pathSegs(d[0])})
	}
	return out
}

// TestSymbolChecks covers the promises no real server lets an edit break
// (a rename the server's edit does not make, a deletion that leaves the
// symbol, an insertion the anchor grows over, lost imports).
func TestSymbolChecks(t *testing.T) {
	const fn = lsp.SymbolKind(12)
	c := &call{e: &Engine{}, s: &session{name: "server", e: &Engine{}}}
	const old = "package p\n\nfunc A() {}\n\nfunc B() {}\n"
	before := syms(t, old, fn, [3]string{"A", "func A() {}", "A"}, [3]string{"B", "func B() {}", "B"})
	refA := &symbolRef{doc: &document{path: "p.go"}, sym: before[0].sym(), path: "A", all: before, overload: 1, overloads: 1}

	renamed := "package p\n\nfunc C() {}\n\nfunc B() {}\n"
	notRenamed := old
	kept := "package p\n\nfunc B() {}\n"
	type checkCase struct {
		name   string
		check  symbolCheck
		text   string
		after  []fileSymbol
		reason string // "" when the promise holds
	}
	tests := []checkCase{
		{"rename made", renamedCheck(refA, "C"), renamed,
			syms(t, renamed, fn, [3]string{"C", "func C() {}", "C"}, [3]string{"B", "func B() {}", "B"}), ""},
		{"rename not made", renamedCheck(refA, "C"), notRenamed, before, "C does not resolve after renaming A"},
		{"rename to an existing name leaves the old", renamedCheck(refA, "B"), renamed,
			syms(t, renamed, fn, [3]string{"A", "func C() {}", "C"}, [3]string{"B", "func B() {}", "B"}, [3]string{"B", "func B() {}", "B"}), "A still resolves"},
		{"deleted", goneCheck(refA), kept, syms(t, kept, fn, [3]string{"B", "func B() {}", "B"}), ""},
		{"not deleted", goneCheck(refA), old, before, "A still resolves after its deletion"},
	}
	// insert_after_symbol A: the inserted text spans [from, to).
	ins := "\n\nfunc X() {}"
	at := strings.Index(old, "func A() {}") + len("func A() {}")
	inserted := old[:at] + ins + old[at:]
	selA := strings.Index(old, "A(") + 1
	tests = append(tests,
		checkCase{"inserted after", c.adjacentCheck(refA, selA, at, at+len(ins), false), inserted,
			syms(t, inserted, fn, [3]string{"A", "func A() {}", "A"}, [3]string{"X", "func X() {}", "X"}), ""},
		checkCase{"the anchor grew over the insertion", c.adjacentCheck(refA, selA, at, at+len(ins), false), inserted,
			syms(t, inserted, fn, [3]string{"A", "func A() {}\n\nfunc X() {}", "A"}), "the inserted text is not next to A"},
		checkCase{"the anchor moved", c.adjacentCheck(refA, selA, at, at+len(ins), false), inserted,
			syms(t, inserted, fn, [3]string{"A", "func X() {}", "X"}), "the anchor A no longer resolves"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.check(tt.after, tt.text)
			if tt.reason == "" && got != "" || tt.reason != "" && !strings.Contains(got, tt.reason) {
				t.Errorf("reason = %q, want %q", got, tt.reason)
			}
		})
	}
}

func TestImportsCheck(t *testing.T) {
	const goText = "package p\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n)\n\nfunc F() {\n\tx := []string{\n\t\t\"os\"}\n}\n"
	const pyText = "import os\nfrom typing import List\n\n\ndef f():\n    import sys\n"
	tests := []struct {
		lang, text  string
		add, remove []string
		reason      string
	}{
		{"go", goText, []string{"fmt", "str strings"}, []string{"os"}, ""},
		{"go", goText, []string{"os"}, nil, `does not import "os"`}, // a string in a function is no import
		{"go", goText, nil, []string{"fmt"}, `still imports "fmt"`},
		{"go", "package p\n\nimport \"fmt\"\n", []string{"fmt"}, nil, ""},
		{"go", "// Package p wraps\n// \"net/http\"\npackage p\n", []string{"net/http"}, nil, `does not import "net/http"`},
		{"python", pyText, []string{"os", "from typing import List"}, []string{"sys"}, ""},
		{"python", pyText, nil, []string{"os"}, `still imports "os"`},
		{"python", pyText, []string{"sys"}, nil, `does not import "sys"`}, // indented: not the file's import
		{"csharp", "using System;\nusing System.Text;\n", []string{"System.Text"}, []string{"System.IO"}, ""},
		{"csharp", "using System;\n", []string{"System.Text"}, nil, `does not import "System.Text"`},
	}
	for _, tt := range tests {
		got := importsCheck(tt.lang, tt.text, tt.add, tt.remove)
		if tt.reason == "" && got != "" || tt.reason != "" && !strings.Contains(got, tt.reason) {
			t.Errorf("%s +%v -%v: reason = %q, want %q", tt.lang, tt.add, tt.remove, got, tt.reason)
		}
	}
}

// TestPostconditionsPython: pyright's range of a def ends at its last
// statement; a body ending in a comment still keeps its promise, and a
// nested def stays inside.
func TestPostconditionsPython(t *testing.T) {
	requireTool(t, "pyright-langserver")
	root := copyTree(t, filepath.Join("testdata", "pypkg"))
	e := openEngine(t, root, "python", pyrightConfig)
	const file = "zoo/animals.py"
	for _, body := range []string{
		"sound = \"woof\"\nreturn sound  # loud\n# more to come\n",
		"def inner() -> str:\n    return \"woof\"\n\nreturn inner()",
	} {
		m, err := invokeConfirmed(t, e, "replace_symbol_body", map[string]any{"symbol": "Dog/speak", "file": file, "body": body})
		if err != nil {
			t.Fatalf("%q: %v\n%s", body, err, readFile(t, root, file))
		}
		if !symbolEditOut(t, m).Applied {
			t.Fatalf("%q: not applied: %s", body, dump(m))
		}
	}

	// Valid Python: a blank line may separate a decorator from its def,
	// so the inserted decorator becomes Puppy.speak's, not a declaration
	// before it.
	before := readFile(t, root, file)
	_, err := invokeConfirmed(t, e, "insert_before_symbol", map[string]any{"symbol": "Puppy/speak", "file": file, "text": "@staticmethod", "policy": "never"})
	fe := wantCode(t, err, failure.Postcondition, "")
	t.Log(fe.Message)
	if !strings.Contains(fe.Message, "Puppy/speak") {
		t.Errorf("message %q does not name Puppy/speak", fe.Message)
	}
	if readFile(t, root, file) != before {
		t.Errorf("the file changed:\n%s", readFile(t, root, file))
	}
}

// TestRenamePostconditionScripted: a server whose rename edit does not
// make the rename (the scripted Roslyn peer answers with a given edit).
func TestRenamePostconditionScripted(t *testing.T) {
	root := t.TempDir()
	const source = "class A {}\n"
	writeFile(t, filepath.Join(root, "A.cs"), source)
	writeFile(t, filepath.Join(root, "Other.cs"), "class Other {}\n")
	writeFile(t, filepath.Join(root, "App.csproj"), `<Project Sdk="Microsoft.NET.Sdk"></Project>`)
	editFile := filepath.Join(t.TempDir(), "edit.json")
	cfg, _ := fakeConfig(t, "roslyn")
	t.Setenv("FAKEROSLYN_RENAME_EDIT", editFile)
	e := openEngine(t, root, "csharp", cfg)
	uri := func(name string) string { return string(lsp.URIFromPath(filepath.Join(root, name))) }

	tests := []struct {
		name   string
		edit   map[string]any
		reason string // "" when the rename is made
	}{
		{"another name", map[string]any{uri("A.cs"): []any{map[string]any{"range": rng(0, 6, 0, 7), "newText": "Z"}}},
			"B does not resolve after renaming A"},
		{"not the declaring file", map[string]any{uri("Other.cs"): []any{map[string]any{"range": rng(0, 6, 0, 11), "newText": "B"}}},
			"does not change A.cs, which declares A"},
		{"a second declaration", map[string]any{uri("A.cs"): []any{map[string]any{"range": rng(0, 10, 0, 10), "newText": "\nclass B {}"}}},
			"A still resolves after its renaming to B"},
		{"the rename", map[string]any{uri("A.cs"): []any{map[string]any{"range": rng(0, 6, 0, 7), "newText": "B"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(map[string]any{"changes": tt.edit})
			if err := os.WriteFile(editFile, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := invokeConfirmed(t, e, "rename_symbol", map[string]any{"symbol": "A", "file": "A.cs", "new_name": "B"})
			if tt.reason == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := readFile(t, root, "A.cs"); got != "class B {}\n" {
					t.Errorf("A.cs = %q", got)
				}
				return
			}
			fe := wantCode(t, err, failure.Postcondition, "")
			if !strings.Contains(fe.Message, tt.reason) {
				t.Errorf("message %q, want %q", fe.Message, tt.reason)
			}
			if got := readFile(t, root, "A.cs"); got != source {
				t.Errorf("A.cs = %q; nothing should be written", got)
			}
			if got := readFile(t, root, "Other.cs"); got != "class Other {}\n" {
				t.Errorf("Other.cs = %q; nothing should be written", got)
			}
		})
	}
}
