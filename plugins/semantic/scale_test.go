package semantic

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/plugins/lsp"
)

// readOnlyCalls exercise every operation that writes nothing on the gomod
// fixture (messy/messy.go added), previews of edits included.
var readOnlyCalls = []struct {
	op    string
	input map[string]any
}{
	{"find_symbol", map[string]any{"query": "TotalArea"}},
	{"file_symbols", map[string]any{"file": "circle/circle.go"}},
	{"symbol_info", map[string]any{"symbol": "Area", "container": "Circle"}},
	{"symbol_info", map[string]any{"file": "calc/calc.go", "line": 28, "column": 10}},
	{"find_references", map[string]any{"symbol": "TotalArea", "includeDeclaration": true}},
	{"find_references", map[string]any{"file": "shape/shape.go", "line": 5, "column": 6, "detail": "full"}},
	{"find_implementations", map[string]any{"symbol": "Shape", "kind": "interface"}},
	{"type_hierarchy", map[string]any{"file": "shape/shape.go", "line": 5, "column": 6}},
	{"find_callers", map[string]any{"symbol": "C", "depth": 2}},
	{"get_source", map[string]any{"symbol": "Area", "container": "Circle"}},
	{"type_members", map[string]any{"symbol": "Circle", "kind": "struct"}},
	{"containing_member", map[string]any{"file": "circle/circle.go", "line": 11, "column": 5}},
	{"diagnostics", map[string]any{"file": "broken/broken.go"}},
	{"diagnostics", map[string]any{}},
	{"format", map[string]any{"file": "messy/messy.go"}},
	{"organize_imports", map[string]any{"file": "messy/messy.go"}},
	{"rename", map[string]any{"file": "calc/calc.go", "line": 11, "column": 6, "newName": "SumAreas"}},
	{"code_actions", map[string]any{"file": "broken/broken.go", "line": 5, "column": 14}},
}

