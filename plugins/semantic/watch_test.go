package semantic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/lsp"
)

func TestCompileGlob(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool
	}{
		{"**/*.go", "/w/a/b.go", true},
		{"**/*.go", "b.go", true},
		{"**/*.go", "/w/a/b.gox", false},
		{"**/*.go", "/w/a/b.go/c.txt", false},
		{"**/*.{go,mod}", "/w/go.mod", true},
		{"**/*.{go,mod}", "/w/x/y.go", true},
		{"**/*.{go,mod}", "/w/go.sum", false},
		{"**/{go.mod,*.{go,s}}", "/w/a.s", true},
		{"**/{go.mod,*.{go,s}}", "/w/go.mod", true},
		{"*.go", "a.go", true},
		{"*.go", "x/a.go", false},
		{"src/**", "src/a/b/c.ts", true},
		{"src/**", "lib/a.ts", false},
		{"a?.py", "ab.py", true},
		{"a?.py", "a/.py", false},
		{"[abc].go", "b.go", true},
		{"[!abc].go", "b.go", false},
		{"[!abc].go", "d.go", true},
		{"[a-c]x", "bx", true},
		{"[].go", "[].go", true},   // an unclosed or empty class is literal
		{"a.(go)", "a.(go)", true}, // regexp syntax is literal
		{"a.(go)", "ax(go)", false},
		{"**/*.go", "/w/a\nb/c\nd.go", true}, // names may hold newlines
	}
	for _, tt := range tests {
		re, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		if got := re.MatchString(tt.path); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v (regexp %s)", tt.pattern, tt.path, got, tt.want, re)
		}
	}
}

func TestCompileGlobRejects(t *testing.T) {
	for _, pattern := range []string{"", "**/*.{go", "[z-a].go", strings.Repeat("a", maxGlobPatternLen+1)} {
		if re, err := compileGlob(pattern); err == nil {
			t.Errorf("compileGlob(%q) = %s, want an error", pattern, re)
		}
	}
}

