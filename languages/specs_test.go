package languages_test

import (
	"context"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/host/spec"
)

// How a shipped tool is tested.
const (
	realRun    = "real"   // run on this machine against fixtures in testdata/
	sampleRun  = "sample" // parsers run on captured output: the tool cannot be installed here
	exitOnly   = "exit"   // no output parsers; nothing to parse beyond the exit code
	seedVerbat = "seed"   // the seed's verbatim spec, only loaded and validated
)

// coverage lists every shipped tool and how it is tested. A new tool must
// be added here, with a test.
var coverage = map[string]string{
	"go.build": realRun, "go.vet": realRun, "go.test": realRun, "go.fmt": realRun,
	"go.fmt_check": realRun, "go.lint": realRun, "go.mod_tidy": exitOnly, "go.run": realRun,

	"rust.check": realRun, "rust.build": realRun, "rust.test": realRun, "rust.clippy": realRun,
	"rust.fmt": realRun, "rust.fmt_check": realRun, "rust.run": realRun,

	"typescript.typecheck": realRun, "typescript.build": realRun, "typescript.test": realRun,
	"typescript.lint": realRun, "typescript.format": realRun, "typescript.format_check": realRun,

	"javascript.check": realRun, "javascript.test": realRun, "javascript.lint": realRun,
	"javascript.format": realRun, "javascript.format_check": realRun, "javascript.run": realRun,

	"python.check": realRun, "python.typecheck": realRun, "python.test": realRun, "python.run": realRun,
	"python.pytest": sampleRun, "python.lint": sampleRun, "python.format_check": sampleRun,
	"python.format": exitOnly,

	"c.check": realRun, "c.build": realRun, "c.test": realRun,
	"c.format_check": sampleRun, "c.lint": sampleRun, "c.format": exitOnly,

	"java.compile": realRun, "java.run": realRun,
	"java.build": sampleRun, "java.test": sampleRun, "java.format_check": sampleRun, "java.format": exitOnly,

	"csharp.build": sampleRun, "csharp.test": sampleRun, "csharp.format_check": sampleRun,
	"csharp.format": exitOnly, "csharp.run": sampleRun,

	"elm.make": sampleRun, "elm.build": sampleRun, "elm.test": sampleRun,
	"elm.format_check": sampleRun, "elm.format": exitOnly,

	"fsharp.check_project": seedVerbat, "fsharp.build": seedVerbat, "fsharp.format": seedVerbat,
	"fsharp.test": seedVerbat, "fsharp.fsi": seedVerbat,
	"haskell.build": seedVerbat, "haskell.test": seedVerbat, "haskell.format": seedVerbat,
	"haskell.lint": seedVerbat, "haskell.typecheck": seedVerbat, "haskell.ghci": seedVerbat,
}

// seedSpecs are the seed's YAML, shipped verbatim; the rest are ours.
var seedSpecs = map[string]bool{"fsharp": true, "haskell": true}

func TestShippedSpecsLoad(t *testing.T) {
	t.Parallel()
	set := shipped(t)
	var ids []string
	for _, f := range set.Languages {
		ids = append(ids, f.Language.ID)
	}
	want := []string{"c", "csharp", "elm", "fsharp", "go", "haskell", "java", "javascript", "python", "rust", "typescript"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("shipped languages = %v, want %v", ids, want)
	}

	// Every registered tool is known to the coverage table, and the host
	// registers every shipped tool.
	h := newHost(t, t.TempDir())
	seen := map[string]bool{}
	for _, f := range set.Languages {
		for _, key := range f.ToolOrder {
			id := f.Tools[key].ID
			seen[id] = true
			if _, ok := coverage[id]; !ok {
				t.Errorf("%s (%s) is not in the coverage table", id, f.Source)
			}
			if _, err := h.Registry.Tool(id); err != nil {
				t.Errorf("%s not registered: %v", id, err)
			}
		}
	}
	for id := range coverage {
		if !seen[id] {
			t.Errorf("coverage lists %s, which no shipped spec defines", id)
		}
	}
}

func TestShippedSpecsComplete(t *testing.T) {
	t.Parallel()
	for _, f := range shipped(t).Languages {
		if seedSpecs[f.Language.ID] {
			continue
		}
		t.Run(f.Language.ID, func(t *testing.T) {
			if f.Language.Name == "" || len(f.Language.Extensions) == 0 || len(f.Language.ProjectFiles) == 0 {
				t.Errorf("language metadata incomplete: %+v", f.Language)
			}
			if len(f.Capabilities) == 0 || f.Priority == 0 {
				t.Errorf("capabilities %v, priority %d", f.Capabilities, f.Priority)
			}
			p := f.Prompt
			for name, text := range map[string]string{"workflow": p.Workflow, "bestPractices": p.BestPractices,
				"syntaxReminders": p.SyntaxReminders, "projectStructure": p.ProjectStructure, "availableTools": p.AvailableTools} {
				if strings.TrimSpace(text) == "" {
					t.Errorf("prompt.%s is empty", name)
				}
			}
			for _, key := range f.ToolOrder {
				tool := f.Tools[key]
				if tool.Description == "" || len(tool.Categories) == 0 || tool.Install == "" || tool.Timeout == 0 {
					t.Errorf("%s: description, categories, install and timeout are required", tool.ID)
				}
				if !strings.HasPrefix(tool.Install, "pkg:") {
					t.Errorf("%s: install %q is not a package URL", tool.ID, tool.Install)
				}
				if tool.ReadOnly && tool.RequiresConfirmation {
					t.Errorf("%s: readOnly tools need no confirmation", tool.ID)
				}
				if !strings.Contains(tool.ID, "format_check") && strings.Contains(tool.ID, "format") && !tool.RequiresConfirmation {
					t.Errorf("%s rewrites files but does not require confirmation", tool.ID)
				}
				if kind := coverage[tool.ID]; kind == exitOnly && len(tool.Parsers) > 0 {
					t.Errorf("%s has output parsers but the coverage table says %q", tool.ID, kind)
				} else if kind == sampleRun && len(tool.Parsers) == 0 {
					t.Errorf("%s has no output parsers to test on samples", tool.ID)
				}
			}
		})
	}
}

