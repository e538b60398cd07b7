package semantic

import "github.com/langhost/langhost/internal/unidiff"

// UnifiedDiff returns a unified diff of a and b labelled a/path and b/path,
// or "" when they are equal. The output applies with `git apply` and
// `patch -p1`, every hunk where its header says.
func UnifiedDiff(path, a, b string) string {
	return unidiff.Diff("a/"+path, "b/"+path, a, b)
}
