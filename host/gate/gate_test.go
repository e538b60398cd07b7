package gate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/txnlog"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/diagnostic"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// loadSpec parses a shipped language spec.
func loadSpec(t *testing.T, lang string) *spec.File {
	t.Helper()
	data, err := languages.FS.ReadFile(lang + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.Parse(lang+".yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if f.GateTool() == nil {
		t.Fatalf("%s.yaml names no gate tool", lang)
	}
	return f
}

// newWorkspace writes files into a new workspace and points TMPDIR at a
// directory of its own, so that a test sees every copy a gate leaves.
func newWorkspace(t *testing.T, files map[string]string) (*workspace.Root, string) {
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
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return ws, tmp
}

func noCopyLeft(t *testing.T, tmp string) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("the gate left %s in the temporary directory", e.Name())
	}
}

func edit(t *testing.T, ws *workspace.Root, rel, content string) Edit {
	t.Helper()
	abs, err := ws.ResolveWrite("path", rel)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	return Edit{Path: rel, Abs: abs, Exists: true, Old: old, New: []byte(content)}
}

const goodC = "int add(int a, int b) { return a + b; }\n"

// C has clangd configured, which is not installed here; its gate is
// gcc -fsyntax-only. The test needs gcc and fails without it.
func TestGateC(t *testing.T) {
	c := loadSpec(t, "c")
	tests := []struct {
		name    string
		start   string
		content string
		policy  string
		code    failure.Code // "" = accepted
		new     int          // new errors in the delta
		fixed   int          // fixed errors
	}{
		{"clean edit accepted", goodC, "int add(int a, int b) { return b + a; }\n", "", "", 0, 0},
		{"new error rejected", goodC, "int add(int a, int b) { return a + c; }\n", "", failure.DiagnosticRegression, 1, 0},
		{"fix accepted", "int add(int a, int b) { return a + c; }\n", goodC, "", "", 0, 1},
		{"new warning passes new_errors", goodC, "int add(int a, int b) { int u; return a + b; }\n", "new_errors", "", 0, 0},
		{"new warning rejected by new_warnings", goodC, "int add(int a, int b) { int u; return a + b; }\n", "new_warnings", failure.DiagnosticRegression, 0, 0},
		{"never accepts an error", goodC, "int add(int a, int b) { return a + c; }\n", "never", "", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, tmp := newWorkspace(t, map[string]string{"src/add.c": tt.start, "Makefile": "all:\n"})
			e := edit(t, ws, "src/add.c", tt.content)
			res, err := Run(context.Background(), Options{Workspace: ws},
				Request{Tool: "workspace.write_file", Operation: "write_file", Language: "c", Gate: c.GateTool(), Edits: []Edit{e}, Policy: tt.policy})
			noCopyLeft(t, tmp)
			got, _ := os.ReadFile(e.Abs)
			if tt.code != "" {
				if failure.CodeOf(err) != tt.code {
					t.Fatalf("err = %v, want class %s", err, tt.code)
				}
				if !bytes.Equal(got, e.Old) {
					t.Errorf("a rejected edit changed the file:\n%s", got)
				}
				var fe *failure.Error
				if !errorsAs(err, &fe) || fe.Details["transaction"] == nil {
					t.Fatalf("no transaction in the details of %v", err)
				}
				r := fe.Details["transaction"].(*Result)
				if diagnostic.Count(r.Delta.New).Error != tt.new || r.Delta.New[0].Path != "src/add.c" {
					t.Errorf("delta.new = %+v, want %d in src/add.c", r.Delta.New, tt.new)
				}
				if recs, _ := txnlog.List(ws.Dir()); len(recs) != 0 {
					t.Errorf("a rejected edit was recorded: %+v", recs[0])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.content {
				t.Errorf("file = %q, want %q", got, tt.content)
			}
			if res.Gate != "c.check" || !res.Written || res.TransactionID == "" {
				t.Errorf("result = %+v", res)
			}
			if diagnostic.Count(res.Delta.New).Error != tt.new || diagnostic.Count(res.Delta.Fixed).Error != tt.fixed {
				t.Errorf("delta = %+v, want %d new, %d fixed", res.Delta, tt.new, tt.fixed)
			}
			rec, err := txnlog.Load(ws.Dir(), res.TransactionID)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Files[0].Before != txnlog.Hash(e.Old) || rec.Files[0].After != txnlog.Hash(e.New) {
				t.Errorf("record files = %+v", rec.Files)
			}
			if _, err := txnlog.Undo(context.Background(), ws.Dir(), ""); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(e.Abs); !bytes.Equal(got, e.Old) {
				t.Errorf("after undo the file holds %q, want %q", got, e.Old)
			}
		})
	}
}

// The gate checks the text that was read: when the file changed on disk
// meanwhile, the accepted edit is refused and the change kept.
func TestGateFileChangedMeanwhile(t *testing.T) {
	c := loadSpec(t, "c")
	ws, tmp := newWorkspace(t, map[string]string{"add.c": goodC})
	e := edit(t, ws, "add.c", "int add(int a, int b) { return b + a; }\n")
	other := []byte("int add(int a, int b) { return a - -b; }\n")
	if err := os.WriteFile(e.Abs, other, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Workspace: ws}, Request{Tool: "t", Operation: "write_file", Language: "c", Gate: c.GateTool(), Edits: []Edit{e}})
	noCopyLeft(t, tmp)
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "add.c") {
		t.Fatalf("err = %v, want precondition_failed naming add.c", err)
	}
	if got, _ := os.ReadFile(e.Abs); !bytes.Equal(got, other) {
		t.Errorf("the change on disk was overwritten: %q", got)
	}
}

