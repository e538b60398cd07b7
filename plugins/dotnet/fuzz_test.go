package dotnet

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// seed adds every file under testdata with one of exts to the corpus.
func seed(f *testing.F, exts ...string) {
	f.Helper()
	err := filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, ext := range exts {
			if strings.EqualFold(filepath.Ext(p), ext) {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				f.Add(b)
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// checkParseError asserts the contract for bad input: an invalid_input
// error that names the file and a line.
func checkParseError(t *testing.T, err error, display string) {
	t.Helper()
	if failure.CodeOf(err) != failure.InvalidInput || !strings.Contains(err.Error(), display+":") {
		t.Fatalf("error %v (%s), want invalid_input naming %s:<line>", err, failure.CodeOf(err), display)
	}
}

func checkSolution(t *testing.T, sol *Solution) {
	t.Helper()
	for _, p := range sol.Projects {
		if p.Folder != "" && !strings.HasPrefix(p.Folder, "/") {
			t.Fatalf("project %q folder %q does not start with /", p.Name, p.Folder)
		}
	}
	for _, f := range sol.Folders {
		if !strings.HasPrefix(f.Path, "/") || !strings.HasSuffix(f.Path, "/") {
			t.Fatalf("folder path %q is not /.../", f.Path)
		}
	}
}

func FuzzSolution(f *testing.F) {
	seed(f, ".sln")
	f.Add([]byte("Microsoft Visual Studio Solution File, Format Version 12.00\nProject(\"{2150E333-8FDC-42A3-9474-1A3956D46DE8}\") = \"a\", \"a\", \"{1}\"\nEndProject\nGlobal\nGlobalSection(NestedProjects) = preSolution\n{1} = {1}\nEndGlobalSection\nEndGlobal\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sol, err := parseSln("/ws", "/ws/F.sln", "F.sln", data)
		if err != nil {
			checkParseError(t, err, "F.sln")
			return
		}
		checkSolution(t, sol)
	})
}

func FuzzSlnx(f *testing.F) {
	seed(f, ".slnx")
	f.Add([]byte(`<Solution><Folder Name="/a/"><Folder Name="b"><Project Path="..\..\x.csproj"/></Folder></Folder></Solution>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parseXML(data, "F.slnx")
		if err != nil {
			checkParseError(t, err, "F.slnx")
			return
		}
		sol, err := parseSlnx(doc, "/ws", "/ws/F.slnx", "F.slnx")
		if err != nil {
			checkParseError(t, err, "F.slnx")
			return
		}
		checkSolution(t, sol)
	})
}

// FuzzProject evaluates arbitrary project files in a small workspace with
// an outside directory beside it: evaluation must not panic, must end, and
// must never list a file outside the workspace as a source file.
func FuzzProject(f *testing.F) {
	seed(f, ".csproj", ".props")
	f.Add([]byte(`<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><Compile Include="../**/*.cs" /><Compile Include="/**/*.cs" /></ItemGroup><Import Project="$(MSBuildThisFileDirectory)../x.props" Condition="Exists('../x.props')" /></Project>`))
	f.Add([]byte(`<Project><PropertyGroup><A>$(A)$(A)</A><B Condition="'$(A)' == ''">$(B);x</B></PropertyGroup><Import Project="P.csproj"/></Project>`))
	base := f.TempDir()
	root, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, p := range []string{filepath.Join(root, "src", "A.cs"), filepath.Join(out, "Out.cs")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("namespace N;\n"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "Out.cs"), filepath.Join(root, "src", "Link.cs")); err != nil {
		f.Fatal(err)
	}
	proj := filepath.Join(root, "P.csproj")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(proj, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p, err := EvaluateProject(ctx, root, proj, Options{})
		if err != nil {
			if code := failure.CodeOf(err); code != failure.InvalidInput {
				t.Fatalf("error %v (%s), want invalid_input", err, code)
			}
			return
		}
		for _, s := range p.SourceFiles {
			if strings.HasPrefix(s, "../") || filepath.IsAbs(s) || s == "src/Link.cs" {
				t.Fatalf("source file %q is outside the workspace", s)
			}
		}
	})
}

// Hostile inputs that cost time or memory out of proportion to their size
// (found reviewing what the fuzz targets exercise). Each must finish and be
// reported; none of them may take the process down.
func TestHostileSizes(t *testing.T) {
	ctx := context.Background()
	t.Run("deeply nested condition", func(t *testing.T) {
		cond := strings.Repeat("(", 200000) + "true" + strings.Repeat(")", 200000)
		if _, err := evalCondition(cond, newProperties(nil), "/", nil); !errors.Is(err, errUnsupported) {
			t.Errorf("error = %v, want errUnsupported", err)
		}
		if _, err := evalCondition(strings.Repeat("!", 200000)+"true", newProperties(nil), "/", nil); !errors.Is(err, errUnsupported) {
			t.Errorf("error = %v, want errUnsupported", err)
		}
	})
	t.Run("property doubling", func(t *testing.T) {
		root := t.TempDir()
		body := "<A>0123456789</A>" + strings.Repeat("<A>$(A)$(A)</A>", 64)
		writeTestFile(t, filepath.Join(root, "P.csproj"), "<Project><PropertyGroup>"+body+"</PropertyGroup></Project>")
		p, err := EvaluateProject(ctx, root, "P.csproj", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Unevaluated) == 0 || p.Unevaluated[0].Name != "A" {
			t.Errorf("the oversized property was not reported: %+v", p.Unevaluated)
		}
	})
	t.Run("many globstars", func(t *testing.T) {
		name := strings.Split("/w/"+strings.Repeat("d/", 60)+"f.txt", "/")
		pat := strings.Split("/w/"+strings.Repeat("**/", 40)+"x.cs", "/")
		if matchSegments(pat, name) {
			t.Errorf("matched")
		}
		if !matchSegments(strings.Split("/w/**/d/**/f.txt", "/"), name) {
			t.Errorf("did not match")
		}
	})
	t.Run("deep solution folders", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("Microsoft Visual Studio Solution File, Format Version 12.00\n")
		const n = 5000
		for i := range n {
			fmt.Fprintf(&b, "Project(\"{2150E333-8FDC-42A3-9474-1A3956D46DE8}\") = \"f%d\", \"f%d\", \"{%08d-0000-0000-0000-000000000000}\"\nEndProject\n", i, i, i)
		}
		b.WriteString("Global\nGlobalSection(NestedProjects) = preSolution\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "{%08d-0000-0000-0000-000000000000} = {%08d-0000-0000-0000-000000000000}\n", i, i-1)
		}
		b.WriteString("{00000000-0000-0000-0000-000000000000} = {00004999-0000-0000-0000-000000000000}\n") // and a cycle
		b.WriteString("EndGlobalSection\nEndGlobal\n")
		_, err := parseSln("/ws", "/ws/F.sln", "F.sln", []byte(b.String()))
		checkParseError(t, err, "F.sln")
		if !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("deep slnx folders", func(t *testing.T) {
		const n = 5000
		x := "<Solution>" + strings.Repeat(`<Folder Name="f">`, n) + strings.Repeat("</Folder>", n) + "</Solution>"
		doc, err := parseXML([]byte(x), "F.slnx")
		if err != nil {
			t.Fatal(err)
		}
		_, err = parseSlnx(doc, "/ws", "/ws/F.slnx", "F.slnx")
		checkParseError(t, err, "F.slnx")
	})
	t.Run("text in many pieces", func(t *testing.T) {
		x := "<Project><PropertyGroup><A>" + strings.Repeat("a<!---->", 200000) + "</A></PropertyGroup></Project>"
		doc, err := parseXML([]byte(x), "P.csproj")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(doc.Children[0].Children[0].Text); got != 200000 {
			t.Errorf("text length %d", got)
		}
	})
}

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSlnxConfigurationProduct(t *testing.T) {
	x := "<Solution><Configurations>" + strings.Repeat(`<BuildType Name="b"/>`, 3000) + strings.Repeat(`<Platform Name="p"/>`, 3000) + "</Configurations></Solution>"
	doc, err := parseXML([]byte(x), "F.slnx")
	if err != nil {
		t.Fatal(err)
	}
	_, err = parseSlnx(doc, "/ws", "/ws/F.slnx", "F.slnx")
	checkParseError(t, err, "F.slnx")
}
