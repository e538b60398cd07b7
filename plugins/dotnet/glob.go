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
