package dotnet

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestParseSolutionSln(t *testing.T) {
	sol, err := ParseSolution("testdata/sdk", "Shop.sln")
	if err != nil {
		t.Fatal(err)
	}
	want := &Solution{
		Path: "Shop.sln", Format: "sln", FormatVersion: "12.00", VisualStudioVersion: "17.8.34330.188",
		Projects: []SolutionProject{
			{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", TypeGUID: "FAE04EC0-301F-11D3-BF4B-00C04F79EFBC",
				GUID: "11111111-1111-4111-8111-111111111111", Folder: "/src/backend/", Exists: true},
			{Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", TypeGUID: "9A19103F-16F7-4668-BE54-9A1E7A4F7556",
				GUID: "22222222-2222-4222-8222-222222222222", Folder: "/src/backend/", Dependencies: []string{"Shop.Core"}, Exists: true},
			{Name: "Shop.Core.Tests", Path: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj", TypeGUID: "9A19103F-16F7-4668-BE54-9A1E7A4F7556",
				GUID: "33333333-3333-4333-8333-333333333333", Folder: "/tests/", Exists: true},
		},
		Folders: []SolutionFolder{
			{Name: "Solution Items", Path: "/Solution Items/", GUID: "8A1B2C3D-0000-4000-8000-000000000004"},
			{Name: "src", Path: "/src/", GUID: "8A1B2C3D-0000-4000-8000-000000000001"},
			{Name: "backend", Path: "/src/backend/", GUID: "8A1B2C3D-0000-4000-8000-000000000003"},
			{Name: "tests", Path: "/tests/", GUID: "8A1B2C3D-0000-4000-8000-000000000002"},
		},
		Configurations: []string{"Debug|Any CPU", "Release|Any CPU"},
	}
	if !reflect.DeepEqual(sol, want) {
		t.Errorf("ParseSolution =\n%s\nwant\n%s", jsonOf(t, sol), jsonOf(t, want))
	}
}

func TestParseSolutionSlnx(t *testing.T) {
	sol, err := ParseSolution("testdata/slnx", "App.slnx")
	if err != nil {
		t.Fatal(err)
	}
	want := &Solution{
		Path: "App.slnx", Format: "slnx",
		Projects: []SolutionProject{
			{Name: "App", Path: "src/App/App.csproj", Folder: "/src/", Exists: true},
			{Name: "App.Tests", Path: "tests/App.Tests/App.Tests.csproj", Folder: "/tests/", Dependencies: []string{"App"}, Exists: true},
			{Name: "Gen", Path: "tools/Gen/Gen.csproj", Exists: true},
		},
		Folders:        []SolutionFolder{{Name: "src", Path: "/src/"}, {Name: "tests", Path: "/tests/"}},
		Configurations: []string{"Debug|Any CPU", "Debug|x64", "Release|Any CPU", "Release|x64"},
	}
	if !reflect.DeepEqual(sol, want) {
		t.Errorf("ParseSolution =\n%s\nwant\n%s", jsonOf(t, sol), jsonOf(t, want))
	}
}

func TestParseSlnErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"no header", "Project(\"{X}\") = \"A\"\n", "Bad.sln:1: not a solution file"},
		{"bad project line", "Microsoft Visual Studio Solution File, Format Version 12.00\nProject(\"{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}\") = \"A\"\n", "Bad.sln:2: malformed Project line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSln("/ws", "/ws/Bad.sln", "Bad.sln", []byte(tt.data))
			if failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v (%s), want invalid_input containing %q", err, failure.CodeOf(err), tt.want)
			}
		})
	}
}

