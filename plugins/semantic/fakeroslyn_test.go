package semantic

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/plugins/roslyn/roslyntest"
)

// TestFakeRoslyn runs the roslyn dialect against plugins/roslyn/fakeroslyn,
// the scripted peer that replays Roslyn's handshake and message shapes.
func TestFakeRoslyn(t *testing.T) {
	bin := roslyntest.Build(t)
	t.Setenv("FAKEROSLYN_LOAD_DELAY", "300ms")
	t.Setenv("FAKEROSLYN_FAIL_30099", "2")
	root := copyTree(t, filepath.Join("..", "roslyn", "testdata", "Shapes"))
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
