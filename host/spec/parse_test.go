package spec

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestParseSeedSpecsVerbatim(t *testing.T) {
	tests := []struct {
		file            string
		id              string
		tools           []string
		bestPractices   string // substring, wherever the seed placed it
		syntaxReminders string
	}{
		{"testdata/seed-fsharp.yaml", "fsharp",
			[]string{"check_project", "build", "format", "test", "fsi"}, "pipeline operator", "Significant whitespace"},
		{"testdata/seed-haskell.yaml", "haskell",
			[]string{"build", "test", "format", "lint", "typecheck", "repl"}, "lazy by default", "Type signature"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(tt.file, data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if f.Language.ID != tt.id {
				t.Errorf("language id = %q, want %q", f.Language.ID, tt.id)
			}
			if got := strings.Join(f.ToolOrder, ","); got != strings.Join(tt.tools, ",") {
				t.Errorf("tool order = %s, want %s", got, strings.Join(tt.tools, ","))
			}
			if bp := f.Prompt.BestPractices + f.BestPractices; !strings.Contains(bp, tt.bestPractices) {
				t.Errorf("best practices lost: %q", bp)
			}
			if sr := f.Prompt.SyntaxReminders + f.SyntaxReminders; !strings.Contains(sr, tt.syntaxReminders) {
				t.Errorf("syntax reminders lost: %q", sr)
			}
		})
	}
}

