package semantic

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/internal/lsptest/csharpls"
	"github.com/langhost/langhost/internal/lsptest/roslyntest"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// fakeConfig returns a config that runs internal/lsptest/fakeroslyn, the
// scripted Roslyn peer, with the roslyn dialect, and the file it logs
// every message it receives to (with its load state). mode picks how it
// misbehaves, through its environment:
//
//	roslyn     not at all
//	exit       exits with status 3 on the first request
//	hang       never answers initialize
//	hostile    answers rename with the edit in $FAKEROSLYN_RENAME_EDIT
//	malformed  answers the first workspace/symbol request of the test
//	           with a Content-Length that is not a number, then lingers
//	           until killed
func fakeConfig(t *testing.T, mode string) (Config, string) {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "fake.log")
	t.Setenv("FAKEROSLYN_LOG", logPath)
	t.Setenv("FAKEROSLYN_LOAD_DELAY", "100ms")
	switch mode {
	case "roslyn", "hostile":
	case "exit":
		t.Setenv("FAKEROSLYN_EXIT_AFTER", "0")
	case "hang":
		t.Setenv("FAKEROSLYN_NEVER_ANSWER", "initialize")
	case "malformed":
		t.Setenv("FAKEROSLYN_MALFORMED_ONCE", filepath.Join(dir, "malformed.done"))
	default:
		t.Fatalf("unknown fake mode %q", mode)
	}
	return Config{
		Command:     roslyntest.Build(t),
		Args:        []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", filepath.Join(dir, "logs")},
		Dialect:     DialectRoslyn,
		LanguageIDs: map[string]string{".cs": "csharp"},
	}, logPath
}

// TestRoslynDialectOnScriptedPeer runs the roslyn-language-server dialect
// against internal/lsptest/fakeroslyn, the scripted peer that replays
// Roslyn's handshake and message shapes. Microsoft's server is not served
// by the NuGet copy on this machine, so the dialect (solution/open,
// projectInitializationComplete, -30099 retries, pull diagnostics, no type
// hierarchy before 2026 builds) can only be tested here; C# semantics are
// tested on real csharp-ls (csharpls_test.go).
func TestRoslynDialectOnScriptedPeer(t *testing.T) {
	bin := roslyntest.Build(t)
	t.Setenv("FAKEROSLYN_LOAD_DELAY", "300ms")
	t.Setenv("FAKEROSLYN_FAIL_30099", "2")
	root := copyTree(t, roslyntest.Shapes())
	cfg := Config{
		Command:     bin,
		Args:        []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", t.TempDir()},
		Dialect:     DialectRoslyn,
		RootMarkers: []string{"*.sln", "*.slnx", "*.csproj"},
		LanguageIDs: map[string]string{".cs": "csharp"},
	}
	e := openEngine(t, root, "csharp", cfg)

	// The first two navigation requests fail with -30099 and are retried.
	out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "IShape"})
	var files []string
	for _, impl := range out["implementations"].([]any) {
		files = append(files, impl.(map[string]any)["file"].(string))
	}
	if got := strings.Join(files, ","); !strings.Contains(got, "src/Shapes/Circle.cs") || !strings.Contains(got, "src/Shapes/Square.cs") {
		t.Errorf("implementations = %s", dump(out))
	}
	if got := locOf(t, out, "implementations.0"); got != "src/Shapes/Circle.cs:3:14" {
		t.Errorf("first implementation at %s, want src/Shapes/Circle.cs:3:14", got)
	}

	diag := mustInvoke(t, e, "diagnostics", map[string]any{"file": "src/Shapes.App/Broken.cs"})
	if get(t, diag, "mode") != "pull" || get(t, diag, "counts.error") == nil || get(t, diag, "diagnostics.0.line") != 7 {
		t.Errorf("diagnostics = %s", dump(diag))
	}

	// Type hierarchy exists only in 2026+ builds; the default fake lacks it.
	_, err := invoke(t, e, "type_hierarchy", map[string]any{"symbol": "Circle"})
	wantCode(t, err, failure.Unsupported, "")
}

// csharpServers are the C# servers as the shipped csharp.yaml lists them:
// roslyn-language-server when installed, else csharp-ls.
var csharpServers = Config{Servers: []Config{
	{Command: "roslyn-language-server", Args: []string{"--stdio", "--logLevel", "Information", "--extensionLogDirectory", ".langhost/roslyn-logs"},
		Dialect: DialectRoslyn, RootMarkers: []string{"*.sln", "*.slnx", "*.csproj"}, LanguageIDs: map[string]string{".cs": "csharp"}},
	{Command: "csharp-ls", Dialect: DialectCSharpLS, RootMarkers: []string{"*.sln", "*.slnx", "*.csproj"}, LanguageIDs: map[string]string{".cs": "csharp"}},
}}

