package semantic

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/langhost/langhost/plugins/lsp"
	"github.com/langhost/langhost/plugins/pluginapi"
)

// BenchmarkFindReferences compares a warm find_references through the
// Engine (name resolution, document sync, snippets, containing members)
// with the bare textDocument/references request through the client.
func BenchmarkFindReferences(b *testing.B) {
	requireTool(b, "gopls")
	root := copyTree(b, filepath.Join("testdata", "gomod"))
	e := openEngine(b, root, "go", goplsConfig)
	ctx := context.Background()
	byPosition, _ := json.Marshal(map[string]any{"file": "calc/calc.go", "line": 11, "column": 6})
	byName, _ := json.Marshal(map[string]any{"symbol": "TotalArea"})
	for _, in := range [][]byte{byPosition, byName} { // warm up
		if _, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: "find_references", Input: in}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("engine/position", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: "find_references", Input: byPosition}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("engine/name", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Invoke(ctx, pluginapi.InvokeRequest{Operation: "find_references", Input: byName}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-lsp", func(b *testing.B) {
		params := map[string]any{
			"textDocument": lsp.TextDocumentIdentifier{URI: lsp.URIFromPath(filepath.Join(root, "calc", "calc.go"))},
			"position":     lsp.Position{Line: 10, Character: 5},
			"context":      map[string]bool{"includeDeclaration": false},
		}
		for b.Loop() {
			var locs []lsp.Location
			if err := e.sess.srv.Call(ctx, "textDocument/references", params, &locs); err != nil || len(locs) != 2 {
				b.Fatal(err, locs)
			}
		}
	})
}
