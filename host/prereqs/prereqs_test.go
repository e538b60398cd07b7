package prereqs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/languages"
)

var update = flag.Bool("update", false, "rewrite TOOL-PREREQUISITES.md from the embedded specs")

// TestDocumentIsFresh fails when the committed prerequisites document no
// longer matches the shipped specs. Regenerate with
// `go test ./host/prereqs -update`.
func TestDocumentIsFresh(t *testing.T) {
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded:languages"}})
	if len(set.Problems) > 0 {
		t.Fatalf("shipped spec has problems: %v", set.Problems[0])
	}
	langs, err := Collect(set, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Markdown(&buf, langs); err != nil {
		t.Fatal(err)
	}
	const path = "../../TOOL-PREREQUISITES.md"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./host/prereqs -update)", err)
	}
	if !bytes.Equal(committed, buf.Bytes()) {
		t.Fatal("TOOL-PREREQUISITES.md is stale: regenerate it with `go test ./host/prereqs -update` and commit it")
	}
}

const demo = `language: {id: demo, name: Demo}
tools:
  build:
    command: dotnet
    args: [build, --no-restore]
    projectArg: 1
    configArg: [--configuration]
    description: Build | compile
    install: pkg:nuget/dotnet-sdk
  format:
    command: ormolu
    args: [--mode, inplace]
    pathArg: -1
    fallback: {command: fourmolu, args: [--mode, inplace], install: pkg:hackage/fourmolu}
    description: Format
  env:
    command: sh
    args: [-c, "exit 0"]
    version: {args: [-c, "echo shell 9.8.7"], regex: 'shell (\S+)'}
  crash:
    command: bash
    version: {args: [-c, "echo 'Error at lib@10.1.0' >&2; exit 1"]}
semantic:
  command: demo-ls
  args: [--stdio]
`

func loadDemo(t *testing.T) *spec.Set {
	t.Helper()
	set := spec.Load([]spec.Source{{Name: "t", FS: fstest.MapFS{"demo.yaml": {Data: []byte(demo)}}}})
	if len(set.Problems) > 0 {
		t.Fatal(set.Problems[0])
	}
	return set
}

