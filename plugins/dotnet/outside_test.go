package dotnet

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// hostileWorkspace builds a workspace whose solution and project name files
// outside it, directly and through symlinks, next to the outside directory
// holding them. Everything outside declares the namespace Pwned or sets
// properties to Pwned, so a test sees at once if any of it was read.
func hostileWorkspace(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = t.TempDir(), t.TempDir()
	rel, err := filepath.Rel(root, outside)
	if err != nil {
		t.Fatal(err)
	}
	rel = filepath.ToSlash(rel)
	files := map[string]string{
		outside + "/Evil.csproj":     `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><RootNamespace>Pwned</RootNamespace></PropertyGroup></Project>`,
		outside + "/Evil.props":      `<Project><PropertyGroup><RootNamespace>Pwned</RootNamespace><LangVersion>Pwned</LangVersion></PropertyGroup></Project>`,
		outside + "/Secret.cs":       "namespace Pwned;\n",
		outside + "/packages.config": `<packages><package id="Pwned" version="6.6.6" /></packages>`,
		root + "/Shop.sln": "Microsoft Visual Studio Solution File, Format Version 12.00\n" +
			`Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "App", "App\App.csproj", "{11111111-1111-4111-8111-111111111111}"` + "\nEndProject\n" +
			`Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Evil", "` + rel + `/Evil.csproj", "{22222222-2222-4222-8222-222222222222}"` + "\nEndProject\n" +
			`Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Linked", "linkproj\Evil.csproj", "{33333333-3333-4333-8333-333333333333}"` + "\nEndProject\n",
		root + "/App/App.csproj": `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <Import Project="` + outside + `/Evil.props" />
  <Import Project="../` + rel + `/Evil.props" />
  <Import Project="$(MSBuildToolsPath)\Microsoft.CSharp.targets" />
  <ItemGroup>
    <Compile Include="` + outside + `/**/*.cs" />
    <Compile Include="../` + rel + `/Secret.cs" />
    <ProjectReference Include="../` + rel + `/Evil.csproj" />
    <ProjectReference Include="../linkproj/Evil.csproj" />
  </ItemGroup>
</Project>`,
		root + "/App/Program.cs": "namespace App;\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		root + "/Directory.Build.props": outside + "/Evil.props",
		root + "/linkproj":              outside,
		root + "/App/Linked.cs":         outside + "/Secret.cs",
		root + "/App/packages.config":   outside + "/packages.config",
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestProjectNamesFilesOutside(t *testing.T) {
	root, outside := hostileWorkspace(t)
	rel, _ := filepath.Rel(root, outside)
	rel = filepath.ToSlash(rel)
	ctx := context.Background()

	p, err := ProjectInfo(ctx, root, "App", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.RootNamespace != "App" || p.LangVersion != "" || len(p.PackageReferences) != 0 || len(p.Imports) != 0 {
		t.Errorf("something outside the workspace was read: rootNamespace %q, langVersion %q, packages %v, imports %v",
			p.RootNamespace, p.LangVersion, p.PackageReferences, p.Imports)
	}
	if !reflect.DeepEqual(p.SourceFiles, []string{"App/Program.cs"}) {
		t.Errorf("sourceFiles = %q, want only App/Program.cs", p.SourceFiles)
	}
	want := []OutsideReference{
		{Kind: "Directory.Build.props", Path: "Directory.Build.props", File: "App/App.csproj"},
		{Kind: "Import", Path: rel + "/Evil.props", File: "App/App.csproj", Line: 3},
		{Kind: "Import", Path: rel + "/Evil.props", File: "App/App.csproj", Line: 4},
		{Kind: "Compile", Path: "App/Linked.cs", File: "App/App.csproj"},
		{Kind: "Compile", Path: rel + "/**/*.cs", File: "App/App.csproj", Line: 7},
		{Kind: "Compile", Path: rel + "/Secret.cs", File: "App/App.csproj", Line: 8},
		{Kind: "ProjectReference", Path: rel + "/Evil.csproj", File: "App/App.csproj", Line: 9},
		{Kind: "ProjectReference", Path: "linkproj/Evil.csproj", File: "App/App.csproj", Line: 10},
		{Kind: "packages.config", Path: "App/packages.config", File: "App/App.csproj"},
	}
	if !reflect.DeepEqual(p.OutsideWorkspace, want) {
		t.Errorf("outsideWorkspace =\n%s\nwant\n%s", jsonOf(t, p.OutsideWorkspace), jsonOf(t, want))
	}
	if !slices.Equal(p.UnresolvedImports, []string{`$(MSBuildToolsPath)\Microsoft.CSharp.targets`}) {
		t.Errorf("unresolvedImports = %q", p.UnresolvedImports)
	}
	for _, r := range p.ProjectReferences {
		if r.Exists || !r.OutsideWorkspace {
			t.Errorf("project reference %+v: want outsideWorkspace and not exists", r)
		}
	}

	graph, err := ProjectReferences(ctx, root, "App", true, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range graph.References {
		if r.Depth != 1 {
			t.Errorf("a reference outside the workspace was followed: %+v", r)
		}
	}

	ns, err := Namespaces(ctx, root, "App", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := jsonOf(t, ns); strings.Contains(s, "Pwned") {
		t.Errorf("namespaces read a file outside the workspace: %s", s)
	}
}

func TestSolutionNamesProjectsOutside(t *testing.T) {
	root, outside := hostileWorkspace(t)
	rel, _ := filepath.Rel(root, outside)
	rel = filepath.ToSlash(rel)
	ws, err := ListProjects(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	want := []ProjectSummary{
		{Name: "App", Path: "App/App.csproj", Exists: true},
		{Name: "Evil", Path: rel + "/Evil.csproj", OutsideWorkspace: true},
		{Name: "Linked", Path: "linkproj/Evil.csproj", OutsideWorkspace: true},
	}
	slices.SortFunc(want, func(a, b ProjectSummary) int { return strings.Compare(a.Path, b.Path) })
	if !reflect.DeepEqual(ws.Projects, want) {
		t.Errorf("projects =\n%s\nwant\n%s", jsonOf(t, ws.Projects), jsonOf(t, want))
	}

	tests := []struct{ name, project string }{
		{"listed project outside", "Evil"},
		{"listed project through a symlink", "Linked"},
		{"path outside", rel + "/Evil.csproj"},
		{"absolute path outside", outside + "/Evil.csproj"},
		{"path through a symlinked directory", "linkproj/Evil.csproj"},
		{"directory through a symlink", "linkproj"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ProjectInfo(context.Background(), root, tt.project, Options{})
			var fe *failure.Error
			if !asFailure(err, &fe) || fe.Code != failure.Precondition || fe.Field != "project" || !strings.Contains(fe.Message, "outside the workspace") {
				t.Errorf("ProjectInfo(%q) = %+v, %v; want precondition_failed on project", tt.project, p, err)
			}
		})
	}
}

// Without a solution every .csproj is listed; a symlinked one that leads
// out is listed as such and never read.
func TestProjectFileSymlinkedOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "Evil.csproj"), []byte(`<Project Sdk="Microsoft.NET.Sdk"/>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "Evil.csproj"), filepath.Join(root, "Evil.csproj")); err != nil {
		t.Fatal(err)
	}
	ws, err := ListProjects(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ProjectSummary{{Name: "Evil", Path: "Evil.csproj", OutsideWorkspace: true}}; !reflect.DeepEqual(ws.Projects, want) {
		t.Errorf("projects = %+v, want %+v", ws.Projects, want)
	}
	_, err = ProjectInfo(context.Background(), root, "", Options{})
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("ProjectInfo = %v, want precondition_failed", err)
	}
	_, err = EvaluateProject(context.Background(), root, "Evil.csproj", Options{})
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("EvaluateProject = %v, want precondition_failed", err)
	}
	_, err = ParseSolution(root, filepath.Join(outside, "Evil.sln"))
	if failure.CodeOf(err) != failure.Precondition {
		t.Errorf("ParseSolution outside = %v, want precondition_failed", err)
	}
}
