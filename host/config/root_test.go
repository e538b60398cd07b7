package config

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/languages"
	"github.com/spf13/pflag"
)

func TestFindRoot(t *testing.T) {
	tests := []struct {
		name       string
		files      []string // a name ending in / is a directory
		start      string
		root       string // relative to the tree; "" means start itself
		wantMarker string
	}{
		{"go module", []string{"go.mod", "internal/x/"}, "internal/x", ".", "go.mod"},
		{"git repository", []string{".git/", "a/b/c/"}, "a/b/c", ".", ".git"},
		{"nearest wins", []string{".git/", "web/package.json", "web/src/"}, "web/src", "web", "package.json"},
		{"glob marker", []string{"App.csproj", "Models/"}, "Models", ".", "App.csproj"},
		{"at the root", []string{"go.mod"}, ".", ".", "go.mod"},
		{"langhost config", []string{".langhost.yaml", "x/"}, "x", ".", ".langhost.yaml"},
		{"no marker", []string{"a/b/"}, "a/b", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := tree(t, tt.files...)
			start := filepath.Join(top, tt.start)
			root, marker := FindRoot(start, rootMarkers)
			want := start
			if tt.root != "" {
				want = filepath.Join(top, tt.root)
			}
			if root != want || marker != tt.wantMarker {
				t.Errorf("FindRoot = %s, %q; want %s, %q", root, marker, want, tt.wantMarker)
			}
		})
	}
}

// Hostile trees: a marker that is a symlink (it may point anywhere) does
// not count, and a marker another user could plant in a world-writable
// directory above the project (/tmp/.git) is never reached.
func TestFindRootHostile(t *testing.T) {
	top := tree(t, "proj/sub/")
	if err := os.Symlink("/etc", filepath.Join(top, "proj", ".git")); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(top, "proj", "sub")
	if root, marker := FindRoot(start, rootMarkers); root != start || marker != "" {
		t.Errorf("a symlinked marker made %s the root (%s)", root, marker)
	}

	shared := tree(t, ".git/", "mine/sub/")
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	start = filepath.Join(shared, "mine", "sub")
	if root, marker := FindRoot(start, rootMarkers); root != start || marker != "" {
		t.Errorf("a marker in a world-writable directory made %s the root (%s)", root, marker)
	}
}

// Load finds the root upward only when nothing named a workspace: a flag
// (or the environment, or a config file) still wins.
func TestLoadFindsRootUpward(t *testing.T) {
	top := tree(t, "go.mod", "pkg/cmd/")
	t.Chdir(filepath.Join(top, "pkg", "cmd"))
	s := newSetup(t)
	s.flags = pflag.NewFlagSet("langhost", pflag.ContinueOnError)
	s.flags.String("workspace", ".", "")
	c := s.mustLoad()
	if c.Workspace != top || c.Origin("workspace") != "found upward (go.mod)" {
		t.Errorf("workspace %s from %s, want %s found upward", c.Workspace, c.Origin("workspace"), top)
	}

	// config show says how the root was found when it is where langhost
	// started, too.
	t.Chdir(top)
	if c := s.mustLoad(); c.Origin("workspace") != "current directory (go.mod)" {
		t.Errorf("at the root: workspace from %q", c.Origin("workspace"))
	}
	t.Chdir(filepath.Join(top, "pkg", "cmd"))

	if err := s.flags.Set("workspace", "."); err != nil {
		t.Fatal(err)
	}
	if c := s.mustLoad(); c.Workspace != "." || c.Origin("workspace") != "flag --workspace" {
		t.Errorf("--workspace . gave %s from %s", c.Workspace, c.Origin("workspace"))
	}
	s.flags = pflag.NewFlagSet("langhost", pflag.ContinueOnError)
	s.env["LANGHOST_WORKSPACE"] = "."
	if c := s.mustLoad(); c.Workspace != "." {
		t.Errorf("LANGHOST_WORKSPACE=. gave %s from %s", c.Workspace, c.Origin("workspace"))
	}
}

// Every project file and root marker of a shipped spec finds a root.
func TestRootMarkersCoverShippedSpecs(t *testing.T) {
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded"}})
	for _, f := range set.Languages {
		names := slices.Clone(f.Language.ProjectFiles)
		if f.Semantic != nil {
			servers := append([]*spec.Server{&f.Semantic.Server}, f.Semantic.Candidates...)
			for _, s := range servers {
				names = append(names, s.RootMarkers...)
			}
		}
		for _, n := range names {
			if n != "" && path.Base(n) == n && !slices.Contains(rootMarkers, n) {
				t.Errorf("%s: %s is not in rootMarkers", f.Language.ID, n)
			}
		}
	}
}

// tree writes empty files (a name ending in / is a directory).
func tree(t *testing.T, names ...string) string {
	t.Helper()
	top := t.TempDir()
	for _, n := range names {
		p := filepath.Join(top, filepath.FromSlash(n))
		dir := p
		if n[len(n)-1] != '/' {
			dir = filepath.Dir(p)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if dir != p {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return top
}

// TestFindRootDotnetSolution: started in a project's directory, the root
// is the directory of the solution that lists the project (.sln with
// backslashes, .slnx with slashes), not the project's; a solution that
// does not list it does not count; without one the repository's root.
func TestFindRootDotnetSolution(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		start      string
		root       string
		wantMarker string
	}{
		{"slnx two levels up", map[string]string{
			"Shop.slnx":                      `<Solution><Project Path="src/Shop.Core/Shop.Core.csproj" /></Solution>`,
			"src/Shop.Core/Shop.Core.csproj": "<Project/>",
			"src/Shop.Core/Models/Cart.cs":   "",
			"src/Shop.App/Shop.App.csproj":   "<Project/>",
		}, "src/Shop.Core/Models", ".", "Shop.slnx"},
		{"sln with backslashes", map[string]string{
			"Zoo.sln":                      `Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Zoo.Core", "src\Zoo.Core\Zoo.Core.csproj", "{C1A208D0-076F-4A88-BDCC-ED1F5C7A8713}"`,
			"src/Zoo.Core/Zoo.Core.csproj": "<Project/>",
		}, "src/Zoo.Core", ".", "Zoo.sln"},
		{"a solution of other projects", map[string]string{
			".git/HEAD":              "",
			"other/Other.sln":        `Project("{X}") = "Lib", "Lib\Lib.csproj", "{Y}"`,
			"other/Lib/Lib.csproj":   "<Project/>",
			"tools/Tool/Tool.csproj": "<Project/>",
		}, "tools/Tool", ".", ".git"},
		{"lone project", map[string]string{"App/App.csproj": "<Project/>"}, "App", "App", "App.csproj"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(top, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			start := filepath.Join(top, tt.start)
			if err := os.MkdirAll(start, 0o755); err != nil {
				t.Fatal(err)
			}
			root, marker := FindRoot(start, rootMarkers)
			if want := filepath.Join(top, tt.root); root != want || marker != tt.wantMarker {
				t.Errorf("FindRoot = %s, %q; want %s, %q", root, marker, want, tt.wantMarker)
			}
		})
	}
}