func TestMarkdown(t *testing.T) {
	set := loadDemo(t)
	langs, err := Collect(set, []string{"demo"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Markdown(&buf, langs); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"## Demo (`demo`)",
		"| `demo.build` | `dotnet build [<project>] --no-restore [--configuration <configuration>]` | Build \\| compile | no | - | `pkg:nuget/dotnet-sdk`: `dotnet tool install -g dotnet-sdk` |",
		"| `demo.format` | `ormolu --mode inplace [<path>]` | Format | no | `fourmolu --mode inplace [<path>]` | `pkg:hackage/fourmolu` (install fourmolu as its project documents) |",
		"| `demo-ls` | demo |",
		"| `fourmolu` | demo (fallback) | `pkg:hackage/fourmolu` (install fourmolu as its project documents) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if _, err := Collect(set, []string{"nope"}); err == nil {
		t.Error("unknown language: want an error")
	}
}

func TestCheck(t *testing.T) {
	set := loadDemo(t)
	langs, _ := Collect(set, nil)
	installed := map[string]string{"sh": "/bin/sh", "bash": "/bin/bash", "fourmolu": "/usr/bin/fourmolu", "demo-ls": "/usr/bin/demo-ls"}
	p := Prober{LookPath: func(name string) (string, error) {
		if path, ok := installed[name]; ok {
			return path, nil
		}
		return "", errors.New("not found")
	}}
	if p.Check(context.Background(), set, langs) {
		t.Error("dotnet is missing: Check must report failure")
	}
	status := map[string]*Status{}
	for _, tool := range langs[0].Tools {
		status[tool.ID] = tool.Status
	}
	if s := status["demo.build"]; s.Available || !strings.Contains(s.Error, "dotnet not found") {
		t.Errorf("build status = %+v", s)
	}
	if s := status["demo.format"]; !s.Available || !s.UsesFallback {
		t.Errorf("format status = %+v, want available through its fallback", s)
	}
	if s := status["demo.env"]; !s.Available || s.Version != "9.8.7" {
		t.Errorf("env status = %+v, want version 9.8.7 from the probe", s)
	}
	if s := status["demo.crash"]; !s.Available || s.Version != "" {
		t.Errorf("crash status = %+v, want available with no version from a failed probe", s)
	}
}

// A language naming several servers needs one of them: the first
// installed, in order of preference.
func TestCheckServers(t *testing.T) {
	const spec3 = `language: {id: demo, name: Demo}
servers:
  a-ls: {command: a-ls, args: [--stdio], install: pkg:npm/a-ls}
  b-ls: {command: b-ls, install: pkg:npm/b-ls}
  c-ls: {command: c-ls, args: [serve], install: pkg:npm/c-ls, version: {args: [version]}}
semantic: {servers: [a-ls, b-ls, c-ls]}
`
	set := spec.Load([]spec.Source{{Name: "t", FS: fstest.MapFS{"demo.yaml": {Data: []byte(spec3)}}}})
	if len(set.Problems) > 0 {
		t.Fatal(set.Problems[0])
	}
	langs, err := Collect(set, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Markdown(&buf, langs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `demo (language server)` | `a-ls --stdio` | semantic operations (references, implementations, rename, ...) | no | `b-ls`, `c-ls serve` | `pkg:npm/a-ls`: `npm i -g a-ls`; `pkg:npm/b-ls`: `npm i -g b-ls`; `pkg:npm/c-ls`: `npm i -g c-ls` |",
		"| `c-ls` | demo (fallback) | `pkg:npm/c-ls`: `npm i -g c-ls` |",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, buf.String())
		}
	}
	for _, tc := range []struct {
		installed []string
		ok        bool
		path      string
		fallback  bool
	}{
		{[]string{"c-ls"}, true, "/bin/c-ls", true},
		{[]string{"b-ls", "c-ls"}, true, "/bin/b-ls", true},
		{[]string{"a-ls", "c-ls"}, true, "/bin/a-ls", false},
		{nil, false, "", false},
	} {
		p := Prober{LookPath: func(name string) (string, error) {
			if slices.Contains(tc.installed, name) {
				return "/bin/" + name, nil
			}
			return "", errors.New("not found")
		}}
		langs, _ := Collect(set, nil)
		ok := p.Check(context.Background(), set, langs)
		st := langs[0].Tools[0].Status
		if ok != tc.ok || st.Path != tc.path || st.UsesFallback != tc.fallback {
			t.Errorf("installed %v: Check = %v, status %+v", tc.installed, ok, st)
		}
	}
}

// TestCSharpServerFromDotnetTools: csharp-ls installed with `dotnet tool
// install -g` lands in ~/.dotnet/tools, off PATH. Check finds it there and
// names it as the server that answers; with no server installed, the
// install line offered is csharp-ls pinned, which nuget.org serves, not
// roslyn-language-server, which it does not.
func TestCSharpServerFromDotnetTools(t *testing.T) {
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS, Label: "embedded:languages"}})
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DOTNET_CLI_HOME", "")
	t.Setenv("PATH", t.TempDir())

	server := func(langs []Language) Tool {
		for _, tool := range langs[0].Tools {
			if tool.Server {
				return tool
			}
		}
		t.Fatal("no language server row")
		return Tool{}
	}
	langs, err := Collect(set, []string{"csharp"})
	if err != nil {
		t.Fatal(err)
	}
	if (Prober{}).Check(context.Background(), set, langs) {
		t.Fatal("Check found every C# tool with an empty PATH")
	}
	const want = "dotnet tool install -g csharp-ls --version 0.28.0"
	if got := server(langs).InstallCommand; got != want {
		t.Errorf("server install command = %q, want %q", got, want)
	}
	if m := Missing(langs); !slices.Contains(m, want) || slices.ContainsFunc(m, func(s string) bool { return strings.Contains(s, "roslyn") }) {
		t.Errorf("Missing = %q, want %q and no roslyn-language-server", m, want)
	}

	tools := filepath.Join(home, ".dotnet", "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(tools, "csharp-ls")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho 0.28.0+6d1ec9d\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	langs, _ = Collect(set, []string{"csharp"})
	(Prober{}).Check(context.Background(), set, langs)
	st := server(langs).Status
	if !st.Available || st.Command != "csharp-ls" || st.Path != exe || st.Version != "0.28.0" {
		t.Errorf("status = %+v; want csharp-ls 0.28.0 at %s", st, exe)
	}
}
