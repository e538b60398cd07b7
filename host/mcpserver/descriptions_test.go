package mcpserver

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/config"
	"github.com/langhost/langhost/host/filetools"
	"github.com/langhost/langhost/host/registry"
)

// languageNames are the languages a description may name, by the spec
// ids of the languages they belong to.
var languageNames = map[string]*regexp.Regexp{
	"python":     regexp.MustCompile(`\bPython\b`),
	"csharp":     regexp.MustCompile(`\bC#|\.NET\b`),
	"typescript": regexp.MustCompile(`\bTypeScript\b`),
	"rust":       regexp.MustCompile(`\bRust\b`),
	"java":       regexp.MustCompile(`\bJava\b`),
	"go":         regexp.MustCompile(`\bGo\b`),
}

// standardOnly are what a semantic result holds only at detail standard
// or full, which MCP does not default to.
var standardOnly = regexp.MustCompile(`(?i)line text|snippet|containing member|hover`)

// TestDescriptionsTellWhatToolsDo holds every shipped tool's MCP
// definition to what the tool does: it names no other language than its
// own, does not promise what its default detail leaves out, does not talk
// of a confirmation (over MCP the client's approval is the confirmation),
// ends its sentences, and its annotations follow its effects: read-only
// only when it writes nothing and runs no untrusted workspace code,
// destructive when it writes.
func TestDescriptionsTellWhatToolsDo(t *testing.T) {
	cfg := &config.Config{Workspace: t.TempDir(), Timeout: time.Minute, MaxOutput: 1 << 20}
	h, err := host.New(context.Background(), cfg, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	tools := h.Registry.List()
	kinds := map[string]int{}
	for _, tool := range tools {
		kinds[tool.Kind]++
		for _, trusted := range []bool{false, true} {
			mt, err := mcpTool(tool, false, trusted)
			if err != nil {
				t.Errorf("%s: %v", tool.ID, err)
				continue
			}
			d := mt.Description
			for lang, re := range languageNames {
				if tool.Kind != filetools.KindBuiltin && lang != tool.Language && !(lang == "typescript" && tool.Language == "javascript") && re.MatchString(d) {
					t.Errorf("%s (%s) names %s: %q", tool.ID, tool.Language, re, d)
				}
			}
			if strings.Contains(strings.ToLower(d), "confirmation") {
				t.Errorf("%s speaks of a confirmation over MCP: %q", tool.ID, d)
			}
			if compactByDefault(tool) && standardOnly.MatchString(d) {
				t.Errorf("%s promises %q, which its MCP default (detail compact) leaves out: %q", tool.ID, standardOnly.FindString(d), d)
			}
			if d == "" || !strings.HasSuffix(d, ".") || strings.Contains(d, " Runs code") && !strings.Contains(d, ". Runs code") {
				t.Errorf("%s: description %q is not whole sentences", tool.ID, d)
			}
			writes := tool.SideEffects != "none" && tool.SideEffects != ""
			if mt.Annotations.ReadOnlyHint && (writes || !tool.ReadOnly || tool.WorkspaceCode != "" && !trusted) {
				t.Errorf("%s (side effects %q, workspace code %q, trusted %v) is annotated read-only", tool.ID, tool.SideEffects, tool.WorkspaceCode, trusted)
			}
			if tool.RequiresConfirmation && !*mt.Annotations.DestructiveHint {
				t.Errorf("%s changes files and is not annotated destructive", tool.ID)
			}
		}
	}
	t.Logf("%d tools: %v", len(tools), kinds)
	// Semantic tools are described by their plugin, which this test does
	// not start: plugins/semantic's TestOperationDescriptions holds theirs.
	if kinds[filetools.KindBuiltin] == 0 || kinds[registry.KindCLI] == 0 {
		t.Errorf("the registry has %v: the test checks nothing of a kind", kinds)
	}
}
