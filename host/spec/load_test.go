package spec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func specYAML(id, tool, command string) string {
	return fmt.Sprintf("language: {id: %s}\ntools:\n  %s: {command: %s}\n", id, tool, command)
}

func memSource(name string, files map[string]string) Source {
	m := fstest.MapFS{}
	for n, s := range files {
		m[n] = &fstest.MapFile{Data: []byte(s)}
	}
	return Source{Name: name, FS: m, Label: name}
}

func TestLoadPrecedenceAndProblems(t *testing.T) {
	set := Load([]Source{
		memSource("embedded", map[string]string{
			"go.yaml":   specYAML("go", "build", "go"),
			"rust.yaml": specYAML("rust", "build", "cargo"),
			"bad.yaml":  "language: {id: bad}\ntools:\n  x: {comand: y}\n",
			"notes.txt": "ignored",
		}),
		memSource("user", map[string]string{
			"go.yaml": specYAML("go", "build", "go1.26"), // replaces the embedded go
		}),
		memSource("workspace", map[string]string{
			"zig.yaml":   specYAML("zig", "build", "zig"),
			"clash.yaml": "language: {id: clash}\ntools:\n  b: {command: x, id: rust.build}\n",
			"zig2.yaml":  specYAML("zig", "test", "zig"),
		}),
	})

	var ids []string
	for _, l := range set.Languages {
		ids = append(ids, l.Language.ID)
	}
	if got := strings.Join(ids, ","); got != "go,rust,zig" {
		t.Errorf("languages = %s, want go,rust,zig", got)
	}
	goSpec, _ := set.Language("go")
	if goSpec.Tools["build"].Command != "go1.26" || goSpec.Source != "user/go.yaml" {
		t.Errorf("go spec not replaced by the later source: %s from %s", goSpec.Tools["build"].Command, goSpec.Source)
	}
	if got := set.Replaced["go"]; len(got) != 1 || got[0] != "embedded/go.yaml" {
		t.Errorf("Replaced[go] = %v", got)
	}

	problems := map[string]string{}
	for _, p := range set.Problems {
		problems[p.File] = p.Error()
	}
	wants := map[string]string{
		"embedded/bad.yaml":    `unknown field "comand" (did you mean "command"?)`,
		"workspace/clash.yaml": `tool id "rust.build" must start with the language id: clash.<name>`,
		"workspace/zig2.yaml":  `language "zig" is also defined by workspace/zig.yaml`,
	}
	for file, want := range wants {
		if !strings.Contains(problems[file], want) {
			t.Errorf("problem for %s = %q, want it to contain %q", file, problems[file], want)
		}
	}
	if len(set.Problems) != len(wants) {
		t.Errorf("got %d problems, want %d: %v", len(set.Problems), len(wants), problems)
	}
}

func TestLoadLanguages(t *testing.T) {
	embedded := memSource("embedded", map[string]string{
		"go.yaml":   specYAML("go", "build", "go"),
		"rust.yaml": "broken: [",
	})
	embedded.NamedByID = true
	user := memSource("user", map[string]string{"zig.yaml": specYAML("zig", "build", "zig")})
	set, err := LoadLanguages(context.Background(), []Source{embedded, user}, []string{"go"}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := set.Language("go"); !ok {
		t.Error("go not loaded")
	}
	if _, ok := set.Language("zig"); !ok {
		t.Error("non-embedded sources must be read in full")
	}
	if len(set.Problems) != 0 {
		t.Errorf("rust.yaml was not needed but was parsed: %v", set.Problems)
	}
}

func TestDirSource(t *testing.T) {
	if _, err := DirSource("flag", t.TempDir()+"/missing", true); err == nil {
		t.Error("required missing dir: want an error")
	}
	src, err := DirSource("user", t.TempDir()+"/missing", false)
	if err != nil {
		t.Fatal(err)
	}
	if set := Load([]Source{src}); len(set.Languages)+len(set.Problems) != 0 {
		t.Errorf("optional missing dir loaded something: %+v", set)
	}
}

// BenchmarkLoad200 loads and validates 200 language specs shaped like the
// shipped ones: five tools, a few parsers each (target: under 50 ms).
func BenchmarkLoad200(b *testing.B) {
	files := map[string]string{}
	for i := range 200 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "language:\n  id: lang%d\n  name: Lang %d\n  extensions: [\".l%d\"]\ncapabilities: [coding]\ntools:\n", i, i, i)
		for _, tool := range []string{"build", "test", "lint", "format", "check"} {
			fmt.Fprintf(&sb, "  %s:\n    command: tool%d\n    args: [\"%s\", \"--verbose\"]\n    pathArg: -1\n"+
				"    description: \"%s the project\"\n    categories: [lang%d, %s]\n    timeout: 5m\n    outputParsers:\n",
				tool, i, tool, tool, i, tool)
			switch tool {
			case "build", "lint":
				fmt.Fprintf(&sb, "      errors: {type: lineMatch, pattern: \": error%d \", ignoreCase: true}\n", i)
				fmt.Fprintf(&sb, "      diagnostics:\n        type: diagnostics\n"+
					"        pattern: '^(?P<file>[^:]+\\.l%d):(?P<line>\\d+):(?P<column>\\d+): (?P<severity>error|warning): (?P<message>.*)$'\n", i)
			case "test":
				fmt.Fprintf(&sb, "      counts: {type: regex, pattern: 'Passed%d:\\s*(\\d+).*Failed:\\s*(\\d+)', groups: [passed, failed]}\n", i)
			default:
				sb.WriteString("      success: {type: exitCode}\n")
			}
		}
		sb.WriteString("prompt:\n  workflow: |\n    Build, then test.\n  bestPractices: |\n    - Keep it simple.\n")
		files[fmt.Sprintf("lang%d.yaml", i)] = sb.String()
	}
	src := memSource("bench", files)
	b.ReportAllocs()
	for b.Loop() {
		set := Load([]Source{src})
		if len(set.Languages) != 200 || len(set.Problems) != 0 {
			b.Fatalf("loaded %d specs, %d problems: %v", len(set.Languages), len(set.Problems), set.Problems)
		}
	}
}

