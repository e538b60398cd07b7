package dotnet

import (
	"path/filepath"
	"strings"

	"github.com/langhost/langhost/internal/textdist"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
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
		if strings.HasPrefix(lc, lname) || strings.HasPrefix(lname, lc) || textdist.Levenshtein(lname, lc) <= max(1, len(name)/3) {
			out = append(out, c)
		}
	}
	return out
}

func filepathToSlash(p string) string { return filepath.ToSlash(p) }

// msbuildPath turns an MSBuild path (backslashes, possibly relative to dir)
// into a clean absolute slash path.
func msbuildPath(dir, p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		p = filepath.ToSlash(dir) + "/" + p
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
}
