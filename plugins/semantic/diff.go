package semantic

import (
	udiff "github.com/aymanbagabas/go-udiff"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// UnifiedDiff returns a unified diff of a and b labelled a/path and b/path,
// or "" when they are equal. The output applies with `git apply` and
// `patch -p1`.
func UnifiedDiff(path, a, b string) string {
	if a == b {
		return ""
	}
	// Lines diffs whole lines, which is all a preview shows and much
	// cheaper than a diff by character on large files.
	d, err := udiff.ToUnified("a/"+path, "b/"+path, a, udiff.Lines(a, b), diffContext)
	if err != nil {
		// The edits come from a and b themselves, so they always apply.
		panic("semantic: unified diff of computed edits: " + err.Error())
	}
	return d
}