// TestNoDocumentStaysOpen runs every read-only operation against real
// gopls, whose input is recorded on the way in, and checks that no
// document is left open: langhost's count is zero after each call, and on
// the wire every didOpen was followed by a didClose. Before, a
// find_references at standard detail opened every referenced file to find
// its containing members and never closed it, so gopls grew with every
// query.
func TestNoDocumentStaysOpen(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	if err := os.MkdirAll(filepath.Join(root, "messy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "messy", "messy.go"), []byte(messyGo), 0o644); err != nil {
		t.Fatal(err)
	}
	wire := filepath.Join(t.TempDir(), "to-gopls.lsp")
	cfg := goplsConfig
	// sh -c '...' WIRE: $0 is the log file; tee copies what langhost sends.
	cfg.Command, cfg.Args = "sh", []string{"-c", `tee -a "$0" | exec gopls`, wire}
	e := openEngine(t, root, "go", cfg)
	for _, c := range readOnlyCalls {
		mustInvoke(t, e, c.op, c.input)
		if n := e.sess.openCount(); n != 0 {
			t.Errorf("%s %v left %d documents open", c.op, c.input, n)
		}
	}
	// A last request marks the end of the recording: tee has written
	// everything before it once it is in the log.
	mustInvoke(t, e, "find_symbol", map[string]any{"query": "EndOfRecording"})
	var (
		open  map[lsp.DocumentURI]int
		opens int
	)
	deadline := time.Now().Add(time.Minute)
	for {
		var done bool
		open, opens, done = openDocuments(t, wire, "EndOfRecording")
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording of the LSP input never showed the last request")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if opens == 0 {
		t.Fatal("no didOpen recorded: the operations that need open documents (diagnostics, format, previews) did not open any")
	}
	for uri, n := range open {
		if n != 0 {
			t.Errorf("%s: %d didOpen without didClose", uri, n)
		}
	}
}

// openDocuments reads a recording of LSP messages up to a workspace/symbol
// request for marker and counts, per document, didOpen minus didClose.
func openDocuments(t *testing.T, path, marker string) (open map[lsp.DocumentURI]int, opens int, sawMarker bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	open = map[lsp.DocumentURI]int{}
	r := bufio.NewReader(f)
	for {
		body, err := lsp.ReadMessage(r)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return open, opens, false
		}
		if err != nil {
			t.Fatalf("reading the recording: %v", err)
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				TextDocument struct {
					URI lsp.DocumentURI `json:"uri"`
				} `json:"textDocument"`
				Query string `json:"query"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("recorded message %q: %v", body, err)
		}
		switch m.Method {
		case "textDocument/didOpen":
			open[m.Params.TextDocument.URI]++
			opens++
		case "textDocument/didClose":
			open[m.Params.TextDocument.URI]--
		case "workspace/symbol":
			if m.Params.Query == marker {
				return open, opens, true
			}
		}
	}
}

// TestServerNeedingOpenFilesKeepsOnlyItsStartFile checks the other path:
// typescript-language-server answers only about open files, so reads open
// what they ask about and close it again; only the file opened at start-up
// (which gives the server its project) stays open.
func TestServerNeedingOpenFilesKeepsOnlyItsStartFile(t *testing.T) {
	e, _ := tsEngine(t)
	for _, c := range []struct {
		op    string
		input map[string]any
	}{
		{"find_references", map[string]any{"symbol": "totalArea", "includeDeclaration": true}},
		{"find_implementations", map[string]any{"symbol": "Shape", "kind": "interface"}},
		{"symbol_info", map[string]any{"symbol": "area", "container": "Square"}},
		{"file_symbols", map[string]any{"file": "src/square.ts"}},
		{"diagnostics", map[string]any{"file": "src/calc.ts"}},
	} {
		mustInvoke(t, e, c.op, c.input)
		if n := e.sess.openCount(); n != 1 {
			t.Errorf("%s %v: %d documents open, want only the start-up file", c.op, c.input, n)
		}
	}
}

// TestGoOutlineMatchesGopls compares the in-process Go outline with gopls's
// document symbols (names, kinds, ranges, children; gopls's detail strings
// are not reproduced) on the fixture and on standard library files with
// methods on pointer and generic receivers, embedded fields, interfaces,
// grouped declarations and non-ASCII text.
func TestGoOutlineMatchesGopls(t *testing.T) {
	e, root := goEngine(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	files := []string{
		filepath.Join(root, "calc", "calc.go"),
		filepath.Join(root, "circle", "circle.go"),
		filepath.Join(root, "shape", "shape.go"),
		filepath.Join(root, "broken", "broken.go"),
		filepath.Join(goroot, "src", "net", "http", "server.go"),
		filepath.Join(goroot, "src", "go", "ast", "ast.go"),
		filepath.Join(goroot, "src", "sync", "atomic", "type.go"),
		filepath.Join(goroot, "src", "iter", "iter.go"),
		filepath.Join(goroot, "src", "unicode", "utf8", "utf8.go"),
		filepath.Join(goroot, "src", "container", "list", "list.go"),
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			content, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var raw json.RawMessage
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err = e.sess.srv.Call(ctx, "textDocument/documentSymbol", map[string]any{"textDocument": lsp.TextDocumentIdentifier{URI: lsp.URIFromPath(path)}}, &raw)
			if err != nil {
				t.Fatal(err)
			}
			want, err := lsp.DecodeDocumentSymbols(raw)
			if err != nil {
				t.Fatal(err)
			}
			got := goOutline(content)
			if len(want) == 0 {
				t.Fatal("gopls returned no symbols")
			}
			if diff := compareSymbols("", got, want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func compareSymbols(prefix string, got, want []lsp.DocumentSymbol) string {
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "%s: %d symbols, gopls has %d\n", prefix, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		at := prefix + "/" + w.Name
		if g.Name != w.Name || g.Kind != w.Kind || g.Range != w.Range || g.SelectionRange != w.SelectionRange {
			fmt.Fprintf(&b, "%s: got %s %s %v %v, gopls %s %s %v %v\n", at, g.Kind, g.Name, g.Range, g.SelectionRange, w.Kind, w.Name, w.Range, w.SelectionRange)
			continue
		}
		b.WriteString(compareSymbols(at, g.Children, w.Children))
	}
	return b.String()
}

func TestFileCache(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	// write writes a file last modified an hour ago and returns it as
	// read from disk.
	write := func(t *testing.T, name, content string) fileContent {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fileContent{path: p, info: fi, mapper: lsp.NewMapper([]byte(content)), fromDisk: true}
	}
	sym := func(name string) []lsp.DocumentSymbol { return []lsp.DocumentSymbol{{Name: name}} }

	t.Run("entries", func(t *testing.T) {
		fc := newFileCache(2, 1<<20)
		a, b, c := write(t, "a.go", "a"), write(t, "b.go", "b"), write(t, "c.go", "c")
		fc.putOutline(a, sym("A"))
		fc.putOutline(b, sym("B"))
		fc.outline(a) // a is now more recent than b
		fc.putOutline(c, sym("C"))
		if _, ok := fc.outline(b); ok {
			t.Error("the least recently used entry was kept beyond 2 entries")
		}
		if _, ok := fc.outline(a); !ok {
			t.Error("a recently used entry was evicted")
		}
		if n, _ := fc.len(); n != 2 {
			t.Errorf("%d entries, want 2", n)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		big := make([]lsp.DocumentSymbol, 10)
		f0 := write(t, "f0.go", "x")
		cost := len(f0.path) + 1 + 8 + symbolsCost(big)
		fc := newFileCache(100, 2*cost+100)
		for i := range 5 {
			fc.putOutline(write(t, fmt.Sprintf("f%d.go", i), "x"), big)
		}
		if n, bytes := fc.len(); n != 2 || bytes > 2*cost+100 {
			t.Errorf("%d entries of %d bytes, want 2 within %d", n, bytes, 2*cost+100)
		}
		huge := write(t, "huge.go", "x")
		fc.putOutline(huge, make([]lsp.DocumentSymbol, 100))
		if _, ok := fc.outline(huge); ok {
			t.Error("an outline larger than the whole cache was kept")
		}
		large := write(t, "large.go", strings.Repeat("x", 3*cost))
		fc.putContent(large.path, large.info, large.mapper)
		if _, ok := fc.content(large.path, large.info); ok {
			t.Error("content larger than the whole cache was kept")
		}
	})
	t.Run("changed file", func(t *testing.T) {
		fc := newFileCache(10, 1<<20)
		d := write(t, "d.go", "one")
		fc.putOutline(d, sym("D"))
		d2 := write(t, "d.go", "three")
		if _, ok := fc.outline(d2); ok {
			t.Error("an outline of a file whose size changed was used")
		}
		if _, ok := fc.content(d2.path, d2.info); ok {
			t.Error("the content of a file whose size changed was used")
		}
		if n, _ := fc.len(); n != 0 {
			t.Errorf("the stale entry was kept (%d entries)", n)
		}
	})
	t.Run("document with other content", func(t *testing.T) {
		// An open document may hold an edit's text under the disk
		// file's state: neither its outline nor its content is taken for
		// the file's.
		fc := newFileCache(10, 1<<20)
		e := write(t, "e.go", "package e")
		overlay := fileContent{path: e.path, info: e.info, mapper: lsp.NewMapper([]byte("package e // edited"))}
		fc.putOutline(overlay, sym("Edited"))
		if n, _ := fc.len(); n != 0 {
			t.Errorf("a document's outline was cached without the disk content (%d entries)", n)
		}
		fc.putContent(e.path, e.info, e.mapper)
		fc.putOutline(overlay, sym("Edited"))
		if _, ok := fc.outline(e); ok {
			t.Error("the outline of a document's other content was taken for the file's")
		}
		if _, ok := fc.outline(overlay); ok {
			t.Error("the outline of a document's other content was cached")
		}
	})
}

// TestReadCachesOnlySettledFiles checks that session.read serves a file
// unchanged on disk from the cache, sees a change, and does not cache a
// file modified so recently that a second write could keep its state.
func TestReadCachesOnlySettledFiles(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{e: &Engine{ws: ws, root: ws.Dir()}, docs: map[string]*document{}, files: newFileCache(8, 1<<20)}
	p := filepath.Join(ws.Dir(), "a.go")
	old := time.Now().Add(-time.Hour)
	write := func(content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	read := func() fileContent {
		t.Helper()
		f, err := s.read(p)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	write("package a\n", old)
	first, second := read(), read()
	if first.mapper != second.mapper {
		t.Error("an unchanged file was read again")
	}
	write("package b\n", old.Add(time.Second))
	if got := string(read().mapper.Content()); got != "package b\n" {
		t.Errorf("after a change read %q", got)
	}
	write("package c\n", time.Now())
	if n, _ := s.files.len(); n != 1 {
		t.Fatalf("%d entries before the recent write, want 1", n)
	}
	if got := string(read().mapper.Content()); got != "package c\n" {
		t.Errorf("after a recent change read %q", got)
	}
	if n, _ := s.files.len(); n != 0 {
		t.Errorf("a file modified just now was cached (%d entries)", n)
	}
}

// TestReferencesEnrichmentIsCapped checks that a page of more than 200
// references gets containing members for the first 200 only, says so, and
// that compact pages carry no members and no mark.
func TestReferencesEnrichmentIsCapped(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	var src strings.Builder
	src.WriteString("package many\n\nfunc Target() {}\n")
	for i := range 250 {
		fmt.Fprintf(&src, "\nfunc caller%03d() { Target() }\n", i)
	}
	if err := os.MkdirAll(filepath.Join(root, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "many", "many.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, root, "go", goplsConfig)
	out := mustInvoke(t, e, "find_references", map[string]any{"file": "many/many.go", "line": 3, "column": 6, "limit": 300})
	if get(t, out, "total") != 250 || out["members_truncated"] != true {
		t.Fatalf("total %v, membersTruncated %v", get(t, out, "total"), out["members_truncated"])
	}
	refs := out["references"].([]any)
	for i, r := range refs {
		member, _ := r.(map[string]any)["containing_member"].(string)
		if want := fmt.Sprintf("caller%03d", i); i < maxEnriched && member != want {
			t.Errorf("reference %d: member %q, want %q", i, member, want)
		} else if i >= maxEnriched && member != "" {
			t.Errorf("reference %d past the cap has member %q", i, member)
		}
	}
	page := mustInvoke(t, e, "find_references", map[string]any{"file": "many/many.go", "line": 3, "column": 6, "offset": 240, "limit": 20})
	if _, ok := page["members_truncated"]; ok || get(t, page, "references.9.containing_member") != "caller249" {
		t.Errorf("last page = %s", dump(page))
	}
	compact := mustInvoke(t, e, "find_references", map[string]any{"file": "many/many.go", "line": 3, "column": 6, "limit": 300, "detail": "compact"})
	if _, ok := compact["members_truncated"]; ok {
		t.Errorf("compact page is marked membersTruncated")
	}
	if r := get(t, compact, "references.0").(map[string]any); r["containing_member"] != nil || r["snippet"] != nil {
		t.Errorf("compact reference = %s", dump(r))
	}
	if n := e.sess.openCount(); n != 0 {
		t.Errorf("%d documents open", n)
	}
}
