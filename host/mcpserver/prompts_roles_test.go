package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/mcpserver"
	"github.com/langhost/langhost/prompts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// userRoles loads the roles as `langhost roles list` does, with a user
// role "docs" next to a user config file.
func userRoles(t *testing.T) *roles.Set {
	t.Helper()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.MkdirAll(roles.UserDir(cfgFile), 0o755); err != nil {
		t.Fatal(err)
	}
	role := "name: docs\ndescription: Writes documentation.\nconstraints:\n  - only touches *.md files\n" +
		"tools:\n  sideEffects: [none]\n  exec: true\nprompt: You are the documentation writer.\n"
	if err := os.WriteFile(filepath.Join(roles.UserDir(cfgFile), "docs.yaml"), []byte(role), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := prompts.LoadRoles(cfgFile, "", false)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func promptText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]string) string {
	t.Helper()
	p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("GetPrompt %s %v: %v", name, args, err)
	}
	return p.Messages[0].Content.(*mcp.TextContent).Text
}

func TestRolePrompts(t *testing.T) {
	h := newHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}, Roles: userRoles(t)})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
		if strings.HasPrefix(p.Name, "role-") && (len(p.Arguments) != 2 || p.Arguments[0].Name != "language" || p.Arguments[0].Required) {
			t.Errorf("%s arguments = %+v; want an optional language (one is served) and a task", p.Name, p.Arguments)
		}
	}
	want := []string{"demo-coding", "role-coder", "role-default", "role-docs", "role-planner", "role-reviewer"}
	if !slices.Equal(names, want) {
		t.Fatalf("prompts = %v, want %v", names, want)
	}

	tests := []struct {
		prompt   string
		args     map[string]string
		want     []string
		wantNot  []string
		language bool
	}{{
		prompt:  "role-planner",
		want:    []string{"## Role: planner", "You are the Planner", "- cannot modify files", "- cannot execute commands", "You are a Demo coding agent", "No tools are available for this language."},
		wantNot: []string{"demo_echo", "demo_fail", "demo.echo", "demo_write"},
	}, {
		prompt:  "role-coder",
		args:    map[string]string{"language": "demo", "task": "Add a flag."},
		want:    []string{"## Role: coder", "`demo_echo`", "`demo_fail`", "Add a flag."},
		wantNot: []string{"`demo.echo`", "demo_write"},
	}, {
		prompt:  "role-docs",
		want:    []string{"## Role: docs", "You are the documentation writer.", "- only touches *.md files", "`demo_echo`"},
		wantNot: []string{"demo_fail"}, // read-only echo has no side effect; fail's is unknown, so external
	}}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			text := promptText(t, cs, tt.prompt, tt.args)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("prompt lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("prompt has %q, a tool the role may not call:\n%s", w, text)
				}
			}
		})
	}
}

// The language argument is required with more than one served language;
// a bad one, or an unknown role, is a clear error.
func TestRolePromptErrors(t *testing.T) {
	h := newHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo", "go"}, Roles: userRoles(t)})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Prompts {
		if p.Name == "role-coder" && !p.Arguments[0].Required {
			t.Errorf("role-coder: language not required with two languages served")
		}
	}
	for prefix, want := range map[string][]string{"": {"demo", "go"}, "g": {"go"}, "x": {}} {
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "role-coder"},
			Argument: mcp.CompleteParamsArgument{Name: "language", Value: prefix},
		})
		if err != nil || !slices.Equal(res.Completion.Values, want) {
			t.Errorf("complete language %q = %+v, %v; want %v", prefix, res, err, want)
		}
	}
	if text := promptText(t, cs, "role-reviewer", map[string]string{"language": "go"}); !strings.Contains(text, "## Role: reviewer") {
		t.Errorf("reviewer prompt for go:\n%s", text)
	}
	tests := []struct {
		name string
		args map[string]string
		want string
	}{
		{"role-coder", nil, "argument language is required: one of demo, go"},
		{"role-coder", map[string]string{"language": "dmeo"}, `"dmeo" is not served (served: demo, go); did you mean demo?`},
		{"role-coder", map[string]string{"language": "python"}, `"python" is not served`},
		{"role-coder", map[string]string{"language": strings.Repeat("x", 10000)}, `"` + strings.Repeat("x", 64) + `..."`},
		{"role-nope", nil, `unknown prompt "role-nope"`},
	}
	for _, tt := range tests {
		_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: tt.name, Arguments: tt.args})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("GetPrompt(%s, %.40v) error = %v, want %q", tt.name, tt.args, err, tt.want)
		}
	}
}

// Each served language's coding prompt and the prerequisites document are
// resources a client can list and read.
func TestPromptResources(t *testing.T) {
	h := newHost(t)
	srv, err := mcpserver.New(h, mcpserver.Options{Languages: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	want := []string{"langhost://languages/demo.md", "langhost://prerequisites.md", "langhost://prompts/demo-coding.md"}
	slices.Sort(uris)
	if !slices.Equal(uris, want) {
		t.Fatalf("resources = %v, want %v", uris, want)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.LanguagePromptURI("demo")})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Contents[0]
	if got.MIMEType != "text/markdown" || !strings.Contains(got.Text, "- `demo_echo` (text*, workdir): Echo the text") || strings.Contains(got.Text, "## Objective") {
		t.Errorf("prompt resource (%s):\n%s", got.MIMEType, got.Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "langhost://prompts/go-coding.md"}); err == nil {
		t.Errorf("a language that is not served has a prompt resource")
	}
}
