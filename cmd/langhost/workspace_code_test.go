package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileVector is a workspace whose own code writes marker when a tool
// runs it.
type hostileVector struct {
	name  string
	tool  string
	args  []string
	files func(marker string) map[string]string
}

func hostileVectors() []hostileVector {
	return []hostileVector{
		{"eslint.config.js", "javascript.lint", []string{"path=a.js"}, func(m string) map[string]string {
			return map[string]string{
				"package.json":     `{"name":"h","version":"1.0.0"}`,
				"a.js":             "const a = 1;\n",
				"eslint.config.js": "require('fs').writeFileSync(" + jsString(m) + ", 'ran');\nmodule.exports = [];\n",
			}
		}},
		{"prettier.config.cjs", "javascript.format_check", nil, func(m string) map[string]string {
			return map[string]string{
				"package.json":        `{"name":"h","version":"1.0.0"}`,
				"a.js":                "const a = 1;\n",
				"prettier.config.cjs": "require('fs').writeFileSync(" + jsString(m) + ", 'ran');\nmodule.exports = {};\n",
			}
		}},
		{"cargo build.rs", "rust.check", nil, func(m string) map[string]string {
			return map[string]string{
				"Cargo.toml":  "[package]\nname = \"h\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
				"src/main.rs": "fn main() {}\n",
				"build.rs":    "fn main() { std::fs::write(" + jsString(m) + ", \"ran\").unwrap(); }\n",
			}
		}},
		{"pytest conftest.py", "python.pytest", nil, func(m string) map[string]string {
			return map[string]string{
				"pyproject.toml": "[project]\nname = \"h\"\nversion = \"0.1.0\"\n",
				"test_a.py":      "def test_a():\n    assert True\n",
				"conftest.py":    "open(" + jsString(m) + ", 'w').write('ran')\n",
			}
		}},
	}
}

// jsString quotes s for JavaScript and Rust source alike.
func jsString(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestWorkspaceCodeNeedsConsent: in a workspace nobody trusted, a tool
// that runs the workspace's code is refused, naming both ways forward, and
// runs nothing; --allow-workspace-code and `langhost trust` each let it run.
func TestWorkspaceCodeNeedsConsent(t *testing.T) {
	for _, v := range hostileVectors() {
		t.Run(v.name, func(t *testing.T) {
			c := newCLI(t)
			c.ws = t.TempDir()
			marker := filepath.Join(t.TempDir(), "marker")
			for name, content := range v.files(marker) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(c.ws, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(c.ws, name), content)
			}
			args := append([]string{"run", v.tool}, v.args...)
			o := c.run(args...)
			if o.code != 4 || len(o.env.Errors) == 0 || o.env.Errors[0].Code != "precondition_failed" {
				t.Fatalf("untrusted %s: exit %d %+v", v.tool, o.code, o.env.Errors)
			}
			msg := o.env.Errors[0].Message
			for _, want := range []string{"langhost trust", "--allow-workspace-code", "runs code the workspace controls"} {
				if !strings.Contains(msg, want) {
					t.Errorf("refusal %q does not say %q", msg, want)
				}
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("untrusted %s ran the workspace's code", v.tool)
			}

			o = c.run(append(args, "--allow-workspace-code")...)
			if len(o.env.Errors) > 0 && o.env.Errors[0].Code == "precondition_failed" {
				t.Fatalf("consented %s refused: %+v", v.tool, o.env.Errors)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("consented %s did not run (exit %d): %v\n%s", v.tool, o.code, err, o.stderr)
			}
			os.Remove(marker)
			os.RemoveAll(filepath.Join(c.ws, "target")) // cargo would not run build.rs again

			if o := c.run("trust"); o.code != 0 {
				t.Fatalf("trust: exit %d %s", o.code, o.stderr)
			}
			c.run(args...)
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("trusted %s did not run: %v", v.tool, err)
			}
		})
	}
}

// TestToolsDescribeSaysWorkspaceCode: tools describe says what workspace
// code a tool runs, and none for one that runs none.
func TestToolsDescribeSaysWorkspaceCode(t *testing.T) {
	c := newCLI(t)
	c.format = "-"
	for id, want := range map[string]string{
		"go.test":              "workspace code: the packages' tests",
		"go.vet":               "workspace code: none",
		"typescript.lint":      "workspace code: eslint.config.js",
		"csharp.find_symbol":   "workspace code: its language server",
		"csharp.list_projects": "workspace code: none",
	} {
		o := c.run("tools", "describe", id, "--format", "text")
		if !strings.Contains(o.stdout, want) {
			t.Errorf("tools describe %s lacks %q:\n%s", id, want, o.stdout)
		}
	}
}