// A Rust crate gated by cargo check, for a language that checks the
// whole project rather than one file.
func TestGateRust(t *testing.T) {
	rust := loadSpec(t, "rust")
	ws, tmp := newWorkspace(t, map[string]string{
		"Cargo.toml":  "[package]\nname = \"g\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs":  "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
		"target/junk": "build output is not copied",
	})
	e := edit(t, ws, "src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 { a + \"b\" }\n")
	req := Request{Tool: "t", Operation: "write_file", Language: "rust", Gate: rust.GateTool(), Edits: []Edit{e}}
	// cargo check runs build.rs: without consent the gate refuses, and
	// writes nothing.
	if _, err := Run(context.Background(), Options{Workspace: ws}, req); failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "langhost trust") {
		t.Fatalf("unconsented gate: err = %v, want precondition_failed naming langhost trust", err)
	}
	req.WorkspaceCode = true
	_, err := Run(context.Background(), Options{Workspace: ws}, req)
	noCopyLeft(t, tmp)
	if failure.CodeOf(err) != failure.DiagnosticRegression {
		t.Fatalf("err = %v, want diagnostic_regression", err)
	}
	if got, _ := os.ReadFile(e.Abs); !bytes.Equal(got, e.Old) {
		t.Errorf("a rejected edit changed the file: %q", got)
	}
}

// A workspace over the copy limits is refused before any tool runs.
func TestGateCopyLimits(t *testing.T) {
	c := loadSpec(t, "c")
	ws, tmp := newWorkspace(t, map[string]string{"add.c": goodC, "big.bin": strings.Repeat("x", 4096), "a": "1", "b": "2"})
	e := edit(t, ws, "add.c", goodC)
	for _, lim := range []CopyLimits{{MaxBytes: 1024, MaxFiles: 100}, {MaxBytes: 1 << 20, MaxFiles: 2}} {
		_, err := Run(context.Background(), Options{Workspace: ws, Copy: lim}, Request{Tool: "t", Operation: "write_file", Language: "c", Gate: c.GateTool(), Edits: []Edit{e}})
		if failure.CodeOf(err) != failure.Precondition {
			t.Errorf("limits %+v: err = %v, want precondition_failed", lim, err)
		}
	}
	noCopyLeft(t, tmp)
}

func TestCheckPolicy(t *testing.T) {
	for _, p := range []string{"", "new_errors", "new_warnings", "never"} {
		if _, err := CheckPolicy("policy", p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	_, err := CheckPolicy("policy", "sometimes")
	var fe *failure.Error
	if !errorsAs(err, &fe) || fe.Code != failure.InvalidInput || fe.Field != "policy" {
		t.Errorf("err = %v, want invalid_input on policy", err)
	}
}

func errorsAs(err error, target **failure.Error) bool { return errors.As(err, target) }

// A gate tool that is not installed refuses the write rather than letting
// it through unchecked.
func TestGateToolMissing(t *testing.T) {
	f, err := spec.Parse("zz.yaml", []byte("language: {id: zz, extensions: [.zz]}\ngate: check\ntools:\n  check: {command: langhost-no-such-checker, install: pkg:generic/zzc}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws, tmp := newWorkspace(t, map[string]string{"a.zz": "x\n"})
	e := edit(t, ws, "a.zz", "y\n")
	_, err = Run(context.Background(), Options{Workspace: ws}, Request{Tool: "t", Operation: "write_file", Language: "zz", Gate: f.GateTool(), Edits: []Edit{e}})
	noCopyLeft(t, tmp)
	if failure.CodeOf(err) != failure.Precondition || !strings.Contains(err.Error(), "langhost-no-such-checker") {
		t.Fatalf("err = %v, want precondition_failed naming the executable", err)
	}
	if got, _ := os.ReadFile(e.Abs); !bytes.Equal(got, e.Old) {
		t.Errorf("written without its gate: %q", got)
	}
}

// A gate tool that hangs is killed at its timeout; the write is refused
// and the copy removed.
func TestGateToolTimeout(t *testing.T) {
	f, err := spec.Parse("zz.yaml", []byte("language: {id: zz}\ngate: check\ntools:\n  check: {command: sleep, args: [\"60\"], timeout: 300ms}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws, tmp := newWorkspace(t, map[string]string{"a.zz": "x\n"})
	e := edit(t, ws, "a.zz", "y\n")
	_, err = Run(context.Background(), Options{Workspace: ws}, Request{Tool: "t", Operation: "write_file", Language: "zz", Gate: f.GateTool(), Edits: []Edit{e}})
	noCopyLeft(t, tmp)
	if failure.CodeOf(err) != failure.Timeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if got, _ := os.ReadFile(e.Abs); !bytes.Equal(got, e.Old) {
		t.Errorf("written after its gate timed out: %q", got)
	}
}

// BenchmarkGateC is the cost of a gated write of one C file: copying a
// small workspace and two gcc -fsyntax-only runs (dry run: nothing
// written).
func BenchmarkGateC(b *testing.B) {
	data, _ := languages.FS.ReadFile("c.yaml")
	c, err := spec.Parse("c.yaml", data)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for i := range 50 {
		os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".c"), []byte(goodC), 0o644)
	}
	ws, _ := workspace.New(dir)
	abs := filepath.Join(ws.Dir(), "f0.c")
	e := Edit{Path: "f0.c", Abs: abs, Exists: true, Old: []byte(goodC), New: []byte("int add(int a, int b) { return b + a; }\n")}
	for b.Loop() {
		if _, err := Run(context.Background(), Options{Workspace: ws}, Request{Tool: "t", Operation: "write_file", Language: "c", Gate: c.GateTool(), Edits: []Edit{e}, DryRun: true}); err != nil {
			b.Fatal(err)
		}
	}
}
