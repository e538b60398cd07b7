package config

import (
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/langhost/langhost/internal/slnroot"
)

// RootMarkers returns the names of the files and directories that make a directory a
// workspace root when langhost starts below it: langhost's own config,
// version control, and the project files and language servers' root
// markers of the shipped specs (TestRootMarkersCoverShippedSpecs keeps them
// in step). A glob matches a base name.
func RootMarkers() []string { return slices.Clone(rootMarkers) }

var rootMarkers = []string{
	".langhost.yaml", ".langhost", ".git", ".hg", ".svn",
	"go.mod", "go.work",
	"Cargo.toml", "Cargo.lock",
	"package.json", "tsconfig.json", "jsconfig.json",
	"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json",
	"*.sln", "*.slnx", "*.csproj", "*.fsproj", "Directory.Build.props", "global.json",
	"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
	"package.yaml", "*.cabal", "stack.yaml",
	"elm.json",
	"Makefile", "CMakeLists.txt", "meson.build", "compile_commands.json", "compile_flags.txt", ".clangd",
}

// findRoot makes the workspace the root of the project the command was
// started in, when that is above it: running from a subdirectory must not
// make the subdirectory the workspace ("outside the workspace").
func (c *Config) findRoot() {
	root, marker := FindRoot(c.Workspace, rootMarkers)
	abs, err := filepath.Abs(c.Workspace)
	switch {
	case err != nil:
	case marker != "" && root != abs:
		c.Workspace, c.origins["workspace"] = root, "found upward ("+marker+")"
	case marker != "":
		c.origins["workspace"] = "current directory (" + marker + ")"
	default:
		c.origins["workspace"] = "current directory (no project marker here or above)"
	}
}

// FindRoot returns the workspace root for a command started in dir: the
// nearest directory at or above dir that holds one of markers, as gopls and
// git find theirs (an absolute path), and the marker that decided it.
// Without one it returns dir itself and "".
//
// The climb stops below the user's home directory (a dotfiles repository
// at ~ must not make every project's root ~) and at a directory another
// user could have planted a marker in: one that is world-writable (/tmp) or
// belongs to neither the user nor root.
func FindRoot(dir string, markers []string) (root, marker string) {
	start, err := filepath.Abs(dir)
	if err != nil {
		return dir, ""
	}
	home, _ := os.UserHomeDir()
	for d := start; ; {
		if d != start && home != "" && d == filepath.Clean(home) {
			break
		}
		if !safeAncestor(d) {
			break
		}
		if m := markerIn(d, markers); m != "" {
			if projects := slnroot.Projects(d); len(projects) > 0 {
				return projectRoot(d, projects, home)
			}
			return d, m
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return dir, ""
}

// projectRoot is the root for a directory holding a .NET project: the
// directory of the solution that lists the project, as C# servers load
// it (one project alone would hide its callers in the others, and a
// rename there would break their build), else the repository's root,
// else the project's directory.
func projectRoot(dir string, projects []string, home string) (string, string) {
	climb := func(d string) bool {
		return (home == "" || d != filepath.Clean(home)) && safeAncestor(d)
	}
	if sln := slnroot.Containing(projects, climb); sln != "" {
		return filepath.Dir(sln), filepath.Base(sln)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if m := markerIn(d, []string{".git"}); m != "" {
			return d, m
		}
		if parent := filepath.Dir(d); parent == d || !climb(parent) {
			break
		}
	}
	return dir, filepath.Base(projects[0])
}

// markerIn returns the first entry of dir (a file or a directory, never a
// symlink, which may point anywhere) that matches a marker.
func markerIn(dir string, markers []string) string {
	var globs []string
	for _, m := range markers {
		if m == "" || filepath.Base(m) != m {
			continue
		}
		if _, err := path.Match(m, ""); err != nil {
			continue
		}
		if isGlob(m) {
			globs = append(globs, m)
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, m)); err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
			return m
		}
	}
	if len(globs) == 0 {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if !e.Type().IsRegular() && !e.IsDir() {
			continue
		}
		if slices.ContainsFunc(globs, func(g string) bool { ok, _ := path.Match(g, e.Name()); return ok }) {
			return e.Name()
		}
	}
	return ""
}

func isGlob(s string) bool {
	return slices.ContainsFunc([]rune(s), func(r rune) bool { return r == '*' || r == '?' || r == '[' })
}
