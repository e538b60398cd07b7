package semantic

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi"
)

// lagEnv makes the test binary a scripted language server (lagServer)
// instead of running the tests; its value is the workspace root.
const lagEnv = "LANGHOST_TEST_LAG_SERVER"

func init() {
	if root := os.Getenv(lagEnv); root != "" {
		if err := lagServer(root, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "lag server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// lagConfig runs the test binary as lagServer on root.
func lagConfig(t *testing.T, root string) Config {
	t.Helper()
	t.Setenv(lagEnv, root)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Command: exe, LanguageIDs: map[string]string{".lag": "lag"}, ReadyQuiet: "50ms"}
}

// lagServer is a scripted push-diagnostics server for *.lag files, whose
// lines are "def NAME" and "use NAME": a use of a name no file defines is
// an error. It lags the way a loaded server does, deterministically: on a
// change it publishes the changed file at once, computed from the state
// the change leaves, and every other open file only when the next change
// arrives, computed from the state before that change. So after a two-file change the first file's latest
// publication is the one computed before the second change, carrying the
// first file's current version, and nothing newer comes while the client
// just waits. It answers rename by replacing the word at the position in
// every file.
func lagServer(root string, in io.Reader, out io.Writer) error {
	type doc struct {
		text    string
		version int
	}
	docs := map[string]*doc{} // by URI
	var deferred []string     // URIs whose publication waits for the next message
	send := func(v map[string]any) error {
		v["jsonrpc"] = "2.0"
		body, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return lsp.WriteMessage(out, body)
	}
	// files is the server's view of every .lag file: open text, else disk.
	files := func() map[string]string {
		all := map[string]string{}
		paths, _ := filepath.Glob(filepath.Join(root, "*.lag"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				all[string(lsp.URIFromPath(p))] = string(b)
			}
		}
		for uri, d := range docs {
			all[uri] = d.text
		}
		return all
	}
	publish := func(uri string) error {
		all := files()
		diags := []map[string]any{}
		for i, line := range strings.Split(all[uri], "\n") {
			name, ok := strings.CutPrefix(line, "use ")
			if !ok {
				continue
			}
			defined := false
			for _, text := range all {
				defined = defined || slices.Contains(strings.Split(text, "\n"), "def "+name)
			}
			if !defined {
				diags = append(diags, map[string]any{"severity": 1, "message": "undefined: " + name,
					"range": map[string]any{"start": map[string]int{"line": i, "character": 4}, "end": map[string]int{"line": i, "character": 4 + len(name)}}})
			}
		}
		return send(map[string]any{"method": "textDocument/publishDiagnostics", "params": map[string]any{
			"uri": uri, "version": docs[uri].version, "diagnostics": diags}})
	}
	r := bufio.NewReader(in)
	for {
		body, err := lsp.ReadMessage(r)
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
				Position struct {
					Line      int `json:"line"`
					Character int `json:"character"`
				} `json:"position"`
				NewName string `json:"newName"`
			} `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			return err
		}
		td := m.Params.TextDocument
		if m.Method == "textDocument/didOpen" || m.Method == "textDocument/didChange" {
			for _, uri := range deferred {
				if docs[uri] != nil {
					if err := publish(uri); err != nil {
						return err
					}
				}
			}
			deferred = nil
		}
		switch m.Method {
		case "initialize":
			err = send(map[string]any{"id": m.ID, "result": map[string]any{"capabilities": map[string]any{
				"textDocumentSync": 1, "renameProvider": true}}})
		case "shutdown":
			err = send(map[string]any{"id": m.ID, "result": nil})
		case "exit":
			return nil
		case "textDocument/didOpen", "textDocument/didChange":
			text := td.Text
			if n := len(m.Params.ContentChanges); n > 0 {
				text = m.Params.ContentChanges[n-1].Text
			}
			docs[td.URI] = &doc{text: text, version: td.Version}
			err = publish(td.URI)
			for uri := range docs {
				if uri != td.URI {
					deferred = append(deferred, uri)
				}
			}
		case "textDocument/didClose":
			delete(docs, td.URI)
		case "textDocument/rename":
			all := files()
			lines := strings.Split(all[td.URI], "\n")
			word := ""
			if p := m.Params.Position; p.Line < len(lines) {
				_, word, _ = strings.Cut(lines[p.Line], " ")
			}
			changes := map[string]any{}
			for uri, text := range all {
				ls := strings.Split(text, "\n")
				end := map[string]int{"line": len(ls) - 1, "character": len(ls[len(ls)-1])}
				changed := false
				for i, l := range ls {
					if kind, name, ok := strings.Cut(l, " "); ok && name == word {
						ls[i], changed = kind+" "+m.Params.NewName, true
					}
				}
				if changed {
					changes[uri] = []map[string]any{{"newText": strings.Join(ls, "\n"), "range": map[string]any{
						"start": map[string]int{"line": 0, "character": 0}, "end": end}}}
				}
			}
			err = send(map[string]any{"id": m.ID, "result": map[string]any{"changes": changes}})
		default:
			if len(m.ID) > 0 {
				err = send(map[string]any{"id": m.ID, "result": nil})
			}
		}
		if err != nil {
			return err
		}
	}
}

// A two-file rename against a server that publishes an intermediate
// state's diagnostics for the first file and its final ones only later:
// the transaction must judge the final state and accept the rename, as a
// dry run and when it writes.
func TestTxnMultiFileAfterIsFinalState(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.lag"), "use Square\n")
	writeFile(t, filepath.Join(root, "b.lag"), "def Square\n")
	e := openEngine(t, root, "lag", lagConfig(t, root))
	for _, apply := range []bool{false, true} {
		in := map[string]any{"file": "b.lag", "line": 1, "column": 5, "newName": "Box", "dry_run": !apply, "apply": apply}
		var out map[string]any
		var err error
		if apply {
			out, err = invokeConfirmed(t, e, "rename", in)
		} else {
			out, err = invoke(t, e, "rename", in)
		}
		if err != nil {
			t.Fatalf("apply %v: %v", apply, err)
		}
		if r, _ := get(t, out, "transaction.rejected").(string); r != "" {
			t.Fatalf("apply %v: rejected: %s", apply, r)
		}
		// The dry run's restore must not leave a publication of a state
		// between its two restores as the next "before".
		for _, k := range []string{"new", "fixed"} {
			if ds, _ := get(t, out, "transaction.delta."+k).([]any); len(ds) > 0 {
				t.Errorf("apply %v: delta.%s = %s, want none", apply, k, dump(ds))
			}
		}
	}
	if a, b := readFile(t, root, "a.lag"), readFile(t, root, "b.lag"); a != "use Box\n" || b != "def Box\n" {
		t.Errorf("after the rename a.lag = %q, b.lag = %q", a, b)
	}
}

// BenchmarkTransactionTwoFiles measures a two-file transaction on a warm
// gopls: the rename square.Square -> Box (calc.go and square.go) as a dry
// run, which settles the first file before the "after".
func BenchmarkTransactionTwoFiles(b *testing.B) {
	requireTool(b, "gopls")
	root := copyTree(b, filepath.Join("testdata", "gomod"))
	e := openEngine(b, root, "go", goplsConfig)
	in, _ := json.Marshal(map[string]any{"file": "square/square.go", "line": 5, "column": 6, "newName": "Box", "dry_run": true})
	run := func(b *testing.B) {
		if _, err := e.Invoke(context.Background(), pluginapi.InvokeRequest{Operation: "rename", Input: in}, nil); err != nil {
			b.Fatal(err)
		}
	}
	run(b) // warm up
	for b.Loop() {
		run(b)
	}
}

// Against each real push server, the diagnostics a two-file transaction
// judges are publications for the versions settle sent: the server
// answered the re-sent documents (instead of the wait running into
// pushWait and the transaction going on with what it had).
func TestTxnSettlePublishesFinalVersions(t *testing.T) {
	tests := []struct {
		tool, lang, fixture, comment string
		cfg                          Config
		files                        []string
	}{
		{"gopls", "go", "gomod", "// settled\n", goplsConfig, []string{"calc/calc.go", "square/square.go"}},
		{"pyright-langserver", "python", "pypkg", "# settled\n", pyrightConfig, []string{"zoo/animals.py", "zoo/keeper.py"}},
		// Not typescript-language-server: after a change it publishes
		// nothing for a file whose diagnostics stay empty (src/square.ts),
		// so a transaction waits pushWait for it, with or without settle
		// (a separate issue).
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			requireTool(t, tt.tool)
			e := openEngine(t, copyTree(t, filepath.Join("testdata", tt.fixture)), tt.lang, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			s, err := e.session(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.calls.RUnlock()
			ctx, lease := withLease(ctx)
			defer s.release(ctx, lease)
			var changes []fileChange
			for _, rel := range tt.files {
				p := filepath.Join(e.root, filepath.FromSlash(rel))
				old, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				changes = append(changes, fileChange{path: p, rel: rel, old: old, new: append(slices.Clip(old), tt.comment...), editCount: 1})
			}
			c := &call{e: e, s: s, confirmed: true}
			delta, overlays, finish, err := c.inMemory(ctx, changes)
			defer finish(false)
			if err != nil {
				t.Fatal(err)
			}
			if len(delta.New) > 0 || len(delta.Fixed) > 0 {
				t.Errorf("a comment changes the diagnostics: %s", dump(delta))
			}
			for _, ch := range changes {
				d := overlays[ch.path]
				s.docMu.Lock()
				version, since := d.version, d.syncSeq
				s.docMu.Unlock()
				pub, ok := s.srv.Diagnostics(d.uri)
				switch {
				case !ok:
					t.Errorf("%s: no publication", ch.rel)
				case pub.Version != nil && *pub.Version < version:
					t.Errorf("%s: the latest publication is for version %d, want %d", ch.rel, *pub.Version, version)
				case pub.Version == nil && pub.Seq <= since:
					t.Errorf("%s: no publication since the last change", ch.rel)
				}
			}
		})
	}
}
