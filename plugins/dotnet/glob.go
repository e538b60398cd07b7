package dotnet

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

func hasWildcard(p string) bool { return strings.ContainsAny(p, "*?") }

// globFiles expands an absolute slash pattern with MSBuild wildcards
// (`*`, `?` within a segment, `**` across segments) to the existing files
// inside the workspace it matches. A pattern without wildcards yields
// itself when the file exists. Matches that lead outside the workspace (the
// pattern's fixed part, or a symlinked file) are returned in outside, not
// in files; symlinked directories are not descended into.
func (t *tree) globFiles(pattern string) (files, outsideMatches []string) {
	if !hasWildcard(pattern) {
		switch t.lookup(pattern) {
		case kindFile:
			return []string{pattern}, nil
		case kindOutside:
			return nil, []string{pattern}
		}
		return nil, nil
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
	switch t.lookup(base) {
	case kindDir:
	case kindOutside:
		return nil, []string{pattern}
	default:
		return nil, nil
	}
	rest := segs[i:]
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
		if !matchSegments(rest, strings.Split(rel, "/")) {
			return nil
		}
		slash := filepath.ToSlash(p)
		if d.Type().IsRegular() {
			files = append(files, slash)
			return nil
		}
		switch t.lookup(slash) {
		case kindFile:
			files = append(files, slash)
		case kindOutside:
			outsideMatches = append(outsideMatches, slash)
		}
		return nil
	})
	return files, outsideMatches
}

// matchGlob reports whether the absolute slash path name matches pattern.
func matchGlob(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// matchSegments matches name segments against pattern segments, where a
// "**" segment matches any number of name segments. It remembers which
// (pattern, name) suffix pairs failed, so that patterns with many "**"
// take time proportional to len(pat)*len(name), not exponential in the
// number of "**".
func matchSegments(pat, name []string) bool {
	failed := map[[2]int]bool{}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(pat) {
			if pat[i] == "**" {
				for i+1 < len(pat) && pat[i+1] == "**" {
					i++
				}
				if failed[[2]int{i, j}] {
					return false
				}
				for k := j; k <= len(name); k++ {
					if match(i+1, k) {
						return true
					}
				}
				failed[[2]int{i, j}] = true
				return false
			}
			if j == len(name) {
				return false
			}
			if ok, err := path.Match(pat[i], name[j]); err != nil || !ok {
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(name)
	}
	return match(0, 0)
}