// TestWatchFilter: registrations as gopls and others send them, hostile
// ones ignored, and the default without any.
func TestWatchFilter(t *testing.T) {
	reg := func(opts string) []lsp.Registration {
		return []lsp.Registration{{ID: "1", Method: "workspace/didChangeWatchedFiles", RegisterOptions: json.RawMessage(opts)}}
	}
	def := &watchFilter{root: "/w", exts: map[string]bool{".go": true}}
	tests := []struct {
		name   string
		filter *watchFilter
		path   string
		change diskChange
		want   bool
	}{
		{"default source", def, "/w/a/b.go", diskChange{typ: lsp.FileChanged}, true},
		{"default project file", def, "/w/go.mod", diskChange{typ: lsp.FileCreated}, true},
		{"default csproj", def, "/w/src/App.csproj", diskChange{typ: lsp.FileChanged}, true},
		{"default other", def, "/w/README.md", diskChange{typ: lsp.FileChanged}, false},
		{"default directory", def, "/w/gone", diskChange{typ: lsp.FileDeleted, dir: true}, true},
		{"relative pattern", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":{"baseUri":"file:///w/sub","pattern":"**/*.{go,mod,sum,work}"},"kind":7}]}`), testLogger())},
			"/w/sub/x/y.go", diskChange{typ: lsp.FileChanged}, true},
		{"relative pattern outside its base", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":{"baseUri":"file:///w/sub","pattern":"**/*.go"}}]}`), testLogger())},
			"/w/other/y.go", diskChange{typ: lsp.FileChanged}, false},
		{"workspace folder base", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":{"baseUri":{"uri":"file:///w","name":"w"},"pattern":"*.py"}}]}`), testLogger())},
			"/w/a.py", diskChange{typ: lsp.FileCreated}, true},
		{"plain pattern", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":"**/*.py"}]}`), testLogger())},
			"/w/a/b.py", diskChange{typ: lsp.FileDeleted}, true},
		{"plain pattern relative to the root", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":"pyproject.toml"}]}`), testLogger())},
			"/w/pyproject.toml", diskChange{typ: lsp.FileChanged}, true},
		{"kind excludes deletion", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":"**/*.py","kind":3}]}`), testLogger())},
			"/w/a.py", diskChange{typ: lsp.FileDeleted}, false},
		{"unregistered extension", &watchFilter{root: "/w", globs: parseWatchers(reg(
			`{"watchers":[{"globPattern":"**/*.py"}]}`), testLogger())},
			"/w/a.go", diskChange{typ: lsp.FileChanged}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.filter.match(tt.path, tt.change); got != tt.want {
				t.Errorf("match(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestParseWatchersHostile: malformed registrations and watchers are
// skipped, not fatal, and their number is bounded.
func TestParseWatchersHostile(t *testing.T) {
	many := `{"watchers":[` + strings.Repeat(`{"globPattern":"**/*.go"},`, maxWatchers+10) + `{"globPattern":"x"}]}`
	regs := []lsp.Registration{
		{ID: "a", Method: "workspace/didChangeWatchedFiles", RegisterOptions: json.RawMessage(`"not an object"`)},
		{ID: "b", Method: "workspace/didChangeWatchedFiles", RegisterOptions: json.RawMessage(
			`{"watchers":[{"globPattern":42},{"globPattern":{"baseUri":"http://x/","pattern":"*"}},{"globPattern":"{{{"},{"globPattern":{"baseUri":7,"pattern":"*"}}]}`)},
		{ID: "c", Method: "workspace/didChangeWatchedFiles", RegisterOptions: json.RawMessage(many)},
	}
	if got := len(parseWatchers(regs, testLogger())); got != maxWatchers {
		t.Errorf("%d watchers, want %d", got, maxWatchers)
	}
}

// TestWatcherCoalesces: changes to one path between two calls become one
// event of the right type.
func TestWatcherCoalesces(t *testing.T) {
	w := &watcher{pending: map[string]diskChange{}, dirs: map[string]bool{}}
	seq := []struct {
		path string
		typ  lsp.FileChangeType
	}{
		{"a", lsp.FileCreated}, {"a", lsp.FileChanged}, // created
		{"b", lsp.FileChanged}, {"b", lsp.FileDeleted}, // deleted
		{"c", lsp.FileDeleted}, {"c", lsp.FileCreated}, // changed
		{"d", lsp.FileChanged}, {"d", lsp.FileChanged}, // changed
	}
	for _, s := range seq {
		w.record(s.path, s.typ, false)
	}
	want := map[string]lsp.FileChangeType{"a": lsp.FileCreated, "b": lsp.FileDeleted, "c": lsp.FileChanged, "d": lsp.FileChanged}
	for p, typ := range want {
		if got := w.pending[p].typ; got != typ {
			t.Errorf("%s: %v, want %v", p, got, typ)
		}
	}
	for i := range maxPending {
		w.record(filepath.Join("x", string(rune('a'+i%26)), strings.Repeat("y", i/26+1)), lsp.FileChanged, false)
	}
	if len(w.pending) != maxPending || !w.overflow {
		t.Errorf("%d pending, overflow %v: want %d and true", len(w.pending), w.overflow, maxPending)
	}
}

// TestGoplsSeesFilesChangedOnDisk: files no call has open, edited,
// created and deleted outside langhost between calls, are seen by the
// next call (gopls reads them from disk only when told they changed).
func TestGoplsSeesFilesChangedOnDisk(t *testing.T) {
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	refs := func() []string {
		t.Helper()
		out := mustInvoke(t, e, "find_references", map[string]any{"symbol": "TotalArea", "includeDeclaration": true, "detail": "compact"})
		var locs []string
		for i := range get(t, out, "total").(int) {
			locs = append(locs, locOf(t, out, "references."+strconv.Itoa(i)))
		}
		return locs
	}
	if got := refs(); len(got) != 3 {
		t.Fatalf("before any change: %v", got)
	}
	if n := e.sess.openCount(); n != 0 {
		t.Fatalf("%d documents open after a read-only call; the test needs none", n)
	}

	calc := filepath.Join(root, "calc", "calc.go")
	src, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n// Twice uses TotalArea once more.\nfunc Twice() float64 { return 2 * TotalArea(nil) }\n"...)
	if err := os.WriteFile(calc, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := refs(); len(got) != 4 || !slices.Contains(got, "calc/calc.go:35:35") {
		t.Errorf("after appending a reference to calc.go: %v", got)
	}

	// A new file of the package. (gopls loads a package in a new
	// directory only once a file of it is open, so the watcher's handling
	// of new directories is tested without it, in TestWatcherNewDirectory.)
	extra := filepath.Join(root, "calc", "extra.go")
	const extraSrc = "package calc\n\nfunc Extra() float64 { return TotalArea(nil) }\n"
	if err := os.WriteFile(extra, []byte(extraSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := refs(); len(got) != 5 || !slices.Contains(got, "calc/extra.go:3:31") {
		t.Errorf("after creating calc/extra.go: %v", got)
	}

	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if got := refs(); len(got) != 4 || slices.Contains(got, "calc/extra.go:3:31") {
		t.Errorf("after deleting calc/extra.go: %v", got)
	}
}

// TestWatcherNewDirectory: files in a directory created after watching
// began are reported, written before or after its watch was added; a
// symlink to a directory outside the root is not followed; skipped
// directories are not watched.
func TestWatcherNewDirectory(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	w, err := newWatcher(root, testLogger())
	if err != nil {
		t.Skipf("cannot watch here: %v", err)
	}
	t.Cleanup(w.close)
	mustWrite := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(filepath.Join(root, "a", "b", "c", "new.go"))
	mustWrite(filepath.Join(root, "node_modules", "dep.go"))
	mustWrite(filepath.Join(outside, "secret.go"))
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	changes, _ := w.take(t.Context())
	if c, ok := changes[filepath.Join(root, "a", "b", "c", "new.go")]; !ok || c.typ != lsp.FileCreated {
		t.Errorf("new.go in new directories: %+v, want created (all: %v)", c, changes)
	}
	// Written after the watch on c was added.
	mustWrite(filepath.Join(root, "a", "b", "c", "later.go"))
	mustWrite(filepath.Join(outside, "secret2.go"))
	mustWrite(filepath.Join(root, "node_modules", "dep2.go"))
	changes, _ = w.take(t.Context())
	if c, ok := changes[filepath.Join(root, "a", "b", "c", "later.go")]; !ok || c.typ != lsp.FileCreated {
		t.Errorf("later.go: %+v, want created (all: %v)", c, changes)
	}
	for p := range changes {
		if !strings.HasPrefix(p, root+string(filepath.Separator)) || strings.Contains(p, "node_modules") || strings.Contains(p, "secret") {
			t.Errorf("reported %s: outside the root, through a symlink or in a skipped directory", p)
		}
	}
	for _, d := range w.watchedDirs() {
		if d != root && !strings.HasPrefix(d, root+string(filepath.Separator)) || strings.Contains(d, "node_modules") || strings.HasSuffix(d, "link") {
			t.Errorf("watching %s", d)
		}
	}

	// A removed directory stands for the files in it.
	if err := os.RemoveAll(filepath.Join(root, "a")); err != nil {
		t.Fatal(err)
	}
	changes, _ = w.take(t.Context())
	if c := changes[filepath.Join(root, "a")]; c.typ != lsp.FileDeleted || !c.dir {
		t.Errorf("removed directory a: %+v, want a deleted directory (all: %v)", c, changes)
	}
	if n := len(w.watchedDirs()); n != 1 {
		t.Errorf("watching %d directories after removing a, want 1 (the root): %v", n, w.watchedDirs())
	}
}

// runningGopls is gopls on a copy of testdata/gomod, started by a first
// call, and its process id.
func runningGopls(t *testing.T) (*Engine, string, int) {
	t.Helper()
	requireTool(t, "gopls")
	root := copyTree(t, filepath.Join("testdata", "gomod"))
	e := openEngine(t, root, "go", goplsConfig)
	mustInvoke(t, e, "find_symbol", map[string]any{"query": "TotalArea"})
	return e, root, e.ServerPID()
}

// A project file changed while a transaction is between its check and its
// write, and another call arriving, restart the server for that call: the
// edit is written and both calls succeed. (A transaction tells the server
// of its write best-effort, so this held before restarts waited for the
// calls in flight too; TestRestartWaitsForReadsInFlight is the one that
// failed.)
func TestRestartWaitsForCallsInFlight(t *testing.T) {
	e, root, first := runningGopls(t)
	next := make(chan error, 1)
	e.sess.beforePersist = func() {
		writeFile(t, filepath.Join(root, "go.mod"), "module example.com/shapes\n\ngo 1.23\n")
		go func() {
			_, err := invoke(t, e, "find_symbol", map[string]any{"query": "TotalArea"})
			next <- err
		}()
		// Long enough for the other call to restart the server under
		// this one, were it allowed to.
		time.Sleep(time.Second)
	}
	edit := map[string]any{"file": "calc/calc.go", "edits": []map[string]string{{"old_text": "// A calls B.", "new_text": "// A calls B, twice."}}}
	if _, err := invokeConfirmed(t, e, "edit_file", edit); err != nil {
		t.Fatalf("the call in flight when go.mod changed: %v", err)
	}
	if !strings.Contains(readFile(t, root, "calc/calc.go"), "// A calls B, twice.") {
		t.Error("the edit was not written")
	}
	if err := <-next; err != nil {
		t.Fatalf("the call that restarted the server: %v", err)
	}
	if e.ServerPID() == first {
		t.Error("the server was not restarted after go.mod changed")
	}
}

// A read-only call in flight (diagnostics of the whole workspace, which
// waits about a second for the server's publications) when another call
// restarts the server for a changed go.mod answers from the server it
// started with, in full.
func TestRestartWaitsForReadsInFlight(t *testing.T) {
	e, root, first := runningGopls(t)
	inFlight := make(chan map[string]any, 1)
	go func() {
		out, err := invoke(t, e, "diagnostics", map[string]any{})
		if err != nil {
			t.Errorf("the call in flight when go.mod changed: %v", err)
		}
		inFlight <- out
	}()
	time.Sleep(200 * time.Millisecond)
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/shapes\n\ngo 1.23\n")
	time.Sleep(200 * time.Millisecond) // the watcher's debounce
	if _, err := invoke(t, e, "find_symbol", map[string]any{"query": "TotalArea"}); err != nil {
		t.Fatalf("the call that restarted the server: %v", err)
	}
	// Its server, closed under it, published nothing more: it would say
	// it was incomplete.
	if out := <-inFlight; out != nil && out["complete"] != true {
		t.Errorf("the call in flight when go.mod changed: %s", dump(out))
	}
	if e.ServerPID() == first {
		t.Error("the server was not restarted after go.mod changed")
	}
}
