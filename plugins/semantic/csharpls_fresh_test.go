package semantic

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSharpLSDiagnosticsFollowDisk checks that a file's diagnostics,
// pulled from csharp-ls without opening the file, and its outline, cached
// between calls, follow the file as another program rewrites it on disk
// between calls (within the racy window too: the rewrites keep no delay).
func TestCSharpLSDiagnosticsFollowDisk(t *testing.T) {
	requireCSharpLS(t)
	root := copyTree(t, filepath.Join("testdata", "zoo"))
	e := openEngine(t, root, "csharp", csharpLSConfig)
	const dog = "src/Zoo.Core/Dog.cs"
	good := readFile(t, root, dog)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, dog), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errorsOf := func() (any, string) {
		t.Helper()
		out := mustInvoke(t, e, "diagnostics", map[string]any{"file": dog})
		if get(t, out, "mode") != "pull" {
			t.Fatalf("mode = %v, want pull", get(t, out, "mode"))
		}
		return get(t, out, "counts.error"), dump(out)
	}
	if n, out := errorsOf(); n != 0 {
		t.Fatalf("errors before any change: %s", out)
	}
	for round := range 2 {
		write(good + "\nnamespace Zoo.Core { public class Stray { public int M() => missingName; } }\n")
		if n, out := errorsOf(); n == 0 || n == nil || !strings.Contains(out, "CS0103") {
			t.Fatalf("round %d: the error written on disk is not reported: %s", round, out)
		}
		// The outline, cached between calls, follows the file too.
		if out := dump(mustInvoke(t, e, "file_symbols", map[string]any{"file": dog})); !strings.Contains(out, "Stray") {
			t.Fatalf("round %d: file_symbols misses the class written on disk: %s", round, out)
		}
		write(good)
		if n, out := errorsOf(); n != 0 {
			t.Fatalf("round %d: the fixed file still has errors: %s", round, out)
		}
		if out := dump(mustInvoke(t, e, "file_symbols", map[string]any{"file": dog})); strings.Contains(out, "Stray") {
			t.Fatalf("round %d: file_symbols still shows the class removed on disk: %s", round, out)
		}
	}
	if n := e.sess.openCount(); n != 0 {
		t.Errorf("%d documents left open", n)
	}
}
