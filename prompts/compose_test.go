package prompts_test

import (
	"strings"
	"testing"

	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/prompts"
)

// load returns the shipped spec of lang and its registered tools.
func load(t testing.TB, lang string) (*spec.File, []*registry.Tool) {
	t.Helper()
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS}})
	f, ok := set.Language(lang)
	if !ok {
		t.Fatalf("shipped spec %s did not load: %v", lang, set.Problems)
	}
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := exectool.Register(reg, set, exectool.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	var tools []*registry.Tool
	for _, tool := range reg.Tools() {
		if tool.Language == lang {
			tools = append(tools, tool)
		}
	}
	return f, tools
}

func TestComposeServesBothPlacements(t *testing.T) {
	tests := []struct {
		lang string
		want []string // substrings in order
	}{
		// fsharp: sections inside prompt:, including its own tool list.
		{"fsharp", []string{
			"## Workflow", "fsharp.check_project to type-check",
			"## Available tools", "- `fsharp.check_project` - Type-check F# project",
			"## Best practices", "|> pipeline operator",
		}},
		// haskell: bestPractices and syntaxReminders at top level, no
		// prompt: block, so workflow, tools and structure are generated.
		{"haskell", []string{
			"## Workflow", "4. **Check**: run `haskell.build`",
			"## Available tools", "- `haskell.build` (", "Build Haskell project",
			"- `haskell.format` (", "Changes files; runs only when allowed.",
			"## Best practices", "Haskell is lazy by default",
			"## Syntax reminders", "add :: Int -> Int -> Int",
			"## Project structure", "`.hs`", "`package.yaml`",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			f, tools := load(t, tt.lang)
			got, err := prompts.Compose(f, tools, "")
			if err != nil {
				t.Fatal(err)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("prompt lacks %q (in order); prompt:\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if strings.Contains(got, "## Objective") {
				t.Errorf("objective section without a task:\n%s", got)
			}
		})
	}
}

func TestComposeTask(t *testing.T) {
	f, tools := load(t, "haskell")
	got, err := prompts.Compose(f, tools, "  Fix the failing parser test.  ")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "## Objective\n\nFix the failing parser test.\n\n## Workflow") {
		t.Errorf("objective not inserted before the workflow:\n%s", got)
	}
	if !strings.HasPrefix(got, "You are a Haskell coding agent") {
		t.Errorf("prompt does not open with the role:\n%s", got)
	}
}

func TestToolListMarksInputs(t *testing.T) {
	_, tools := load(t, "haskell")
	list := prompts.ToolList(tools)
	if !strings.Contains(list, "- `haskell.format` (path, workdir): Format Haskell code with Ormolu") {
		t.Errorf("format line wrong:\n%s", list)
	}
	if got := prompts.ToolList(nil); got != "No tools are available for this language." {
		t.Errorf("empty list = %q", got)
	}
}
