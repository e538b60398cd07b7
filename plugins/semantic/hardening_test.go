package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// invokeConfirmed runs an operation as a user who confirmed its writes.
func invokeConfirmed(t *testing.T, e *Engine, op string, input any) (map[string]any, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: op, Input: raw, Confirmed: true}, nil)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s output is not a JSON object: %v\n%s", op, err, out)
	}
	return m, nil
}

// hashes returns the expect input for applying a preview.
func hashes(t *testing.T, preview map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range preview["files"].([]any) {
		f := f.(map[string]any)
		out[f["file"].(string)] = f["sha256"].(string)
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goVet checks that the workspace still compiles after an edit.
func goVet(t *testing.T, root string) {
	t.Helper()
	cmd := exec.Command("go", "vet", "./calc/", "./square/", "./circle/", "./shape/")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go vet after the edit: %v\n%s", err, out)
	}
}

// header shifts every line of a file by two, as an edit made by someone
// else between a preview and its application would.
const header = "// Edited on disk after the preview.\n// Every line below moved down by two.\n"

// A preview applied after its file changed on disk is refused, and the
// file is left as it is; the next preview is computed on the new text.
func TestGoplsStaleEdits(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	calc := filepath.Join(root, "calc", "calc.go")
	original := readFile(t, root, "calc/calc.go")
	renameIn := map[string]any{"symbol": "TotalArea", "newName": "SumAreas"}

	prev := mustInvoke(t, e, "rename", renameIn)
	old := hashes(t, prev)
	if len(old) != 1 || old["calc/calc.go"] != contentHash([]byte(original)) {
		t.Fatalf("preview hashes = %v, want calc/calc.go %s", old, contentHash([]byte(original)))
	}

	modified := header + original
	writeFile(t, calc, modified)
	apply := map[string]any{"symbol": "TotalArea", "newName": "SumAreas", "apply": true, "expect": old}
	_, err := invokeConfirmed(t, e, "rename", apply)
	fe := wantCode(t, err, failure.Precondition, "expect")
	if !strings.Contains(fe.Message, "calc/calc.go changed since the preview") || failure.Precondition.ExitCode() != 4 {
		t.Errorf("message = %q", fe.Message)
	}
	if got := readFile(t, root, "calc/calc.go"); got != modified {
		t.Fatalf("the refused apply wrote calc.go:\n%s", got)
	}

	prev = mustInvoke(t, e, "rename", renameIn)
	wantDiff := `--- a/calc/calc.go
+++ b/calc/calc.go
@@ -9,8 +9,8 @@
 	"example.com/shapes/square"
 )
 
-// TotalArea sums the areas of shapes.
-func TotalArea(shapes []shape.Shape) float64 {
+// SumAreas sums the areas of shapes.
+func SumAreas(shapes []shape.Shape) float64 {
 	total := 0.0
 	for _, s := range shapes {
 		total += s.Area()
@@ -27,8 +27,8 @@
 // C builds shapes and sums them.
 func C() float64 {
 	shapes := []shape.Shape{circle.Circle{Radius: 1}, &square.Square{Side: 2}}
-	return TotalArea(shapes)
+	return SumAreas(shapes)
 }
 
 // Report uses TotalArea too.
-func Report() float64 { return TotalArea(nil) }
+func Report() float64 { return SumAreas(nil) }
`
	if got := get(t, prev, "diff"); got != wantDiff {
		t.Errorf("preview after the on-disk edit:\n%s\nwant\n%s", got, wantDiff)
	}
	apply["expect"] = hashes(t, prev)
	if _, err := invokeConfirmed(t, e, "rename", apply); err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("TotalArea sums", "SumAreas sums", "func TotalArea", "func SumAreas",
		"return TotalArea(", "return SumAreas(").Replace(modified)
	if got := readFile(t, root, "calc/calc.go"); got != want {
		t.Errorf("calc.go after apply:\n%s\nwant\n%s", got, want)
	}
	goVet(t, root)

	t.Run("expect naming other files", func(t *testing.T) {
		prev := mustInvoke(t, e, "rename", map[string]any{"symbol": "SumAreas", "newName": "Total"})
		expect := hashes(t, prev)
		expect["circle/circle.go"] = contentHash([]byte("x"))
		_, err := invokeConfirmed(t, e, "rename", map[string]any{"symbol": "SumAreas", "newName": "Total", "apply": true, "expect": expect})
		fe := wantCode(t, err, failure.Precondition, "expect")
		if !strings.Contains(fe.Message, "no longer touches circle/circle.go") {
			t.Errorf("message = %q", fe.Message)
		}
		delete(expect, "circle/circle.go")
		delete(expect, "calc/calc.go")
		_, err = invokeConfirmed(t, e, "rename", map[string]any{"symbol": "SumAreas", "newName": "Total", "apply": true, "expect": expect})
		if fe := wantCode(t, err, failure.Precondition, "expect"); !strings.Contains(fe.Message, "now also touches calc/calc.go") {
			t.Errorf("message = %q", fe.Message)
		}
		if got := readFile(t, root, "calc/calc.go"); got != want {
			t.Errorf("a refused apply wrote calc.go")
		}
	})
	t.Run("bad expect", func(t *testing.T) {
		for _, in := range []map[string]any{
			{"symbol": "SumAreas", "newName": "Total", "apply": true, "expect": map[string]string{"calc/calc.go": "md5:abc"}},
			{"symbol": "SumAreas", "newName": "Total", "expect": map[string]string{"calc/calc.go": contentHash(nil)}},
		} {
			_, err := invokeConfirmed(t, e, "rename", in)
			wantCode(t, err, failure.InvalidInput, "expect")
		}
	})
}

// gopls reads files that are not open from disk once and keeps them; an
// edit it computes for such a file after the file changed on disk is for
// the old text. The edit must land where the server meant it.
func TestGoplsEditOnFileChangedBehindTheServer(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	mustInvoke(t, e, "find_symbol", map[string]any{"query": "Square"}) // the server has loaded everything
	modified := header + readFile(t, root, "calc/calc.go")
	writeFile(t, filepath.Join(root, "calc", "calc.go"), modified)

	out, err := invokeConfirmed(t, e, "rename", map[string]any{"file": "square/square.go", "line": 5, "column": 6, "newName": "Box", "apply": true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(get(t, out, "diff").(string), "@@ -26,7 +26,7 @@\n") {
		t.Errorf("calc.go hunk is not on the shifted lines:\n%s", get(t, out, "diff"))
	}
	want := strings.Replace(modified, "&square.Square{Side: 2}", "&square.Box{Side: 2}", 1)
	if got := readFile(t, root, "calc/calc.go"); got != want {
		t.Errorf("calc.go after the rename:\n%s\nwant\n%s", got, want)
	}
	goVet(t, root)
}

// A target that is no longer a regular file when the preview is applied
// stops the whole write.
func TestGoplsApplyAfterTargetReplaced(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	in := map[string]any{"file": "square/square.go", "line": 5, "column": 6, "newName": "Box"}
	prev := mustInvoke(t, e, "rename", in)
	expect := hashes(t, prev)
	if len(expect) != 2 {
		t.Fatalf("rename touches %v, want calc.go and square.go", expect)
	}
	square := readFile(t, root, "square/square.go")
	calc := filepath.Join(root, "calc", "calc.go")
	if err := os.Remove(calc); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(calc, 0o755); err != nil {
		t.Fatal(err)
	}
	in["apply"], in["expect"] = true, expect
	_, err := invokeConfirmed(t, e, "rename", in)
	wantCode(t, err, failure.Precondition, "")
	if got := readFile(t, root, "square/square.go"); got != square {
		t.Errorf("square.go was written although calc.go could not be:\n%s", got)
	}
	noLeftovers(t, root)
}

// noLeftovers fails when staging or backup files remain under root.
func noLeftovers(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".langhost-") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
}

func TestWriteAtomically(t *testing.T) {
	const oldA, oldB, newA, newB = "package a // old\n", "package b // old\n", "package a // new\n", "package b // new\n"
	type env struct {
		root, outside, a, b string
		ws                  *workspace.Root
	}
	tests := []struct {
		name string
		// sabotage runs after the changes were computed, before the write.
		sabotage func(t *testing.T, v env)
		// rename wraps os.Rename to fail midway; nil means os.Rename.
		rename  func(v env) func(from, to string) error
		code    failure.Code
		message string
		wantA   string // content of a.go afterwards
		check   func(t *testing.T, v env, err error)
	}{
		{name: "ok", wantA: newA, check: func(t *testing.T, v env, err error) {
			if fi, _ := os.Stat(v.a); fi.Mode().Perm() != 0o640 {
				t.Errorf("a.go mode %v, want 0640 kept", fi.Mode().Perm())
			}
			if b, _ := os.ReadFile(v.b); string(b) != newB {
				t.Errorf("b.go = %q", b)
			}
		}},
		{name: "changed on disk", sabotage: func(t *testing.T, v env) {
			writeFile(t, v.b, "package b // someone else's edit\n")
		}, code: failure.Precondition, message: "b.go changed on disk", wantA: oldA},
		{name: "replaced by a directory", sabotage: func(t *testing.T, v env) {
			os.Remove(v.b)
			os.Mkdir(v.b, 0o755)
		}, code: failure.Precondition, message: "not a regular file", wantA: oldA},
		{name: "replaced by a symlink out", sabotage: func(t *testing.T, v env) {
			os.Remove(v.b)
			os.Symlink(filepath.Join(v.outside, "victim.go"), v.b)
		}, code: failure.Precondition, message: "symlink", wantA: oldA, check: func(t *testing.T, v env, err error) {
			if b, _ := os.ReadFile(filepath.Join(v.outside, "victim.go")); string(b) != "victim\n" {
				t.Errorf("victim.go outside the workspace = %q", b)
			}
		}},
		{name: "replaced by a dangling symlink", sabotage: func(t *testing.T, v env) {
			os.Remove(v.b)
			os.Symlink(filepath.Join(v.outside, "created.go"), v.b)
		}, code: failure.Precondition, message: "symlink", wantA: oldA, check: func(t *testing.T, v env, err error) {
			if _, err := os.Lstat(filepath.Join(v.outside, "created.go")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file was created outside the workspace: %v", err)
			}
		}},
		{name: "rename fails midway", rename: func(v env) func(from, to string) error {
			return func(from, to string) error {
				if to == v.b {
					// b.go turns into a directory between staging and renaming.
					os.Remove(v.b)
					os.Mkdir(v.b, 0o755)
					os.WriteFile(filepath.Join(v.b, "keep"), nil, 0o644)
				}
				return os.Rename(from, to)
			}
		}, code: failure.WorkspaceApplyFailed, message: "nothing was changed (1 earlier file(s) were restored)", wantA: oldA},
		{name: "rollback fails", rename: func(v env) func(from, to string) error {
			return func(from, to string) error {
				if to == v.b || strings.Contains(from, ".langhost-old-") {
					return fmt.Errorf("injected failure")
				}
				return os.Rename(from, to)
			}
		}, code: failure.WorkspaceApplyFailed, message: "could not be restored", wantA: newA, check: func(t *testing.T, v env, err error) {
			// Nothing is lost: the error names the backup holding the old content.
			_, after, _ := strings.Cut(err.Error(), "its old content is in ")
			backup, _, _ := strings.Cut(after, ":")
			if b, rerr := os.ReadFile(backup); rerr != nil || string(b) != oldA {
				t.Errorf("backup %q = %q, %v; want the old content", backup, b, rerr)
			}
			os.Remove(backup)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := env{root: t.TempDir(), outside: t.TempDir()}
			v.a, v.b = filepath.Join(v.root, "a", "a.go"), filepath.Join(v.root, "b", "b.go")
			writeFile(t, v.a, oldA)
			writeFile(t, v.b, oldB)
			writeFile(t, filepath.Join(v.outside, "victim.go"), "victim\n")
			os.Chmod(v.a, 0o640)
			before, _ := os.Stat(v.a)
			var err error
			if v.ws, err = workspace.New(v.root); err != nil {
				t.Fatal(err)
			}
			changes := []fileChange{
				{path: v.a, rel: "a/a.go", old: []byte(oldA), new: []byte(newA)},
				{path: v.b, rel: "b/b.go", old: []byte(oldB), new: []byte(newB)},
			}
			if tt.sabotage != nil {
				tt.sabotage(t, v)
			}
			rename := os.Rename
			if tt.rename != nil {
				rename = tt.rename(v)
			}
			err = writeAtomically(v.ws, changes, rename)
			if failure.CodeOf(err) != tt.code || (err != nil && !strings.Contains(err.Error(), tt.message)) {
				t.Fatalf("writeAtomically = %v (%s), want %s containing %q", err, failure.CodeOf(err), tt.code, tt.message)
			}
			if got, _ := os.ReadFile(v.a); string(got) != tt.wantA {
				t.Errorf("a.go = %q, want %q", got, tt.wantA)
			}
			if after, _ := os.Stat(v.a); tt.wantA == oldA && !os.SameFile(before, after) {
				t.Errorf("a.go was not put back as the same file")
			}
			if tt.check != nil {
				tt.check(t, v, err)
			}
			noLeftovers(t, v.root)
		})
	}
}

// Symlinks inside the workspace that lead out of it are never read or
// written through, whichever input names them.
func TestGoplsSymlinkEscapes(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.go"), "package leak\n\n// Secret is outside the workspace.\nfunc Secret() string { return \"s3cret\" }\n")
	for link, target := range map[string]string{
		"leak/leak.go": filepath.Join(outside, "secret.go"),
		"leakdir":      outside,
		"dangling.go":  filepath.Join(outside, "created.go"),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	e := openEngine(t, root, "go", goplsConfig)
	tests := []struct {
		op string
		in map[string]any
	}{
		{"get_source", map[string]any{"file": "leak/leak.go", "line": 4, "column": 6}},
		{"file_symbols", map[string]any{"file": "leak/leak.go"}},
		{"file_symbols", map[string]any{"file": "leakdir/secret.go"}},
		{"format", map[string]any{"file": "leak/leak.go"}},
		{"organize_imports", map[string]any{"file": "leakdir/secret.go"}},
		{"symbol_info", map[string]any{"file": "leak/leak.go", "line": 4, "column": 6}},
		{"code_actions", map[string]any{"file": "leak/leak.go", "line": 4}},
		{"diagnostics", map[string]any{"file": "leak/leak.go"}},
		{"rename", map[string]any{"file": "dangling.go", "line": 1, "column": 1, "newName": "X", "apply": true}},
		{"rename", map[string]any{"file": "leak/leak.go", "line": 4, "column": 6, "newName": "X", "apply": true}},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+tt.in["file"].(string), func(t *testing.T) {
			out, err := invokeConfirmed(t, e, tt.op, tt.in)
			fe := wantCode(t, err, failure.Precondition, "file")
			if !strings.Contains(fe.Message, "symlink") || strings.Contains(dump(out), "s3cret") {
				t.Errorf("error %q, output %s", fe.Message, dump(out))
			}
		})
	}
	t.Run("by name", func(t *testing.T) {
		// gopls itself follows the link and knows Secret; langhost must
		// still not read the file.
		out, err := invokeConfirmed(t, e, "get_source", map[string]any{"symbol": "Secret"})
		if failure.CodeOf(err) != failure.Precondition || strings.Contains(dump(out), "s3cret") {
			t.Errorf("get_source Secret = %s, %v; want precondition_failed", dump(out), err)
		}
	})
	if _, err := os.Lstat(filepath.Join(outside, "created.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside the workspace: %v", err)
	}
	if got := readFile(t, outside, "secret.go"); !strings.Contains(got, "func Secret()") {
		t.Errorf("secret.go outside the workspace changed:\n%s", got)
	}
}

// A hostile server's rename edits files outside the workspace or through
// symlinks; langhost refuses the whole edit and writes nothing.
func TestHostileServerEdits(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	const source = "class A {}\n"
	writeFile(t, filepath.Join(root, "A.cs"), source)
	writeFile(t, filepath.Join(outside, "victim.txt"), "victim\n")
	os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(root, "link.cs"))
	os.Symlink(filepath.Join(outside, "created.txt"), filepath.Join(root, "dangling.cs"))
	editFile := filepath.Join(t.TempDir(), "edit.json")
	writeFile(t, filepath.Join(root, "App.csproj"), `<Project Sdk="Microsoft.NET.Sdk"></Project>`)
	cfg, logPath := fakeConfig(t, "hostile")
	t.Setenv("FAKEROSLYN_RENAME_EDIT", editFile)
	e := openEngine(t, root, "csharp", cfg)

	tests := []struct {
		name, target string
		code         failure.Code
	}{
		{"absolute path outside", filepath.Join(outside, "victim.txt"), failure.Precondition},
		{"dot-dot out of the root", root + "/../" + filepath.Base(outside) + "/victim.txt", failure.Precondition},
		{"symlink out", filepath.Join(root, "link.cs"), failure.Precondition},
		{"dangling symlink", filepath.Join(root, "dangling.cs"), failure.Precondition},
		{"missing file", filepath.Join(root, "New.cs"), failure.Precondition},
		{"directory", root, failure.Precondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := map[string]any{"changes": map[string]any{
				string(lsp.URIFromPath(filepath.Join(root, "A.cs"))): []any{map[string]any{"range": rng(0, 6, 0, 7), "newText": "B"}},
				"file://" + tt.target:                                []any{map[string]any{"range": rng(0, 0, 0, 0), "newText": "pwned "}},
			}}
			raw, _ := json.Marshal(edit)
			if err := os.WriteFile(editFile, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := invokeConfirmed(t, e, "rename", map[string]any{"file": "A.cs", "line": 1, "column": 7, "newName": "B", "apply": true})
			wantCode(t, err, tt.code, "")
			if got := readFile(t, root, "A.cs"); got != source {
				t.Errorf("A.cs = %q; the refused edit was partly written", got)
			}
			if got := readFile(t, outside, "victim.txt"); got != "victim\n" {
				t.Errorf("victim.txt outside the workspace = %q", got)
			}
			if _, err := os.Lstat(filepath.Join(outside, "created.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a file was created outside the workspace")
			}
		})
	}
	// The edits were refused, not the renames: the server was asked.
	if n := strings.Count(readLog(t, logPath), "request textDocument/rename (load ready)"); n != len(tests) {
		t.Errorf("the server answered %d renames, want %d", n, len(tests))
	}
}
