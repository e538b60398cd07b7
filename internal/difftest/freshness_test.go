package difftest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// freshCase is one kind of change on disk between two calls to a warm
// langhost: the answer after it must equal a cold one (--no-daemon).
type freshCase struct {
	name, lang, fixture string
	setup               func(t *testing.T, ws string) // before langhost starts
	change              func(t *testing.T, ws string)
	input               map[string]any // find_references'
	// changes says the change changes the cold answer, so that an answer
	// left stale cannot pass by accident.
	changes bool
	// env is added to langhost's environment.
	env []string
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, ws string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

const goUser = "package user\n\nimport \"example.com/shapes/calc\"\n\n// U uses TotalArea.\nfunc U() float64 { return calc.TotalArea(nil) }\n"

var goRefs = map[string]any{"symbol": "TotalArea", "limit": 100000, "detail": "standard"}

var freshCases = []freshCase{
	{name: "new-file", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "calc", "extra.go"), "package calc\n\n// Extra uses TotalArea.\nfunc Extra() float64 { return TotalArea(nil) }\n")
		}},
	{name: "new-package-dir", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		change: func(t *testing.T, ws string) { write(t, filepath.Join(ws, "user", "user.go"), goUser) }},
	{name: "deleted-dir", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		setup: func(t *testing.T, ws string) { write(t, filepath.Join(ws, "user", "user.go"), goUser) },
		change: func(t *testing.T, ws string) {
			if err := os.RemoveAll(filepath.Join(ws, "user")); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "renamed-file", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		setup: func(t *testing.T, ws string) { write(t, filepath.Join(ws, "user", "user.go"), goUser) },
		change: func(t *testing.T, ws string) {
			if err := os.Rename(filepath.Join(ws, "user", "user.go"), filepath.Join(ws, "user", "renamed.go")); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "git-checkout", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		setup: func(t *testing.T, ws string) {
			git(t, ws, "init", "-q")
			git(t, ws, "add", ".")
			git(t, ws, "commit", "-qm", "base")
			git(t, ws, "checkout", "-qb", "other")
			write(t, filepath.Join(ws, "user", "user.go"), goUser)
			git(t, ws, "add", ".")
			git(t, ws, "commit", "-qm", "user")
			git(t, ws, "checkout", "-q", "main")
		},
		change: func(t *testing.T, ws string) { git(t, ws, "checkout", "-q", "other") }},
	{name: "go.mod", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		// A nested module is not part of the main one until its go.mod goes.
		setup: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "user", "go.mod"), "module example.com/user\n\ngo 1.22\n")
			write(t, filepath.Join(ws, "user", "user.go"), goUser)
		},
		change: func(t *testing.T, ws string) {
			if err := os.Remove(filepath.Join(ws, "user", "go.mod")); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "go.work", lang: "go", fixture: "plugins/semantic/testdata/gomod", input: goRefs, changes: true,
		// The go command refuses -mod=mod (which the offline Go setup
		// of the tests exports) in workspace mode, failing every load.
		env: []string{"GOFLAGS="},
		setup: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "user", "go.mod"), "module example.com/user\n\ngo 1.22\n\nrequire example.com/shapes v0.0.0\n")
			write(t, filepath.Join(ws, "user", "user.go"), goUser)
		},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "go.work"), "go 1.22\n\nuse (\n\t.\n\t./user\n)\n")
		}},
	{name: ".csproj", lang: "csharp", fixture: "plugins/semantic/testdata/zoo", changes: true,
		input: map[string]any{"symbol": "Animal", "kind": "class", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			p := filepath.Join(ws, "src", "Zoo.Core", "Zoo.Core.csproj")
			write(t, p, "<Project Sdk=\"Microsoft.NET.Sdk\">\n  <PropertyGroup>\n    <TargetFramework>net10.0</TargetFramework>\n    <Nullable>enable</Nullable>\n    <ImplicitUsings>enable</ImplicitUsings>\n  </PropertyGroup>\n  <ItemGroup>\n    <Compile Remove=\"Cat.cs\" />\n  </ItemGroup>\n</Project>\n")
		}},
	{name: ".sln", lang: "csharp", fixture: "plugins/semantic/testdata/zoo", changes: true,
		input: map[string]any{"symbol": "Animal", "kind": "class", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			cmd := exec.Command("dotnet", "sln", "Zoo.sln", "remove", filepath.Join("src", "Zoo.App", "Zoo.App.csproj"))
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dotnet sln remove: %v\n%s", err, out)
			}
		}},
	{name: ".slnx", lang: "csharp", fixture: "plugins/semantic/testdata/zoo", changes: true,
		input: map[string]any{"symbol": "Animal", "kind": "class", "limit": 100000, "detail": "standard"},
		setup: func(t *testing.T, ws string) {
			if err := os.Remove(filepath.Join(ws, "Zoo.sln")); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(ws, "Zoo.slnx"), "<Solution>\n  <Project Path=\"src/Zoo.Core/Zoo.Core.csproj\" />\n  <Project Path=\"src/Zoo.App/Zoo.App.csproj\" />\n</Solution>\n")
		},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "Zoo.slnx"), "<Solution>\n  <Project Path=\"src/Zoo.Core/Zoo.Core.csproj\" />\n</Solution>\n")
		}},
	{name: "new-file", lang: "csharp", fixture: "plugins/semantic/testdata/zoo", changes: true,
		input: map[string]any{"symbol": "Animal", "kind": "class", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "src", "Zoo.App", "Visitor.cs"), "namespace Zoo.App;\n\npublic static class Visitor\n{\n    public static string Meet(Zoo.Core.Animal a) => a.Speak();\n}\n")
		}},
	{name: "deleted-file", lang: "csharp", fixture: "plugins/semantic/testdata/zoo", changes: true,
		input: map[string]any{"symbol": "Animal", "kind": "class", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			if err := os.Remove(filepath.Join(ws, "src", "Zoo.Core", "Cat.cs")); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "new-file", lang: "python", fixture: "plugins/semantic/testdata/pypkg", changes: true,
		input: map[string]any{"symbol": "Animal", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "zoo", "vet.py"), "from zoo.animals import Animal\n\n\ndef check(animal: Animal) -> str:\n    return animal.speak()\n")
		}},
	{name: "new-file", lang: "typescript", fixture: "plugins/semantic/testdata/tsproj", changes: true,
		input: map[string]any{"symbol": "Shape", "kind": "interface", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "src", "extra.ts"), "import type { Shape } from \"./shape.js\";\n\nexport function twice(s: Shape): number {\n  return 2 * s.area();\n}\n")
		}},
	{name: "pyproject.toml", lang: "python", fixture: "plugins/semantic/testdata/pypkg", changes: true,
		input: map[string]any{"symbol": "Animal", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "pyproject.toml"), "[project]\nname = \"zoo\"\nversion = \"0.1.0\"\n\n[tool.pyright]\nexclude = [\"zoo/keeper.py\"]\n")
		}},
	{name: "package.json", lang: "typescript", fixture: "plugins/semantic/testdata/tsproj",
		input: map[string]any{"symbol": "Shape", "kind": "interface", "limit": 100000, "detail": "standard"},
		change: func(t *testing.T, ws string) {
			write(t, filepath.Join(ws, "package.json"), "{ \"name\": \"tsproj\", \"private\": true, \"type\": \"commonjs\" }\n")
		}},
}