// TestRealToolsInstalled fails when a tool that this machine must run for
// real is missing: such tools are never skipped.
func TestRealToolsInstalled(t *testing.T) {
	t.Parallel()
	var ids []string
	for id := range coverage {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	tools := toolsByID(shipped(t))
	for _, id := range ids {
		tool := tools[id]
		if coverage[id] != realRun || tool == nil {
			continue
		}
		_, err := exec.LookPath(tool.Command)
		if err != nil && tool.Fallback != nil {
			_, err = exec.LookPath(tool.Fallback.Command)
		}
		if err != nil {
			t.Errorf("%s: %s is not installed (install: %s; pinned tools come from scripts/install-tools.sh)", id, tool.Command, tool.Install)
		}
	}
}

func TestSemanticBlocks(t *testing.T) {
	t.Parallel()
	set := shipped(t)
	for _, tc := range []struct {
		lang, command, install string
		languageIDs            map[string]string
	}{
		{"go", "gopls", "pkg:golang/golang.org/x/tools/gopls@v0.23.0", map[string]string{".go": "go"}},
		{"python", "pyright-langserver", "pkg:npm/pyright@1.1.414", map[string]string{".py": "python"}},
		{"typescript", "typescript-language-server", "pkg:npm/typescript-language-server@5.1.3",
			map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript"}},
		{"csharp", "roslyn-language-server", "pkg:generic/roslyn-language-server", map[string]string{".cs": "csharp"}},
	} {
		f, ok := set.Language(tc.lang)
		if !ok || f.Semantic == nil {
			t.Errorf("%s: no semantic block", tc.lang)
			continue
		}
		s := f.Semantic.Preferred()
		if s.Command != tc.command || s.Install != tc.install || len(s.RootMarkers) == 0 {
			t.Errorf("%s: semantic = %+v", tc.lang, s)
		}
		for ext, id := range tc.languageIDs {
			if s.LanguageIDs[ext] != id {
				t.Errorf("%s: languageIds[%s] = %q, want %q", tc.lang, ext, s.LanguageIDs[ext], id)
			}
		}
	}
}

// TestVersionProbes runs the version probe of every installed tool and
// checks that its regex finds a version.
func TestVersionProbes(t *testing.T) {
	t.Parallel()
	type probe struct{ command, args, regex string }
	seen := map[probe][]string{}
	for _, f := range shipped(t).Languages {
		for _, key := range f.ToolOrder {
			tool := f.Tools[key]
			if tool.Version == nil {
				continue
			}
			p := probe{tool.Command, strings.Join(tool.Version.Args, " "), tool.Version.Regex}
			seen[p] = append(seen[p], tool.ID)
		}
		if s := f.Semantic; s != nil {
			for _, srv := range s.Candidates {
				if srv.Version != nil {
					p := probe{srv.Command, strings.Join(srv.Version.Args, " "), srv.Version.Regex}
					seen[p] = append(seen[p], f.Language.ID+" (language server "+srv.Name+")")
				}
			}
		}
	}
	required := map[string]bool{"gopls": true, "typescript-language-server": true}
	tools := toolsByID(shipped(t))
	for id, kind := range coverage {
		if kind == realRun && tools[id] != nil {
			required[tools[id].Command] = true
		}
	}
	ran := 0
	for p, ids := range seen {
		path, err := exec.LookPath(p.command)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, path, strings.Fields(p.args)...).CombinedOutput()
		cancel()
		if err != nil {
			// rustup installs proxies for components that are not
			// installed (rust-analyzer); only required tools must work.
			if required[p.command] {
				t.Errorf("%v: %s %s: %v\n%s", ids, p.command, p.args, err, out)
			} else {
				t.Logf("%v: %s %s: %v (not a required tool)", ids, p.command, p.args, err)
			}
			continue
		}
		ran++
		m := regexp.MustCompile(p.regex).FindStringSubmatch(string(out))
		if len(m) < 2 || m[1] == "" {
			t.Errorf("%v: version regex %q finds no version in %q", ids, p.regex, out)
		}
	}
	if ran == 0 {
		t.Fatal("no version probe ran")
	}
}

func toolsByID(set *spec.Set) map[string]*spec.Tool {
	m := map[string]*spec.Tool{}
	for _, f := range set.Languages {
		for _, tool := range f.Tools {
			m[tool.ID] = tool
		}
	}
	return m
}

// TestResultModel: every shipped test tool reports tests (an output named
// tests, or passed and failed), and every format check reports the files
// it would change (an output named files), so that each gets the one
// result shape (exectool.Shape).
func TestResultModel(t *testing.T) {
	t.Parallel()
	for _, f := range shipped(t).Languages {
		for _, key := range f.ToolOrder {
			tool := f.Tools[key]
			_, tests := tool.OutputParsers["tests"]
			_, passed := tool.OutputParsers["passed"]
			_, failed := tool.OutputParsers["failed"]
			if (key == "test" || key == "pytest") && !tests && !(passed && failed) {
				t.Errorf("%s runs tests but has no tests output (nor passed and failed)", tool.ID)
			}
			if _, files := tool.OutputParsers["files"]; (key == "format_check" || key == "fmt_check") && !files {
				t.Errorf("%s checks formatting but has no files output", tool.ID)
			}
		}
	}
}