// TestUntrustedTypeScriptServerIsLanghosts: a repository that ships its own
// node_modules/typescript/lib/tsserver.js does not get it run by a
// read-only call in an untrusted workspace: typescript-language-server
// runs the TypeScript installed beside it, and answers. Trusted, the
// workspace's copy is the one that runs, as in an editor.
func TestUntrustedTypeScriptServerIsLanghosts(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	hostile := "require('fs').writeFileSync(" + jsString(marker) + ", 'ran'); process.exit(1);\n"
	for name, content := range map[string]string{
		"tsconfig.json":                             `{"compilerOptions":{"strict":true}}`,
		"package.json":                              `{"name":"t","version":"1.0.0"}`,
		"src/a.ts":                                  "export function hello(n: number): number { return n + 1; }\nexport const x = hello(2);\n",
		"node_modules/typescript/package.json":      `{"name":"typescript","version":"5.9.3","main":"./lib/typescript.js"}`,
		"node_modules/typescript/lib/tsserver.js":   hostile,
		"node_modules/typescript/lib/typescript.js": hostile,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(ws, name), content)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+configDir(t), "XDG_STATE_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(langhostBinary(t), append([]string{"--workspace", ws}, args...)...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("run", "typescript.find_symbol", "query=hello", "--format", "json"); err != nil || !strings.Contains(out, `"hello"`) {
		t.Fatalf("untrusted find_symbol: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's tsserver.js ran in an untrusted workspace")
	}
	if out, err := run("trust"); err != nil {
		t.Fatalf("trust: %v\n%s", err, out)
	}
	run("run", "typescript.find_symbol", "query=hello")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("trusted, the workspace's TypeScript did not run (the fixture does not test what it should): %v", err)
	}
}

// writeVector writes v's files into ws and returns its marker's path.
func writeVector(t *testing.T, v hostileVector, ws string) string {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "marker")
	for name, content := range v.files(marker) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(ws, name), content)
	}
	return marker
}

// ran reports whether a vector's marker was written.
func ran(marker string) bool {
	_, err := os.Stat(marker)
	return err == nil
}

// TestCSharpDesignTimeBuildNeedsConsent: a solution whose
// Directory.Build.props runs an Exec through InitialTargets, and whose
// Directory.Build.targets hooks Execs before ResolveAssemblyReferences and
// CoreCompile. csharp-ls runs a design-time build when it loads the
// solution, so in an untrusted workspace the read-only find_symbol is
// refused and no Exec runs; consented, the call answers (and the Execs
// run, which shows the fixture tests what it should).
func TestCSharpDesignTimeBuildNeedsConsent(t *testing.T) {
	ws := t.TempDir()
	markers := t.TempDir()
	marker := func(name string) string { return filepath.Join(markers, name) }
	exec1 := func(name string) string {
		return `<Exec Command="echo ran &gt; ` + marker(name) + `" />`
	}
	for name, content := range map[string]string{
		"Hostile.csproj": `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net10.0</TargetFramework><OutputType>Library</OutputType></PropertyGroup>
</Project>
`,
		"Greeter.cs": "namespace Hostile;\n\npublic class Greeter\n{\n    public string Hello() => \"hi\";\n}\n",
		"Directory.Build.props": `<Project InitialTargets="PwnInitial">
  <Target Name="PwnInitial">` + exec1("initial") + `</Target>
</Project>
`,
		"Directory.Build.targets": `<Project>
  <Target Name="PwnRar" BeforeTargets="ResolveAssemblyReferences">` + exec1("rar") + `</Target>
  <Target Name="PwnCompile" BeforeTargets="CoreCompile">` + exec1("compile") + `</Target>
</Project>
`,
	} {
		write(t, filepath.Join(ws, name), content)
	}
	env := append(os.Environ(), "XDG_CONFIG_HOME="+configDir(t), "XDG_STATE_HOME="+t.TempDir(), "LANGHOST_DAEMON=0")
	run := func(args ...string) (string, int) {
		cmd := exec.Command(langhostBinary(t), append([]string{"--workspace", ws, "--format", "json"}, args...)...)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	ranAny := func() []string {
		var names []string
		for _, n := range []string{"initial", "rar", "compile"} {
			if ran(marker(n)) {
				names = append(names, n)
			}
		}
		return names
	}
	if out, code := run("run", "csharp.find_symbol", "query=Greeter"); code != 4 || !strings.Contains(out, "--allow-workspace-code") {
		t.Fatalf("untrusted find_symbol: exit %d\n%s", code, out)
	}
	if out, code := run("run", "csharp.list_projects"); code != 0 || !strings.Contains(out, "Hostile") {
		t.Errorf("untrusted list_projects (no server): exit %d\n%s", code, out)
	}
	if r := ranAny(); len(r) > 0 {
		t.Fatalf("untrusted calls ran the workspace's MSBuild targets: %v", r)
	}
	out, code := run("run", "csharp.find_symbol", "query=Greeter", "--allow-workspace-code")
	if code != 0 || !strings.Contains(out, "Greeter.cs") {
		t.Fatalf("consented find_symbol: exit %d\n%s", code, out)
	}
	if r := ranAny(); len(r) < 2 {
		t.Errorf("consented, the design-time build ran only %v of the Execs (the fixture does not test what it should)", r)
	}
}
