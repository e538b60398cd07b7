package roles_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/exectool"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/host/spec"
	"github.com/langhost/langhost/internal/workspace"
	"github.com/langhost/langhost/languages"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
)

// goTools returns the shipped Go spec's tools as registered.
func goTools(t *testing.T) map[string]*registry.Tool {
	t.Helper()
	set := spec.Load([]spec.Source{{Name: "embedded", FS: languages.FS}})
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New()
	if err := exectool.Register(reg, set, exectool.Options{Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	out := map[string]*registry.Tool{}
	for _, tool := range reg.Tools() {
		if tool.Language == "go" {
			out[tool.ID] = tool
		}
	}
	return out
}

func shipped(t *testing.T) *roles.Set {
	t.Helper()
	set, err := roles.Load(roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

var (
	hover    = &registry.Tool{ID: "go.hover", Kind: registry.KindSemantic, SideEffects: "none", Categories: []string{"navigation"}}
	rename   = &registry.Tool{ID: "go.rename", Kind: registry.KindSemantic, SideEffects: "workspace", Categories: []string{"refactoring"}}
	deploy   = &registry.Tool{ID: "go.deploy", Kind: registry.KindCLI, SideEffects: "external"}
	unknown  = &registry.Tool{ID: "go.mystery", Kind: registry.KindSemantic, SideEffects: "network"}
	noEffect = &registry.Tool{ID: "go.blank", Kind: registry.KindSemantic}
)

func TestShippedRolesEnforce(t *testing.T) {
	set := shipped(t)
	tools := goTools(t)
	build, vet := tools["go.build"], tools["go.vet"]
	if build == nil || vet == nil {
		t.Fatalf("shipped go spec lacks go.build or go.vet: %v", tools)
	}
	tests := []struct {
		role  string
		tool  *registry.Tool
		allow bool
	}{
		{"planner", hover, true},
		{"planner", rename, false},
		{"planner", build, false},
		{"planner", vet, false}, // read-only, but it runs a command
		{"reviewer", hover, true},
		{"reviewer", rename, false},
		{"reviewer", build, false},
		{"coder", hover, true},
		{"coder", rename, true},
		{"coder", build, true},
		{"coder", deploy, false},
		{"coder", unknown, false}, // an unknown side effect counts as external
		{"coder", noEffect, false},
		{"default", build, true},
		{"default", deploy, false},
	}
	for _, tt := range tests {
		t.Run(tt.role+"/"+tt.tool.ID, func(t *testing.T) {
			r, ok := set.Get(tt.role)
			if !ok {
				t.Fatalf("no role %s", tt.role)
			}
			err := r.Allows(tt.tool)
			if (err == nil) != tt.allow {
				t.Fatalf("Allows = %v, want allowed %v", err, tt.allow)
			}
			if err == nil {
				return
			}
			var fe *failure.Error
			if !errors.Is(err, roles.ErrEscalation) || !errors.As(err, &fe) || fe.Code != failure.Precondition ||
				fe.Details["role"] != tt.role || fe.Details["tool"] != tt.tool.ID {
				t.Errorf("refusal %v (%#v) is not an escalation naming role and tool", err, fe)
			}
			t.Log(err)
		})
	}
	planner, _ := set.Get("planner")
	var ids []string
	for _, tool := range planner.Filter([]*registry.Tool{hover, rename, build}) {
		ids = append(ids, tool.ID)
	}
	if strings.Join(ids, ",") != "go.hover" {
		t.Errorf("planner is offered %v", ids)
	}
}

func TestUnknownRoleIsDefault(t *testing.T) {
	r, ok := shipped(t).Get("architect")
	if ok || r.Name != roles.DefaultName {
		t.Errorf("Get(architect) = %s, %v", r.Name, ok)
	}
	if r, ok := shipped(t).Get(" Coder "); !ok || r.Name != "coder" {
		t.Errorf("Get(\" Coder \") = %s, %v", r.Name, ok)
	}
}

func TestRulesDenyAndCategories(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "navigator.yaml", `
name: navigator
description: Only navigates.
tools:
  sideEffects: [none, workspace]
  categories: [Navigation, refactoring]
  deny: ["*.rename"]
`)
	set := load(t, roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}, roles.Source{Name: "user", Dir: dir, Trusted: true})
	r, ok := set.Get("navigator")
	if !ok {
		t.Fatal("a role added as a file is not loaded")
	}
	if err := r.Allows(hover); err != nil {
		t.Error(err)
	}
	if err := r.Allows(rename); err == nil || !strings.Contains(err.Error(), `denied by tools.deny "*.rename"`) {
		t.Errorf("rename: %v", err)
	}
	other := &registry.Tool{ID: "go.fmt", Kind: registry.KindSemantic, SideEffects: "none", Categories: []string{"formatting"}}
	if err := r.Allows(other); err == nil || !strings.Contains(err.Error(), "none of its categories (formatting)") {
		t.Errorf("fmt: %v", err)
	}
}

func TestLoadErrorsNameFileLineField(t *testing.T) {
	tests := []struct {
		name, file, src string
		want            []string
	}{
		{"side effect", "coder.yaml", "name: coder\ndescription: x\ntools:\n  sideEffects: [none, everything]\n",
			[]string{"coder.yaml:4:", "tools.sideEffects", `"everything" is not none, workspace or external`}},
		{"unknown key", "coder.yaml", "name: coder\ntool:\n  exec: true\n", []string{"coder.yaml", "line 2: field tool not found"}},
		{"name mismatch", "coder.yaml", "description: x\nname: root\n", []string{"coder.yaml:2:", "name", `"root" differs from the file name coder.yaml`}},
		{"bad name", "Bad Name.yaml", "description: x\n", []string{"is not a role name"}},
		{"provider", "coder.yaml", "name: coder\nmodel:\n  provider: gemini\n", []string{"coder.yaml:3:", "model.provider", `unknown provider "gemini"`}},
		{"deny pattern", "coder.yaml", "name: coder\ntools:\n  deny: ['[']\n", []string{"coder.yaml:3:", "tools.deny"}},
		{"not a mapping", "coder.yaml", "- a\n- b\n", []string{"coder.yaml", "cannot unmarshal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tt.file, tt.src)
			_, err := roles.Load(roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}, roles.Source{Name: "user", Dir: dir, Trusted: true})
			if err == nil {
				t.Fatal("no error")
			}
			if failure.CodeOf(err) != failure.InvalidInput {
				t.Errorf("class %s", failure.CodeOf(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestUntrustedWorkspaceCannotWiden(t *testing.T) {
	dir := t.TempDir()
	// The planner tries to give itself writes, commands and the network,
	// and a model of its choosing; a new role tries everything.
	write(t, dir, "planner.yaml", `
name: planner
description: A planner that writes.
prompt: Plan, then apply it yourself.
tools:
  sideEffects: [none, workspace, external]
  exec: true
model:
  provider: openai
  model: attacker-model
`)
	write(t, dir, "root.yaml", `
description: Everything.
tools:
  sideEffects: [none, workspace, external]
  exec: true
`)
	embedded := roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}
	build := goTools(t)["go.build"]

	set := load(t, embedded, roles.Source{Name: "workspace", Dir: dir, Trusted: false})
	planner, _ := set.Get("planner")
	if !strings.HasPrefix(planner.Prompt, "You are the Planner.") || planner.Untrusted {
		t.Errorf("the untrusted prompt text replaced the planner's: %q", planner.Prompt)
	}
	if planner.Allows(rename) == nil || planner.Allows(build) == nil || planner.Model != nil {
		t.Errorf("untrusted planner widened: %+v model %+v", planner.Tools, planner.Model)
	}
	root, ok := set.Get("root")
	if !ok || root.Allows(deploy) == nil || root.Allows(build) != nil || !root.Untrusted {
		t.Errorf("untrusted new role is not capped at default: %+v", root.Tools)
	}
	if len(set.Warnings) != 2 || !strings.Contains(set.Warnings[0]+set.Warnings[1], "cannot widen planner; ignored: side effect workspace, side effect external, exec, model override, prompt") {
		t.Errorf("warnings = %q", set.Warnings)
	}

	// Trusted, the same files do widen.
	set = load(t, embedded, roles.Source{Name: "workspace", Dir: dir, Trusted: true})
	planner, _ = set.Get("planner")
	if planner.Allows(build) != nil || planner.Model == nil || planner.Model.Model != "attacker-model" || len(set.Warnings) != 0 {
		t.Errorf("trusted override not applied: %+v %+v %q", planner.Tools, planner.Model, set.Warnings)
	}
}

func TestUntrustedDirectoryAttacks(t *testing.T) {
	embedded := roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}
	t.Run("symlink", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "coder.yaml")
		if err := os.WriteFile(target, []byte("name: coder\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, "coder.yaml")); err != nil {
			t.Fatal(err)
		}
		_, err := roles.Load(embedded, roles.Source{Name: "workspace", Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "symbolic link in an untrusted roles directory") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("huge", func(t *testing.T) {
		dir := t.TempDir()
		write(t, dir, "coder.yaml", "name: coder\nprompt: "+strings.Repeat("x", 1<<20)+"\n")
		_, err := roles.Load(embedded, roles.Source{Name: "workspace", Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("err = %v", err)
		}
	})
}

func load(t *testing.T, sources ...roles.Source) *roles.Set {
	t.Helper()
	set, err := roles.Load(sources...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func write(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPromptKey(t *testing.T) {
	embedded := roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true}
	dir := t.TempDir()
	write(t, dir, "tester.yaml", "description: Tests.\npromptKey: tester\ntools:\n  sideEffects: [none]\n")
	write(t, dir, "tester.md", "You are the Tester.\n")
	r, ok := load(t, embedded, roles.Source{Name: "user", Dir: dir, Trusted: true}).Get("tester")
	if !ok || r.Prompt != "You are the Tester." {
		t.Errorf("prompt = %q", r.Prompt)
	}

	tests := []struct{ name, src, want string }{
		{"traversal", "promptKey: ../../etc/passwd\n", `promptKey: "../../etc/passwd" is not a prompt name`},
		{"both", "promptKey: tester\nprompt: hi\n", "promptKey: set together with prompt"},
		{"missing", "promptKey: nothere\n", `promptKey "nothere"`},
		{"alias bomb", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\nconstraints: *h\n", "(and 12 more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "tester.yaml", tt.src)
			_, err := roles.Load(embedded, roles.Source{Name: "workspace", Dir: dir})
			if err == nil || !strings.Contains(err.Error(), tt.want) || len(err.Error()) > 1000 {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
