package dotnet

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/host/failure"
)

// relSlash returns target relative to root with forward slashes, or target
// itself (slashed) when it cannot be made relative.
func relSlash(root, target string) string {
	rel, err := filepath.Rel(filepath.FromSlash(root), filepath.FromSlash(target))
	if err != nil {
		return filepath.ToSlash(target)
	}
	return filepath.ToSlash(rel)
}

// absRoot returns root as a clean absolute slash path; MSBuild reserved
// properties such as MSBuildThisFileDirectory are absolute, so every
// evaluation works on absolute paths and only results are made relative.
func absRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", failure.Wrap(failure.InvalidInput, err, "workspace root %q", root)
	}
	return filepath.ToSlash(abs), nil
}

// didYouMean returns the candidates closest to name (edit distance at
// most a third of its length, or a case-insensitive prefix match).
func didYouMean(name string, candidates []string) []string {
	var out []string
	lname := strings.ToLower(name)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if strings.HasPrefix(lc, lname) || strings.HasPrefix(lname, lc) || editDistance(lname, lc) <= max(1, len(name)/3) {
			out = append(out, c)
		}
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func filepathToSlash(p string) string { return filepath.ToSlash(p) }

func fileExists(p string) bool {
	st, err := os.Stat(filepath.FromSlash(p))
	return err == nil && !st.IsDir()
}

// msbuildPath turns an MSBuild path (backslashes, possibly relative to dir)
// into a clean absolute slash path.
func msbuildPath(dir, p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		p = filepath.ToSlash(dir) + "/" + p
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
}

// skipDir reports whether a directory is never part of a C# workspace scan.
func skipDir(name string) bool {
	switch strings.ToLower(name) {
	case "bin", "obj", ".git", "node_modules", ".vs", ".idea":
		return true
	}
	return false
}
