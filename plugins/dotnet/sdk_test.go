package dotnet

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAgainstSDK cross-checks the project operations with the .NET SDK's own
// evaluation: `dotnet sln list` for a solution's projects and `dotnet msbuild
// -getProperty -getItem` for each project and each of its target frameworks
// (multi-targeting, conditions on $(TargetFramework) and $(Configuration),
// Compile Remove, Link, central package management). Evaluation needs no
// restore and no target pack, so net8.0 is evaluated on a machine with only
// the .NET 10 SDK. It fails, not skips, where dotnet is on PATH.
func TestAgainstSDK(t *testing.T) {
	if _, err := exec.LookPath("dotnet"); err != nil {
		t.Skip("dotnet is not on PATH: install the .NET SDK 10 to cross-check the project operations")
	}
	t.Parallel()
	for _, fixture := range []string{"multi", "sdk", "slnx"} {
		t.Run(fixture, func(t *testing.T) {
			// A copy, so that nothing msbuild writes lands in testdata.
			root := copyTree(t, filepath.Join("testdata", fixture))
			ctx := context.Background()
			ws, err := ListProjects(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			for _, sol := range ws.Solutions {
				var ours []string
				for _, p := range sol.Projects {
					ours = append(ours, p.Path)
				}
				if theirs := sdkSolutionProjects(t, root, sol.Path); !equalSets(ours, theirs) {
					t.Errorf("%s: projects = %q, dotnet sln list = %q", sol.Path, ours, theirs)
				}
			}
			if len(ws.Projects) == 0 {
				t.Fatal("no projects")
			}
			for _, p := range ws.Projects {
				crossCheckProject(ctx, t, root, p.Path)
			}
		})
	}
}

// crossCheckProject compares one project, for each of its target
// frameworks, with msbuild's evaluation.
func crossCheckProject(ctx context.Context, t *testing.T, root, project string) {
	t.Helper()
	outer := sdkEvaluate(t, root, project, "")
	frameworks := splitList(outer.Properties["TargetFrameworks"])
	if len(frameworks) == 0 {
		frameworks = []string{outer.Properties["TargetFramework"]}
	}
	for _, tf := range frameworks {
		sdk := outer
		if len(splitList(outer.Properties["TargetFrameworks"])) > 0 {
			sdk = sdkEvaluate(t, root, project, tf)
		}
		what := project + " (" + tf + ")"
		p, err := ProjectInfo(ctx, root, project, Options{TargetFramework: tf})
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if !slices.Equal(p.TargetFrameworks, frameworks) || p.TargetFramework != tf {
			t.Errorf("%s: target frameworks %q evaluated for %q; msbuild: %q", what, p.TargetFrameworks, p.TargetFramework, frameworks)
		}
		for prop, ours := range map[string]string{
			"LangVersion": p.LangVersion, "Nullable": p.Nullable, "OutputType": p.OutputType,
			"RootNamespace": p.RootNamespace, "AssemblyName": p.AssemblyName,
		} {
			// The SDK fills in defaults (OutputType Library, RootNamespace
			// and AssemblyName from the file name); a value the project
			// files set must match.
			if ours != "" && ours != sdk.Properties[prop] {
				t.Errorf("%s: %s = %q, msbuild: %q", what, prop, ours, sdk.Properties[prop])
			}
		}

		var compile []string
		for _, it := range sdk.Items["Compile"] {
			compile = append(compile, rel(t, root, it["FullPath"]))
		}
		if !equalSets(p.SourceFiles, compile) {
			t.Errorf("%s: source files = %q, msbuild Compile = %q", what, p.SourceFiles, compile)
		}

		var refs, ourRefs []string
		for _, it := range sdk.Items["ProjectReference"] {
			refs = append(refs, rel(t, root, it["FullPath"]))
		}
		for _, r := range p.ProjectReferences {
			ourRefs = append(ourRefs, r.Path)
		}
		if !equalSets(ourRefs, refs) {
			t.Errorf("%s: project references = %q, msbuild = %q", what, ourRefs, refs)
		}

		// The SDK's implicit references (NETStandard.Library for
		// netstandard2.0) come from its targets, not the project files.
		var pkgs, ourPkgs []string
		versions := map[string]string{}
		for _, it := range sdk.Items["PackageReference"] {
			if it["IsImplicitlyDefined"] == "true" {
				continue
			}
			pkgs = append(pkgs, it["Identity"])
			if v := it["VersionOverride"]; v != "" {
				versions[it["Identity"]] = v
			} else if v := it["Version"]; v != "" {
				versions[it["Identity"]] = v
			}
		}
		for _, r := range p.PackageReferences {
			ourPkgs = append(ourPkgs, r.ID)
			if v, ok := versions[r.ID]; ok && r.Version != v {
				t.Errorf("%s: %s version %q, msbuild %q", what, r.ID, r.Version, v)
			}
		}
		if !equalSets(ourPkgs, pkgs) {
			t.Errorf("%s: packages = %q, msbuild = %q", what, ourPkgs, pkgs)
		}
		if len(p.Unevaluated) > 0 {
			t.Errorf("%s: unevaluated conditions %+v", what, p.Unevaluated)
		}
	}
}

// sdkEval is the JSON that dotnet msbuild -getProperty -getItem prints.
type sdkEval struct {
	Properties map[string]string
	Items      map[string][]map[string]string
}

func sdkEvaluate(t *testing.T, root, project, tf string) sdkEval {
	t.Helper()
	args := []string{"msbuild", project, "-nologo"}
	if tf != "" {
		args = append(args, "-property:TargetFramework="+tf)
	}
	for _, p := range []string{"TargetFramework", "TargetFrameworks", "LangVersion", "Nullable", "OutputType", "RootNamespace", "AssemblyName"} {
		args = append(args, "-getProperty:"+p)
	}
	for _, i := range []string{"Compile", "PackageReference", "ProjectReference"} {
		args = append(args, "-getItem:"+i)
	}
	out := dotnet(t, root, args...)
	var ev sdkEval
	if err := json.Unmarshal(out, &ev); err != nil {
		t.Fatalf("dotnet %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return ev
}

// sdkSolutionProjects lists a solution's projects as dotnet sln list does:
// a header of two lines, then one path a line relative to the solution.
func sdkSolutionProjects(t *testing.T, root, sln string) []string {
	t.Helper()
	out := dotnet(t, root, "sln", sln, "list")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "---") {
		t.Fatalf("dotnet sln %s list: unexpected output\n%s", sln, out)
	}
	dir := filepath.Dir(sln)
	var paths []string
	for _, l := range lines[2:] {
		paths = append(paths, filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(strings.TrimSpace(l)))))
	}
	return paths
}

func dotnet(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("dotnet", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dotnet %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

func rel(t *testing.T, root, abs string) string {
	t.Helper()
	r, err := filepath.Rel(root, abs)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

func equalSets(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}
