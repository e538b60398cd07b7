package dotnet

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

func hasWildcard(p string) bool { return strings.ContainsAny(p, "*?") }

// globFiles expands an absolute slash pattern with MSBuild wildcards
// (`*`, `?` within a segment, `**` across segments) to the existing files it
// matches. A pattern without wildcards yields itself when the file exists.
func globFiles(pattern string) []string {
	if !hasWildcard(pattern) {
		if fileExists(pattern) {
			return []string{pattern}
		}
		return nil
	}
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs) && !hasWildcard(segs[i]) {
		i++
	}
	base := strings.Join(segs[:i], "/")
	if base == "" {
		base = "/"
	}
	rest := segs[i:]
	var out []string
	_ = filepath.WalkDir(filepath.FromSlash(base), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable directories simply contribute nothing
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel := relSlash(base, filepath.ToSlash(p))
		if matchSegments(rest, strings.Split(rel, "/")) {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	return out
}

// matchGlob reports whether the absolute slash path name matches pattern.
func matchGlob(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchSegments(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