// TestFreshness makes every kind of change on disk between two calls
// through a warm daemon and through a long-lived MCP server, and holds the
// answer after it to a cold one (--no-daemon), with real servers.
func TestFreshness(t *testing.T) {
	refs := lhLocs("references")
	read := func(t *testing.T, r Result) Answer {
		t.Helper()
		if !r.Answered() {
			return Answer{Failure: r.Code}
		}
		a, err := refs(r.Data)
		if err != nil {
			t.Fatalf("reading %s: %v", r.Data, err)
		}
		return a
	}
	for _, c := range freshCases {
		for _, via := range []string{"cli-daemon", "mcp"} {
			t.Run(c.lang+"/"+c.name+"/"+via, func(t *testing.T) {
				requireServer(t, Languages[c.lang])
				ws := copyFixture(t, c.fixture)
				if c.setup != nil {
					c.setup(t, ws)
				}
				lh := testLanghost(t)
				lh.Env = append(lh.Env, c.env...)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				var warm Path
				if via == "mcp" {
					m, err := lh.NewMCP(ctx, c.lang, ws)
					if err != nil {
						t.Fatal(err)
					}
					warm = m
				} else {
					warm = lh.NewCLI(c.lang, ws, false)
				}
				defer warm.Close()
				cold := lh.NewCLI(c.lang, ws, true)
				call := func(p Path) Answer {
					t.Helper()
					r, err := p.Call(ctx, "find_references", c.input)
					if err != nil {
						t.Fatal(err)
					}
					return read(t, r)
				}
				before := call(warm)
				if before.Failure != "" {
					t.Fatalf("before the change: %s", before)
				}
				c.change(t, ws)
				got := call(warm)
				want := call(cold)
				if want.Failure != "" {
					t.Fatalf("cold answer after the change: %s", want)
				}
				if c.changes && want.Same(before) {
					t.Fatalf("the change did not change the cold answer (%s): the case tests nothing", want)
				}
				if !want.Same(got) {
					t.Errorf("after %s, %s answered %s; cold: %s (before: %s)", c.name, via, got, want, before)
				}
			})
		}
	}
}
