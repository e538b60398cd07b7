package semantic

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi"
)

// BenchmarkTransaction measures the overhead of a transaction on a warm
// gopls: a one-file edit_file with dry_run (preconditions, in-memory
// apply, diagnostics before and after, dependents, overlays reverted),
// which is everything but the write. "accepted" also writes and records
// the edit, alternating two contents so each run changes the file.
func BenchmarkTransaction(b *testing.B) {
	requireTool(b, "gopls")
	root := copyTree(b, filepath.Join("testdata", "gomod"))
	{
		{
			e := openEngine(b, root, "go", goplsConfig)
			ctx := context.Background()
			edit := func(from, to string, dryRun bool) []byte {
				in, _ := json.Marshal(map[string]any{"file": "calc/calc.go", "dry_run": dryRun,
					"edits": []map[string]string{{"old_text": from, "new_text": to}}})
				return in
			}
			run := func(b *testing.B, in []byte) {
				if _, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: "edit_file", Input: in, Confirmed: true}, nil); err != nil {
					b.Fatal(err)
				}
			}
			run(b, edit("// A calls B.", "// A calls B!", true)) // warm up
			b.Run("dry_run", func(b *testing.B) {
				in := edit("// A calls B.", "// A calls B!", true)
				for b.Loop() {
					run(b, in)
				}
			})
			b.Run("accepted", func(b *testing.B) {
				there, back := edit("// A calls B.", "// A calls B!", false), edit("// A calls B!", "// A calls B.", false)
				i := 0
				for b.Loop() {
					if i%2 == 0 {
						run(b, there)
					} else {
						run(b, back)
					}
					i++
				}
				if i%2 == 1 {
					run(b, back)
				}
			})
		}
	}
}