func TestListProjects(t *testing.T) {
	tests := []struct {
		root      string
		solutions []string
		want      []ProjectSummary
	}{
		{"testdata/sdk", []string{"Shop.sln"}, []ProjectSummary{
			{Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", Folder: "/src/backend/", Exists: true},
			{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Folder: "/src/backend/", Exists: true},
			{Name: "Shop.Core.Tests", Path: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj", Folder: "/tests/", Exists: true},
		}},
		{"testdata/slnx", []string{"App.slnx"}, []ProjectSummary{
			{Name: "App", Path: "src/App/App.csproj", Folder: "/src/", Exists: true},
			{Name: "App.Tests", Path: "tests/App.Tests/App.Tests.csproj", Folder: "/tests/", Exists: true},
			{Name: "Gen", Path: "tools/Gen/Gen.csproj", Exists: true},
		}},
		// No solution: every .csproj, skipping bin and node_modules.
		{"testdata/projectsonly", nil, []ProjectSummary{
			{Name: "A", Path: "A/A.csproj", Exists: true},
			{Name: "B", Path: "B/B.csproj", Exists: true},
		}},
		{"testdata/legacy", nil, []ProjectSummary{{Name: "Legacy", Path: "Legacy.csproj", Exists: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			ws, err := ListProjects(context.Background(), tt.root)
			if err != nil {
				t.Fatal(err)
			}
			var sols []string
			for _, s := range ws.Solutions {
				sols = append(sols, s.Path)
			}
			if !reflect.DeepEqual(sols, tt.solutions) {
				t.Errorf("solutions = %v, want %v", sols, tt.solutions)
			}
			if !reflect.DeepEqual(ws.Projects, tt.want) {
				t.Errorf("projects =\n%s\nwant\n%s", jsonOf(t, ws.Projects), jsonOf(t, tt.want))
			}
		})
	}
}

func TestProjectInfo(t *testing.T) {
	tests := []struct {
		name    string
		root    string
		project string
		opts    Options
		want    *Project
	}{
		{
			name: "multi-targeting library, first framework", root: "testdata/sdk", project: "Shop.Core",
			want: &Project{
				Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Style: "sdk", Sdk: "Microsoft.NET.Sdk",
				Configuration: "Debug", Platform: "AnyCPU", TargetFramework: "net8.0", TargetFrameworks: []string{"net8.0", "netstandard2.0"},
				OutputType: "Library", RootNamespace: "Shop", AssemblyName: "Shop.Core", Nullable: "enable", LangVersion: "latest",
				Imports:                  []string{"Directory.Build.props", "Directory.Packages.props"},
				CentralPackageManagement: true,
				ProjectReferences:        []ProjectReference{},
				PackageReferences:        []PackageReference{{ID: "Newtonsoft.Json", Version: "13.0.3", VersionSource: "central"}},
				// Legacy/** removed, bin/ and obj/ excluded by default.
				SourceFiles: []string{"src/Shop.Core/Models/Order.cs", "src/Shop.Core/Services/OrderService.cs"},
			},
		},
		{
			name: "netstandard2.0 inner build", root: "testdata/sdk", project: "src/Shop.Core/Shop.Core.csproj",
			opts: Options{Configuration: "Release", TargetFramework: "netstandard2.0"},
			want: &Project{
				Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Style: "sdk", Sdk: "Microsoft.NET.Sdk",
				Configuration: "Release", Platform: "AnyCPU", TargetFramework: "netstandard2.0", TargetFrameworks: []string{"net8.0", "netstandard2.0"},
				OutputType: "Library", RootNamespace: "Shop", AssemblyName: "Shop.Core", Nullable: "enable", LangVersion: "10.0",
				Imports:                  []string{"Directory.Build.props", "Directory.Packages.props"},
				CentralPackageManagement: true,
				ProjectReferences:        []ProjectReference{},
				PackageReferences: []PackageReference{
					{ID: "Newtonsoft.Json", Version: "13.0.3", VersionSource: "central"},
					{ID: "System.Memory", Version: "4.5.5", VersionSource: "central", Condition: "'$(TargetFramework)' == 'netstandard2.0'"},
				},
				SourceFiles: []string{"src/Shop.Core/Models/Order.cs", "src/Shop.Core/Services/OrderService.cs"},
			},
		},
		{
			name: "web app, Debug", root: "testdata/sdk", project: "src/Shop.Api",
			want: &Project{
				Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", Style: "sdk", Sdk: "Microsoft.NET.Sdk.Web",
				Configuration: "Debug", Platform: "AnyCPU", TargetFramework: "net8.0", TargetFrameworks: []string{"net8.0"},
				OutputType: "Exe", RootNamespace: "Shop.Api", AssemblyName: "Shop.WebApi", Nullable: "enable", LangVersion: "latest",
				Imports:                  []string{"Directory.Build.props", "Directory.Packages.props"},
				CentralPackageManagement: true,
				ProjectReferences:        []ProjectReference{{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Exists: true}},
				PackageReferences: []PackageReference{
					{ID: "Serilog", Version: "4.0.1", VersionSource: "central"},
					{ID: "Serilog.Sinks.Console", Version: "5.0.1", VersionSource: "override"},
				},
				SourceFiles: []string{"shared/DebugHelpers.cs", "src/Shop.Api/Program.cs"},
			},
		},
		{
			name: "web app, Release", root: "testdata/sdk", project: "Shop.Api", opts: Options{Configuration: "Release"},
			want: &Project{
				Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", Style: "sdk", Sdk: "Microsoft.NET.Sdk.Web",
				Configuration: "Release", Platform: "AnyCPU", TargetFramework: "net8.0", TargetFrameworks: []string{"net8.0"},
				OutputType: "Exe", RootNamespace: "Shop.Api", AssemblyName: "Shop.WebApi", Nullable: "enable", LangVersion: "latest",
				Imports:                  []string{"Directory.Build.props", "Directory.Packages.props"},
				CentralPackageManagement: true,
				ProjectReferences:        []ProjectReference{{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Exists: true}},
				PackageReferences: []PackageReference{
					{ID: "Serilog", Version: "4.0.1", VersionSource: "central"},
					{ID: "Serilog.Sinks.Console", Version: "5.0.1", VersionSource: "override"},
					{ID: "Microsoft.ApplicationInsights.AspNetCore", Version: "2.22.0", VersionSource: "project",
						Condition: "'$(Configuration)|$(Platform)' == 'Release|AnyCPU'"},
				},
				SourceFiles: []string{"src/Shop.Api/Program.cs"},
			},
		},
		{
			name: "nested Directory.Build.props imports its parent", root: "testdata/sdk", project: "Shop.Core.Tests",
			want: &Project{
				Name: "Shop.Core.Tests", Path: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj", Style: "sdk", Sdk: "Microsoft.NET.Sdk",
				Configuration: "Debug", Platform: "AnyCPU", TargetFramework: "net8.0", TargetFrameworks: []string{"net8.0"},
				OutputType: "Library", RootNamespace: "Shop.Core.Tests", AssemblyName: "Shop.Core.Tests", Nullable: "disable", LangVersion: "latest",
				Imports:                  []string{"tests/Directory.Build.props", "Directory.Build.props", "Directory.Packages.props"},
				CentralPackageManagement: true,
				ProjectReferences: []ProjectReference{
					{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Exists: true},
					{Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", Exists: true},
				},
				PackageReferences: []PackageReference{
					{ID: "Microsoft.NET.Test.Sdk", Version: "17.11.1", VersionSource: "central"},
					{ID: "xunit", Version: "2.9.0", VersionSource: "central", PrivateAssets: "all"},
				},
				SourceFiles: []string{"tests/Shop.Core.Tests/OrderTests.cs"},
			},
		},
		{
			name: "legacy .NET Framework project", root: "testdata/legacy",
			want: &Project{
				Name: "Legacy", Path: "Legacy.csproj", Style: "legacy", ToolsVersion: "15.0",
				Configuration: "Debug", Platform: "AnyCPU", TargetFramework: "net472", TargetFrameworks: []string{"net472"},
				OutputType: "WinExe", RootNamespace: "Contoso.Legacy", AssemblyName: "Contoso.Legacy",
				Imports:           []string{"packages.config"},
				UnresolvedImports: []string{`$(MSBuildToolsPath)\Microsoft.CSharp.targets`},
				ProjectReferences: []ProjectReference{},
				PackageReferences: []PackageReference{{ID: "Newtonsoft.Json", Version: "12.0.3", VersionSource: "packages.config"}},
				References: []AssemblyReference{
					{Name: "Newtonsoft.Json", Identity: "Newtonsoft.Json, Version=12.0.0.0, Culture=neutral, PublicKeyToken=30ad4fe6b2a6aeed, processorArchitecture=MSIL",
						HintPath: "packages/Newtonsoft.Json.12.0.3/lib/net45/Newtonsoft.Json.dll"},
					{Name: "System"}, {Name: "System.Windows.Forms"}, {Name: "System.Xml"},
				},
				// Explicit items only: Unlisted.cs is not compiled.
				SourceFiles:        []string{"DebugOnly.cs", "MainForm.cs", "Program.cs", "Properties/AssemblyInfo.cs"},
				MissingSourceFiles: []string{"Deleted.cs"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ProjectInfo(context.Background(), tt.root, tt.project, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ProjectInfo =\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, tt.want))
			}
		})
	}
}

func TestSourceFiles(t *testing.T) {
	tests := []struct {
		root, project string
		opts          Options
		want          []string
	}{
		// EnableDefaultCompileItems=false with an explicit glob and Exclude.
		{"testdata/slnx", "App", Options{}, []string{"src/App/Feature/Widget.cs", "src/App/Program.cs"}},
		{"testdata/legacy", "", Options{Configuration: "Release"}, []string{"MainForm.cs", "Program.cs", "Properties/AssemblyInfo.cs"}},
		{"testdata/projectsonly", "A", Options{}, []string{"A/Class1.cs"}},
	}
	for _, tt := range tests {
		t.Run(tt.root+"/"+tt.project, func(t *testing.T) {
			got, err := SourceFiles(context.Background(), tt.root, tt.project, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Files, tt.want) {
				t.Errorf("files = %q, want %q", got.Files, tt.want)
			}
		})
	}
}

func TestProjectReferences(t *testing.T) {
	tests := []struct {
		name, root, project string
		transitive          bool
		want                *ProjectReferenceGraph
	}{
		{
			name: "direct", root: "testdata/sdk", project: "Shop.Api",
			want: &ProjectReferenceGraph{Project: "src/Shop.Api/Shop.Api.csproj", References: []ProjectReferenceAt{
				{ProjectReference: ProjectReference{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Exists: true}, Depth: 1, ReferencedBy: "src/Shop.Api/Shop.Api.csproj"},
			}},
		},
		{
			name: "transitive visits each project once", root: "testdata/sdk", project: "Shop.Core.Tests", transitive: true,
			want: &ProjectReferenceGraph{Project: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj", References: []ProjectReferenceAt{
				{ProjectReference: ProjectReference{Name: "Shop.Core", Path: "src/Shop.Core/Shop.Core.csproj", Exists: true}, Depth: 1, ReferencedBy: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj"},
				{ProjectReference: ProjectReference{Name: "Shop.Api", Path: "src/Shop.Api/Shop.Api.csproj", Exists: true}, Depth: 1, ReferencedBy: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj"},
			}},
		},
		{
			name: "cycle is reported, not followed", root: "testdata/slnx", project: "App.Tests", transitive: true,
			want: &ProjectReferenceGraph{Project: "tests/App.Tests/App.Tests.csproj",
				References: []ProjectReferenceAt{
					{ProjectReference: ProjectReference{Name: "App", Path: "src/App/App.csproj", Exists: true}, Depth: 1, ReferencedBy: "tests/App.Tests/App.Tests.csproj"},
					{ProjectReference: ProjectReference{Name: "Gen", Path: "tools/Gen/Gen.csproj", Exists: true}, Depth: 2, ReferencedBy: "src/App/App.csproj"},
				},
				Cycles: [][]string{{"src/App/App.csproj", "tools/Gen/Gen.csproj", "src/App/App.csproj"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ProjectReferences(context.Background(), tt.root, tt.project, tt.transitive, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ProjectReferences =\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, tt.want))
			}
		})
	}
}

func TestDeclaredNamespaces(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"file-scoped", "using X;\nnamespace A.B;\nclass C {}", []string{"A.B"}},
		{"block", "namespace A { class C {} }\nnamespace B { }", []string{"A", "B"}},
		{"nested blocks", "namespace A { namespace B.C { class D {} } namespace E {} }", []string{"A", "A.B.C", "A.E"}},
		{"comments and strings", "// namespace X;\n/* namespace Y { } */\nnamespace Z { string s = \"namespace W;\"; }", []string{"Z"}},
		{"allman braces", "namespace A\n{\n    class C\n    {\n    }\n}\n", []string{"A"}},
		{"none", "class Program { }", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DeclaredNamespaces([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DeclaredNamespaces = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNamespaces(t *testing.T) {
	got, err := Namespaces(context.Background(), "testdata/sdk", "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []ProjectNamespaces{
		{Project: "src/Shop.Api/Shop.Api.csproj", Namespaces: []NamespaceInfo{
			{Name: "Shop.Api", Files: []string{"src/Shop.Api/Program.cs"}},
			{Name: "Shop.Diagnostics", Files: []string{"shared/DebugHelpers.cs"}},
		}},
		{Project: "src/Shop.Core/Shop.Core.csproj", Namespaces: []NamespaceInfo{
			{Name: "Shop.Models", Files: []string{"src/Shop.Core/Models/Order.cs"}},
			{Name: "Shop.Services", Files: []string{"src/Shop.Core/Services/OrderService.cs"}},
			{Name: "Shop.Services.Extensions", Files: []string{"src/Shop.Core/Services/OrderService.cs"}},
			{Name: "Shop.Services.Internal", Files: []string{"src/Shop.Core/Services/OrderService.cs"}},
		}},
		{Project: "tests/Shop.Core.Tests/Shop.Core.Tests.csproj", Namespaces: []NamespaceInfo{
			{Name: "Shop.Core.Tests", Files: []string{"tests/Shop.Core.Tests/OrderTests.cs"}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Namespaces =\n%s\nwant\n%s", jsonOf(t, got), jsonOf(t, want))
	}
}

func TestInvokeErrors(t *testing.T) {
	tests := []struct {
		name, root, op, input string
		code                  failure.Code
		field                 string
		msg                   []string
	}{
		{"no project file", "testdata/noproj", "list_projects", `{}`, failure.NotFound, "",
			[]string{"no .sln, .slnx or .csproj file found under", filepath.ToSlash(mustAbs(t, "testdata/noproj"))}},
		{"malformed XML names file and line", "testdata/malformed", "project_info", `{}`, failure.InvalidInput, "",
			[]string{"Bad.csproj:7: malformed XML"}},
		{"unknown input key", "testdata/sdk", "project_info", `{"projct":"Shop.Core"}`, failure.InvalidInput, "projct",
			[]string{`unknown input key "projct"`}},
		{"wrong type", "testdata/sdk", "project_references", `{"transitive":"yes"}`, failure.InvalidInput, "transitive", nil},
		{"unknown project suggests", "testdata/sdk", "source_files", `{"project":"Shop.Cor"}`, failure.NotFound, "project",
			[]string{`no project "Shop.Cor"`, "did you mean Shop.Core"}},
		{"several projects need a name", "testdata/sdk", "project_info", `{}`, failure.Ambiguous, "project", nil},
		{"unknown operation", "testdata/sdk", "build", `{}`, failure.NotFound, "operation", []string{`unknown operation "build"`}},
		{"missing root", "testdata/nope", "list_projects", `{}`, failure.NotFound, "", []string{"does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Invoke(context.Background(), tt.root, tt.op, json.RawMessage(tt.input))
			if got := failure.CodeOf(err); got != tt.code {
				t.Fatalf("code = %s (%v), want %s", got, err, tt.code)
			}
			var fe *failure.Error
			if tt.field != "" {
				if !asFailure(err, &fe) || fe.Field != tt.field {
					t.Errorf("field of %v = %q, want %q", err, fe.Field, tt.field)
				}
			}
			for _, m := range tt.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
		})
	}
}

func TestOperations(t *testing.T) {
	var names []string
	for _, op := range Operations() {
		names = append(names, op.Name)
		if op.SideEffects != "none" {
			t.Errorf("%s: SideEffects = %q", op.Name, op.SideEffects)
		}
		for _, s := range []json.RawMessage{op.InputSchema, op.OutputSchema} {
			var v map[string]any
			if err := json.Unmarshal(s, &v); err != nil || v["type"] == nil {
				t.Errorf("%s: schema %s is not a JSON Schema object (%v)", op.Name, s, err)
			}
		}
	}
	want := []string{"list_projects", "project_info", "project_references", "package_references", "source_files", "namespaces"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("operations = %q, want %q", names, want)
	}
}

func TestInvokeRoundTrip(t *testing.T) {
	out, err := Invoke(context.Background(), "testdata/sdk", "package_references", json.RawMessage(`{"project":"Shop.Api","configuration":"Release"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"project":"src/Shop.Api/Shop.Api.csproj","target_framework":"net8.0","central_package_management":true,"packages":[` +
		`{"id":"Serilog","version":"4.0.1","version_source":"central"},` +
		`{"id":"Serilog.Sinks.Console","version":"5.0.1","version_source":"override"},` +
		`{"id":"Microsoft.ApplicationInsights.AspNetCore","version":"2.22.0","version_source":"project","condition":"'$(Configuration)|$(Platform)' == 'Release|AnyCPU'"}]}`
	if string(out) != want {
		t.Errorf("package_references =\n%s\nwant\n%s", out, want)
	}
}

func BenchmarkEvaluateProject(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := ProjectInfo(ctx, "testdata/sdk", "src/Shop.Api/Shop.Api.csproj", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListProjects(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := ListProjects(ctx, "testdata/sdk"); err != nil {
			b.Fatal(err)
		}
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func asFailure(err error, fe **failure.Error) bool {
	f, ok := err.(*failure.Error)
	if ok {
		*fe = f
	} else {
		*fe = &failure.Error{}
	}
	return ok
}