// aliasBomb is a 1 KB "billion laughs" spec: nine levels of nine aliases
// stand for 9^9 strings once expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("language:\n  id: bomb\n  extensions: &l0 [x, x, x, x, x, x, x, x, x]\n")
	b.WriteString("semantic:\n  command: x\n  settings:\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "    l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

// loadGuarded loads sources, failing the test instead of hanging when the
// load blocks (the old loader opened a named pipe and waited for a writer).
func loadGuarded(t *testing.T, sources []Source, limits Limits) *Set {
	t.Helper()
	type result struct {
		set *Set
		err error
	}
	done := make(chan result, 1)
	go func() {
		set, err := LoadLanguages(context.Background(), sources, nil, limits)
		done <- result{set, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.set
	case <-time.After(time.Minute):
		t.Fatal("loading the specs did not finish: it blocked on a file")
		return nil
	}
}

func TestLoadRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"good.yaml":  specYAML("good", "build", "make"),
		"bomb.yaml":  aliasBomb(),
		"cycle.yaml": "language: {id: cycle, extensions: &e [x, *e]}\ntools: {b: {command: x}}\n",
		"big.yaml":   specYAML("big", "build", "make") + "# " + strings.Repeat("x", 2<<20) + "\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unixWants := makeUnixHostileSpecFiles(t, dir)
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dir.yaml", filepath.Join(dir, "dirlink.yaml")); err != nil {
		t.Fatal(err)
	}
	src, err := DirSource("flag", dir, true)
	if err != nil {
		t.Fatal(err)
	}
	set := loadGuarded(t, []Source{src}, Limits{})

	if _, ok := set.Language("good"); !ok || len(set.Languages) != 1 {
		t.Errorf("languages = %v, want just good", set.Languages)
	}
	wants := map[string]string{
		"bomb.yaml":    "bomb.yaml:10:14: aliases expand to more than 10000 nodes (at alias *l3)",
		"cycle.yaml":   "cycle.yaml:1:42: alias *e refers to an anchor that contains it",
		"big.yaml":     "big.yaml: file is larger than the spec size limit of 1048576 bytes (config spec.max_size)",
		"fifo.yaml":    "fifo.yaml: not a regular file: it is a named pipe (FIFO)",
		"zero.yaml":    "zero.yaml: not a regular file: it is a character device",
		"dirlink.yaml": "dirlink.yaml: not a regular file: it is a directory",
	}
	maps.Copy(wants, unixWants)
	got := map[string]string{}
	for _, fe := range set.Problems {
		got[filepath.Base(fe.File)] = fe.Error()
	}
	for file, want := range wants {
		if !strings.Contains(got[file], want) {
			t.Errorf("problem of %s = %q, want it to contain %q", file, got[file], want)
		}
	}
	if len(got) != len(wants) {
		t.Errorf("problems: %v", got)
	}
}

func TestLoadLimits(t *testing.T) {
	src := memSource("flag", map[string]string{"demo.yaml": specYAML("demo", "build", "make")})
	set := loadGuarded(t, []Source{src}, Limits{MaxSize: 20})
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Error(), "larger than the spec size limit of 20 bytes") {
		t.Errorf("problems = %v", set.Problems)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LoadLanguages(ctx, []Source{src}, nil, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load: err = %v, want context.Canceled", err)
	}
}