func TestParseSeedDetails(t *testing.T) {
	data, _ := os.ReadFile("testdata/seed-haskell.yaml")
	f, err := Parse("haskell.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	repl := f.Tools["repl"]
	if repl.ID != "haskell.ghci" {
		t.Errorf("repl id = %q, want the explicit id haskell.ghci", repl.ID)
	}
	format := f.Tools["format"]
	if format.PathArg == nil || *format.PathArg != -1 || format.Fallback.Command != "fourmolu" || !format.RequiresConfirmation {
		t.Errorf("format tool decoded wrongly: %+v", format)
	}
	data, _ = os.ReadFile("testdata/seed-fsharp.yaml")
	f, err = Parse("fsharp.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Tools["test"].Parsers["testResults"]; p == nil {
		t.Errorf("fsharp.test testResults parser not compiled")
	}
	if f.Agent == nil || f.Agent.MaxSteps != 15 || f.Agent.Model != "qwen2.5-coder:14b" {
		t.Errorf("agent block decoded wrongly: %+v", f.Agent)
	}
}

const validSpec = `language:
  id: demo
  name: Demo
tools:
  build:
    command: make
    args: [all]
`

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // each must appear in one problem, as "line:col: field: message" fragments
	}{
		{"malformed", "language: [unclosed\n", []string{"demo.yaml:", "invalid YAML"}},
		{"tab indentation", "language:\n\tid: demo\n", []string{"demo.yaml:2:1: ", "tab character used for indentation"}},
		{"empty file", "", []string{"empty file"}},
		{"duplicate key", "language:\n  id: demo\n  id: other\ntools:\n  b: {command: x}\n",
			[]string{"demo.yaml:3:3: language.id: duplicate key (first defined at line 2)"}},
		{"duplicate tool key", validSpec + "  build:\n    command: y\n",
			[]string{"demo.yaml:8:3: tools.build: duplicate key (first defined at line 5)"}},
		{"unknown field with suggestion", validSpec + "    sucessCodes: [0]\n",
			[]string{`demo.yaml:8:5: tools.build.sucessCodes: unknown field "sucessCodes" (did you mean "successCodes"?)`}},
		{"unknown top-level field", "languag:\n  id: x\n", []string{`demo.yaml:1:1: languag: unknown field "languag" (did you mean "language"?)`}},
		{"wrong type list", validSpec + "    categories: build\n",
			[]string{`demo.yaml:8:17: tools.build.categories: expected a list, found string "build"`}},
		{"wrong type int", validSpec + "    pathArg: last\n",
			[]string{`demo.yaml:8:14: tools.build.pathArg: expected an integer, found string "last"`}},
		{"wrong type bool", validSpec + "    requiresConfirmation: sometimes\n",
			[]string{`tools.build.requiresConfirmation: expected true or false`}},
		{"bad duration", validSpec + "    timeout: soon\n", []string{`demo.yaml:8:14: tools.build.timeout: invalid duration "soon"`}},
		{"missing command", "language: {id: demo}\ntools:\n  build:\n    args: [x]\n",
			[]string{"demo.yaml:4:5: tools.build.command: missing required field"}},
		{"command with spaces", "language: {id: demo}\ntools:\n  build:\n    command: go build\n",
			[]string{"tools.build.command: command \"go build\" contains spaces"}},
		{"empty tools", "language: {id: demo}\ntools: {}\n", []string{"demo.yaml:2:8: tools: no tools defined"}},
		{"no tools key", "language: {id: demo}\n", []string{"tools: no tools defined"}},
		{"missing language id", "language: {name: Demo}\ntools:\n  b: {command: x}\n", []string{"demo.yaml:1:11: language.id: missing required field"}},
		{"bad language id", "language: {id: Demo Lang}\ntools:\n  b: {command: x}\n", []string{"language.id: \"Demo Lang\" is not a valid id"}},
		{"duplicate tool id", "language: {id: demo}\ntools:\n  a: {command: x, id: demo.x}\n  b: {command: y, id: demo.x}\n",
			[]string{`demo.yaml:4:23: tools.b.id: tool id "demo.x" already used by tools.a`}},
		{"tool id of another language", "language: {id: demo}\ntools:\n  a: {command: x, id: go.build}\n",
			[]string{`demo.yaml:3:23: tools.a.id: tool id "go.build" must start with the language id: demo.<name>`}},
		{"arg position out of range", validSpec + "    projectArg: 3\n",
			[]string{"demo.yaml:8:17: tools.build.projectArg: position 3 out of range: args has 1 elements, so use -1..1"}},
		{"negative position", validSpec + "    pathArg: -2\n", []string{"tools.build.pathArg: position -2 out of range"}},
		{"bad regex", validSpec + "    outputParsers:\n      errors: {type: regex, pattern: '(unclosed'}\n",
			[]string{"demo.yaml:9:38: tools.build.outputParsers.errors.pattern:", "missing closing )"}},
		{"bad jsonpath", validSpec + "    outputParsers:\n      cov: {type: json, path: '$.[['}\n",
			[]string{"demo.yaml:9:31: tools.build.outputParsers.cov.path:"}},
		{"unknown parser type", validSpec + "    outputParsers:\n      errors: {type: linematch, pattern: x}\n",
			[]string{"tools.build.outputParsers.errors.type:", "lineMatch"}},
		{"bad version regex", validSpec + "    version: {args: [--version], regex: '(('}\n",
			[]string{"tools.build.version.regex: invalid regex"}},
		{"input without placement", validSpec + "    inputs:\n      verbose: {type: boolean}\n",
			[]string{"demo.yaml:9:16: tools.build.inputs.verbose: input needs flag or arg"}},
		{"input bad type", validSpec + "    inputs:\n      n: {type: int, flag: -n}\n",
			[]string{`tools.build.inputs.n.type: unknown type "int"`, `did you mean "integer"?`}},
		{"semantic without command or servers", "language: {id: demo}\nsemantic:\n  dialect: roslyn\n",
			[]string{"demo.yaml:3:3: semantic.servers: missing required field"}},
		{"bad dialect", "language: {id: demo}\nsemantic: {command: x, dialect: clangd}\n", []string{`semantic.dialect: unknown dialect "clangd"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("demo.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("Parse succeeded, want problems")
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // every problem, in order, as file:line:col: field: message prefixes
	}{
		{"unknown field, bad regex, missing command", `language: {id: demo}
tools:
  build:
    comand: make
    outputParsers:
      errors: {type: regex, pattern: '(unclosed'}
`, []string{
			`demo.yaml:4:5: tools.build.comand: unknown field "comand" (did you mean "command"?)`,
			`demo.yaml:4:5: tools.build.command: missing required field`,
			`demo.yaml:6:38: tools.build.outputParsers.errors.pattern: `,
		}},
		{"wrong types are not reported again as missing", `language: {id: [demo]}
tools:
  a:
    command: {x: y}
  b:
    command: y
    args: 3
    pathArg: 9
    timeout: soon
`, []string{
			`demo.yaml:1:16: language.id: expected a string, found a list`,
			`demo.yaml:4:14: tools.a.command: expected a string, found a mapping`,
			`demo.yaml:7:11: tools.b.args: expected a list, found integer 3`,
			`demo.yaml:9:14: tools.b.timeout: invalid duration "soon"`,
		}},
		{"every tool and input is checked", `language: {id: demo}
tools:
  a: {command: x, args: [a], pathArg: 5}
  b:
    command: y
    inputs:
      v: {type: int, flag: -v}
      w: {type: string}
    version: {args: [--version], regex: '(('}
`, []string{
			`demo.yaml:3:39: tools.a.pathArg: position 5 out of range`,
			`demo.yaml:9:41: tools.b.version.regex: invalid regex`,
			`demo.yaml:7:17: tools.b.inputs.v.type: unknown type "int"`,
			`demo.yaml:8:10: tools.b.inputs.w: input needs flag or arg`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("demo.yaml", []byte(tt.yaml))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if len(fe.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(fe.Problems), len(tt.want), err)
			}
			for i, p := range fe.Problems {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, p.String(), tt.want[i])
				}
			}
		})
	}
}

func TestParseCapsProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("language: {id: demo}\ntools:\n  a:\n    command: x\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "    unknown%d: 1\n", i)
	}
	_, err := Parse("demo.yaml", []byte(b.String()))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want *FileError", err)
	}
	if len(fe.Problems) != maxProblems+1 || fe.Problems[maxProblems].Message != "900 more problems not shown" {
		t.Errorf("got %d problems, last %q", len(fe.Problems), fe.Problems[len(fe.Problems)-1])
	}
}

func TestParseAliases(t *testing.T) {
	t.Run("modest anchors load", func(t *testing.T) {
		src := `language: {id: demo}
tools:
  build: &tool
    command: make
    args: &args [all, -j4]
    timeout: 5m
  test:
    command: make
    args: *args
  check: *tool
`
		f, err := Parse("demo.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(f.Tools["test"].Args, " "); got != "all -j4" {
			t.Errorf("test args = %q", got)
		}
		if c := f.Tools["check"]; c.ID != "demo.check" || c.Command != "make" {
			t.Errorf("aliased tool = %+v", c)
		}
	})
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		// An aliased tool is validated like any other: its inputs and
		// parsers were once skipped because lookups stopped at the alias.
		{"aliased tool is validated", `language: {id: demo}
semantic:
  command: x
  settings:
    t: &t {command: x, inputs: {v: {type: int}}, outputParsers: {e: {type: regex, pattern: '('}}}
tools:
  b: *t
`, []string{
			`demo.yaml:5:43: tools.b.inputs.v.type: unknown type "int"`,
			`demo.yaml:5:36: tools.b.inputs.v: input needs flag or arg`,
			`demo.yaml:5:92: tools.b.outputParsers.e.pattern:`,
		}},
		{"self-containing anchor", "language: {id: demo}\ntools:\n  a: &a {command: x, args: [*a]}\n",
			[]string{"demo.yaml:3:29: alias *a refers to an anchor that contains it"}},
		{"alias bomb", aliasBomb(), []string{"demo.yaml:10:14: aliases expand to more than 10000 nodes (at alias *l3)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("demo.yaml", []byte(tt.yaml))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want *FileError", err)
			}
			if len(fe.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(fe.Problems), len(tt.want), err)
			}
			for i, p := range fe.Problems {
				if !strings.HasPrefix(p.String(), tt.want[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, p.String(), tt.want[i])
				}
			}
		})
	}
}

// BenchmarkParseManyTools parses specs of 1,000 and 10,000 tools with an
// input and a parser each: the time per tool stays flat (validation looked
// every tool up by scanning the tools mapping, quadratic in their number).
func BenchmarkParseManyTools(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		var sb strings.Builder
		sb.WriteString("language: {id: many}\ntools:\n")
		for i := range n {
			fmt.Fprintf(&sb, "  t%d:\n    command: x\n    inputs: {v: {type: string, flag: -v}}\n"+
				"    outputParsers: {e: {type: lineMatch, pattern: error}}\n", i)
		}
		data := []byte(sb.String())
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse("many.yaml", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tool")
		})
	}
}

// BenchmarkParseMiBOfKeys parses a 1 MiB spec (the size cap) of 100,000
// unknown keys: yaml.v3's Node.Decode compares every key of a mapping with
// every other and took a minute on it; the problems are capped.
func BenchmarkParseMiBOfKeys(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < DefaultMaxSize-16; i++ {
		fmt.Fprintf(&sb, "k%d: 1\n", i)
	}
	data := []byte(sb.String())
	for b.Loop() {
		_, err := Parse("keys.yaml", data)
		var fe *FileError
		if !errors.As(err, &fe) || len(fe.Problems) != maxProblems+1 {
			b.Fatalf("err = %v", err)
		}
	}
}

// A YAML syntax error names the line and column of the fault, not the line
// of the mapping around it.
func TestSyntaxErrorPosition(t *testing.T) {
	tests := []struct {
		name, data string
		line, col  int
	}{
		{"unclosed flow mapping", "language:\n  id: x\ntools:\n  a: {command: \"true\"\n  b: [x]\n", 4, 22},
		{"bad indentation", "language:\n  id: x\n tools:\n  a: 1\n", 3, 2},
		{"tab indentation", "language:\n\tid: x\n", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("demo.yaml", []byte(tt.data))
			var fe *FileError
			if !errors.As(err, &fe) || len(fe.Problems) == 0 {
				t.Fatalf("err = %v", err)
			}
			if p := fe.Problems[0]; p.Line != tt.line || p.Column != tt.col {
				t.Errorf("problem at %d:%d, want %d:%d: %s", p.Line, p.Column, tt.line, tt.col, p.Message)
			}
		})
	}
}
