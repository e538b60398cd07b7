package prompts

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates is parsed once, when first used (not by every command that
// links this package); it is read-only afterwards.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(templateFS, "templates/*.tmpl"))
})

// Sections are the parts of a language's prompt, each ready to print.
type Sections struct {
	Workflow         string
	AvailableTools   string
	BestPractices    string
	SyntaxReminders  string
	ProjectStructure string
}

// SectionsFor fills the sections of f's prompt. Sections the spec leaves
// empty are generated: the workflow from a template naming the language's
// check and test tools, the tool list from tools, the project structure
// from the language's extensions and project files. Best practices and
// syntax reminders are taken from both places the seed puts them (inside
// prompt: and at top level).
func SectionsFor(f *spec.File, tools []*registry.Tool) (Sections, error) {
	s := Sections{
		Workflow:         strings.TrimSpace(f.Prompt.Workflow),
		AvailableTools:   strings.TrimSpace(f.Prompt.AvailableTools),
		BestPractices:    joinDistinct(f.Prompt.BestPractices, f.BestPractices),
		SyntaxReminders:  joinDistinct(f.Prompt.SyntaxReminders, f.SyntaxReminders),
		ProjectStructure: strings.TrimSpace(f.Prompt.ProjectStructure),
	}
	if s.Workflow == "" {
		w, err := defaultWorkflow(tools)
		if err != nil {
			return Sections{}, err
		}
		s.Workflow = w
	}
	if s.AvailableTools == "" {
		s.AvailableTools = ToolList(tools)
	}
	if s.ProjectStructure == "" {
		s.ProjectStructure = projectStructure(f.Language)
	}
	return s, nil
}

// Compose returns the coding prompt of language f. tools are the tools the
// agent can call (the language's tools in the registry, possibly filtered);
// a non-empty task is inserted as the objective.
func Compose(f *spec.File, tools []*registry.Tool, task string) (string, error) {
	return compose(f, tools, task, false)
}

// compose is Compose; generateTools lists tools even when the spec writes
// its own list, which names tools a role may not call.
func compose(f *spec.File, tools []*registry.Tool, task string, generateTools bool) (string, error) {
	s, err := SectionsFor(f, tools)
	if err != nil {
		return "", err
	}
	if generateTools {
		s.AvailableTools = ToolList(tools)
	}
	name := f.Language.Name
	if name == "" {
		name = f.Language.ID
	}
	var b strings.Builder
	err = templates().ExecuteTemplate(&b, "language.md.tmpl", struct {
		Sections
		Name string
		Task string
	}{s, name, strings.TrimSpace(task)})
	if err != nil {
		return "", fmt.Errorf("prompt of %s: %w", f.Language.ID, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// ToolList renders tools as a markdown list: id, inputs (required ones
// marked with *), description and whether the tool changes files.
func ToolList(tools []*registry.Tool) string {
	if len(tools) == 0 {
		return "No tools are available for this language."
	}
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "- `%s`", t.ID)
		if in := inputNames(t); in != "" {
			fmt.Fprintf(&b, " (%s)", in)
		}
		desc := strings.TrimSpace(t.Description)
		if desc == "" && len(t.Command) > 0 {
			desc = "runs `" + strings.Join(t.Command, " ") + "`"
		}
		if desc != "" {
			b.WriteString(": " + desc)
		}
		if t.RequiresConfirmation {
			b.WriteString(" Changes files; runs only when allowed.")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// inputNames lists a tool's input keys, required ones first and starred.
func inputNames(t *registry.Tool) string {
	if t.InputSchema == nil || len(t.InputSchema.Properties) == 0 {
		return ""
	}
	var required, optional []string
	for name := range t.InputSchema.Properties {
		if slices.Contains(t.InputSchema.Required, name) {
			required = append(required, name+"*")
		} else {
			optional = append(optional, name)
		}
	}
	sort.Strings(required)
	sort.Strings(optional)
	return strings.Join(append(required, optional...), ", ")
}

// Categories that make a tool a "check" or a "test" step of the default workflow.
var (
	checkCategories = []string{"build", "compilation", "compile", "typecheck", "type-checking", "lint", "linting", "check", "analysis"}
	testCategories  = []string{"test", "testing"}
)

func defaultWorkflow(tools []*registry.Tool) (string, error) {
	var check, test []string
	for _, t := range tools {
		switch {
		case t.RequiresConfirmation:
		case hasCategory(t, testCategories):
			test = append(test, "`"+t.ID+"`")
		case hasCategory(t, checkCategories):
			check = append(check, "`"+t.ID+"`")
		}
	}
	var b strings.Builder
	err := templates().ExecuteTemplate(&b, "workflow.md.tmpl", struct{ Check, Test string }{
		strings.Join(check, ", "), strings.Join(test, ", "),
	})
	if err != nil {
		return "", fmt.Errorf("default workflow: %w", err)
	}
	return strings.TrimSpace(b.String()), nil
}

func hasCategory(t *registry.Tool, want []string) bool {
	for _, c := range t.Categories {
		if slices.Contains(want, strings.ToLower(c)) {
			return true
		}
	}
	return false
}

func projectStructure(l spec.Language) string {
	var lines []string
	if len(l.Extensions) > 0 {
		lines = append(lines, "- Source files: "+codeList(l.Extensions))
	}
	if len(l.ProjectFiles) > 0 {
		lines = append(lines, "- Project files: "+codeList(l.ProjectFiles))
	}
	return strings.Join(lines, "\n")
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// joinDistinct joins the non-empty, distinct texts with a blank line.
func joinDistinct(texts ...string) string {
	var out []string
	for _, s := range texts {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}
