package semantic

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// csReadOnlyCalls exercise every C# operation that writes nothing on the
// zoo, previews of edits included.
var csReadOnlyCalls = []struct {
	op    string
	input map[string]any
}{
	{"load_status", map[string]any{}},
	{"find_symbol", map[string]any{"query": "Dog", "kind": "class"}},
	{"file_symbols", map[string]any{"file": "src/Zoo.Core/Dog.cs"}},
	{"symbol_info", map[string]any{"symbol": "Dog/Speak"}},
	{"symbol_info", map[string]any{"file": "src/Zoo.App/Keeper.cs", "line": 13, "column": 20}},
	{"find_references", map[string]any{"symbol": "Feeder", "kind": "class"}},
	{"find_references", map[string]any{"symbol": "Animal/Describe", "detail": "full"}},
	{"find_implementations", map[string]any{"symbol": "IAnimal"}},
	{"type_hierarchy", map[string]any{"symbol": "Dog", "direction": "both"}},
	{"find_callers", map[string]any{"symbol": "Feeder/Feed#1", "depth": 2}},
	{"get_source", map[string]any{"symbol": "Dog/Describe"}},
	{"type_members", map[string]any{"symbol": "Animal", "kind": "class"}},
	{"containing_member", map[string]any{"file": "src/Zoo.App/Keeper.cs", "line": 13, "column": 13}},
	{"find_subclasses", map[string]any{"symbol": "Animal", "transitive": true}},
	{"find_overrides", map[string]any{"symbol": "Animal/Speak"}},
	{"find_usages", map[string]any{"symbol": "Dog", "kind": "class"}},
	{"method_overloads", map[string]any{"symbol": "Feeder/Feed"}},
	{"get_file_content", map[string]any{"file": "src/Zoo.Core/Cat.cs"}},
	{"diagnostics", map[string]any{"file": "src/Zoo.App/Keeper.cs"}},
	{"diagnostics", map[string]any{"file": "src/Zoo.Core/Feeder.cs", "packet": "guided"}},
	{"rename", map[string]any{"symbol": "Feeder/Meals", "new_name": "Portions"}},
	{"code_actions", map[string]any{"file": "src/Zoo.App/Keeper.cs", "line": 1, "column": 1}},
	{"format", map[string]any{"file": "src/Zoo.Core/Cat.cs"}},
}

// TestCSharpLSNoDocumentStaysOpen: no document is left open that langhost
// opened only to read. Every read-only operation runs against real
// csharp-ls, whose input is recorded on the way in; after each call
// langhost's count of open documents is zero, and on the wire every
// didOpen was followed by a didClose. csharp-ls keeps an open document's
// text and re-analyses it on every change, so a document left open makes
// it grow with every query.
func TestCSharpLSNoDocumentStaysOpen(t *testing.T) {
	e, wire := recordedCSharpLS(t)
	for _, c := range csReadOnlyCalls {
		mustInvoke(t, e, c.op, c.input)
		if n := e.sess.openCount(); n != 0 {
			t.Errorf("%s %v left %d documents open", c.op, c.input, n)
		}
	}
	open, opens := recording(t, e, wire)
	if opens == 0 {
		t.Fatal("no didOpen recorded: the operations that need open documents (previews, the guided packet) opened none")
	}
	for uri, n := range open {
		if n != 0 {
			t.Errorf("%s: %d didOpen without didClose", uri, n)
		}
	}
}

// recordedCSharpLS opens the engine on a copy of the zoo with real
// csharp-ls, whose input is recorded in the returned file.
func recordedCSharpLS(t *testing.T) (*Engine, string) {
	t.Helper()
	requireCSharpLS(t)
	root := copyTree(t, filepath.Join("testdata", "zoo"))
	wire := filepath.Join(t.TempDir(), "to-csharp-ls.lsp")
	cfg := csharpLSConfig
	// sh -c '...' WIRE: $0 is the log file; tee copies what langhost sends.
	cfg.Command, cfg.Args = "sh", []string{"-c", `tee -a "$0" | exec csharp-ls`, wire}
	e := openEngine(t, root, "csharp", cfg)
	if e.sess.serverName() != "csharp-ls" {
		t.Fatalf("server %q, want csharp-ls behind the recording", e.sess.serverName())
	}
	return e, wire
}

// recording ends the recording of e's server input with a last request,
// waits until it shows, and returns the documents' didOpen minus didClose
// counts and the number of didOpen.
func recording(t *testing.T, e *Engine, wire string) (open map[lsp.DocumentURI]int, opens int) {
	t.Helper()
	mustInvoke(t, e, "find_symbol", map[string]any{"query": "EndOfRecording"})
	deadline := time.Now().Add(time.Minute)
	for {
		open, opens, done := openDocuments(t, wire, "EndOfRecording")
		if done {
			return open, opens
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording of the LSP input never showed the last request")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCSharpLSAnswersFromDisk: csharp-ls diagnoses a file, offers its code
// actions and formats it from the file on disk, so those calls send no
// didOpen (each would make it fork its solution and re-analyse the file),
// and what they answer follows an edit made on disk by another program.
func TestCSharpLSAnswersFromDisk(t *testing.T) {
	e, wire := recordedCSharpLS(t)
	root := e.root

	const cat = "src/Zoo.Core/Cat.cs"
	mustInvoke(t, e, "diagnostics", map[string]any{"file": cat})
	mustInvoke(t, e, "code_actions", map[string]any{"file": cat, "line": 1, "column": 1})
	if _, err := invoke(t, e, "organize_imports", map[string]any{"file": cat}); failure.CodeOf(err) != failure.Unsupported {
		t.Errorf("organize_imports on csharp-ls = %v, want unsupported_by_server", err)
	}
	// Another program breaks the file's layout: the formatting csharp-ls
	// proposes is that of the file as it is now.
	path := filepath.Join(root, cat)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	messy := strings.Replace(string(src), "public ", "public     ", 1)
	if err := os.WriteFile(path, []byte(messy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustInvoke(t, e, "format", map[string]any{"file": cat})
	if changed, _ := out["changed"].(bool); !changed || !strings.Contains(fmt.Sprint(out["diff"]), "-public     sealed class Cat") {
		t.Errorf("format after the edit on disk = %s, want a change", dump(out))
	}

	if _, opens := recording(t, e, wire); opens != 0 {
		t.Errorf("%d didOpen sent to csharp-ls; diagnostics, code actions and formatting need none", opens)
	}
}