// Without roslyn-language-server the engine runs csharp-ls, with the
// csharp-ls dialect: it opens nothing (csharp-ls finds the solution), does
// not wait for Roslyn's projectInitializationComplete, and its first call
// sees the loaded solution. What the client sends while the server loads
// is only observable on the scripted peer, installed as csharp-ls (which
// then behaves like csharp-ls, logging every message it receives with its
// load state); what the server answers is TestCSharpLSChosenWhenRoslynIsMissing's,
// on real csharp-ls.
func TestCSharpLSDialectWhenRoslynIsMissing(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "fake.log")
	t.Setenv("FAKEROSLYN_LOG", logPath)
	t.Setenv("FAKEROSLYN_LOAD_DELAY", "300ms")
	t.Setenv("PATH", roslyntest.Install(t, "csharp-ls")) // no roslyn-language-server
	root := copyTree(t, roslyntest.Shapes())
	e := openEngine(t, root, "csharp", csharpServers)

	st, err := e.Status(t.Context())
	if err != nil || st.Server != "csharp-ls" || !st.Ready {
		t.Fatalf("status = %+v, %v; want csharp-ls ready", st, err)
	}
	mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "IShape"})
	mustInvoke(t, e, "diagnostics", map[string]any{"file": "src/Shapes.App/Broken.cs"})

	log := readLog(t, logPath)
	for _, bad := range []string{"solution/open", "project/open", "does not know"} {
		if strings.Contains(log, bad) {
			t.Errorf("the client sent Roslyn's notifications to csharp-ls (%q in its log):\n%s", bad, log)
		}
	}
	// Start-up made the server load with one request, the symbols of a
	// file that does not exist, and waited for the load: no operation
	// reached the server before it.
	const probe = "request textDocument/documentSymbol held until the solution has loaded"
	loaded := strings.Index(log, "solution loaded")
	if loaded < 0 {
		t.Fatalf("fake log lacks %q:\n%s", "solution loaded", log)
	}
	if n := strings.Count(log[:loaded], probe); n != 1 {
		t.Errorf("start-up sent %d held documentSymbol requests before the load, want 1:\n%s", n, log)
	}
	for _, l := range strings.Split(log[:loaded], "\n") {
		if strings.Contains(l, "request ") && !strings.Contains(l, probe) && !strings.Contains(l, "request initialize") {
			t.Errorf("a request reached csharp-ls before its solution loaded: %s", l)
		}
	}
}

// TestCSharpLSChosenWhenRoslynIsMissing: with the C# servers as the
// shipped csharp.yaml lists them and roslyn-language-server not installed,
// the engine runs real csharp-ls, and answers from the loaded solution.
func TestCSharpLSChosenWhenRoslynIsMissing(t *testing.T) {
	requireCSharpLS(t)
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "roslyn-language-server")); err != nil {
			path = append(path, dir)
		}
	}
	t.Setenv("PATH", strings.Join(path, string(os.PathListSeparator)))
	root := copyTree(t, csharpls.Zoo())
	e := openEngine(t, root, "csharp", csharpServers)
	st, err := e.Status(t.Context())
	if err != nil || st.Server != "csharp-ls" || !st.Ready {
		t.Fatalf("status = %+v, %v; want csharp-ls ready", st, err)
	}
	out := mustInvoke(t, e, "find_implementations", map[string]any{"symbol": "IAnimal", "kind": "interface"})
	if got := locOf(t, out, "implementations.0"); got != "src/Zoo.Core/Animal.cs:3:23" {
		t.Errorf("implementations = %s", dump(out))
	}
	out = mustInvoke(t, e, "type_hierarchy", map[string]any{"symbol": "Cat", "kind": "class", "direction": "supertypes"})
	if get(t, out, "root.supertypes.0.name") != "Animal" {
		t.Errorf("type_hierarchy of Cat = %s", dump(out))
	}
}

// With neither server installed, the error names both.
func TestNoCSharpServerInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := openErr(t, csharpServers, t.TempDir())
	fe := wantCode(t, err, failure.Precondition, "")
	for _, want := range []string{`"roslyn-language-server", "csharp-ls"`, "langhost prereqs --check x"} {
		if !strings.Contains(fe.Error(), want) {
			t.Errorf("error %q lacks %q", fe.Error(), want)
		}
	}
}

// readLog returns the fake's log.
func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// logHas reports whether the lines of log contain each of want, in order.
func logHas(log string, want ...string) bool {
	lines := strings.Split(log, "\n")
	i := 0
	for _, w := range want {
		j := slices.IndexFunc(lines[i:], func(l string) bool { return strings.Contains(l, w) })
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return true
}

// rng is an LSP range on the wire (0-based).
func rng(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
}
