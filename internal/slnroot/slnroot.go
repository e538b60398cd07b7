// Package slnroot finds the .NET solution a project belongs to: the root
// a C# language server must be started at to see the whole solution, as
// an IDE opens it, and not the one project of the directory it began in.
package slnroot

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxSolutionSize bounds the bytes read of a solution file: real ones are
// kilobytes, a hostile one must not be read whole.
const maxSolutionSize = 8 << 20

// projectExts are the extensions of the project files a solution lists.
var projectExts = []string{".csproj", ".fsproj", ".vbproj"}

// Projects returns the project files directly in dir, sorted.
func Projects(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && slices.Contains(projectExts, strings.ToLower(filepath.Ext(e.Name()))) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Solutions returns the .sln and .slnx files directly in dir, sorted.
func Solutions(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if ext := strings.ToLower(filepath.Ext(e.Name())); e.Type().IsRegular() && (ext == ".sln" || ext == ".slnx") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// Containing returns the nearest solution file at or above the directory
// of the project files projects (absolute paths, all in one directory)
// that lists one of them, and "" when none does. climb reports whether
// the search may go on to a directory above the project's (the caller's
// limits: the user's home, directories others could write).
func Containing(projects []string, climb func(dir string) bool) string {
	if len(projects) == 0 {
		return ""
	}
	for d := filepath.Dir(projects[0]); ; {
		for _, sln := range Solutions(d) {
			if Lists(sln, projects) {
				return sln
			}
		}
		parent := filepath.Dir(d)
		if parent == d || !climb(parent) {
			return ""
		}
		d = parent
	}
}

// Lists reports whether the solution file sln lists one of projects: its
// text names the project's path relative to the solution's directory, as
// a .sln ("src\Shop.Core\Shop.Core.csproj") and a .slnx
// (Path="src/Shop.Core/Shop.Core.csproj") both do.
func Lists(sln string, projects []string) bool {
	f, err := os.Open(sln)
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSolutionSize))
	if err != nil {
		return false
	}
	text := strings.ToLower(strings.ReplaceAll(string(data), `\`, "/"))
	for _, p := range projects {
		rel, err := filepath.Rel(filepath.Dir(sln), p)
		if err != nil {
			continue
		}
		rel = strings.ToLower(filepath.ToSlash(rel))
		for _, form := range []string{`"` + rel + `"`, `"./` + rel + `"`} {
			if strings.Contains(text, form) {
				return true
			}
		}
	}
	return false
}
