package toolname_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/langhost/langhost/host/toolname"
)

// clientName is the name pattern OpenAI, Claude Desktop and Copilot enforce.
var clientName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestName(t *testing.T) {
	long := "go." + strings.Repeat("x", 80)
	tests := []struct{ id, name string }{
		{"go.build", "go_build"},
		{"go.find_references", "go_find_references"},
		{"csharp.semantic_format", "csharp_semantic_format"},
		{"my-lang.lint", "my-lang_lint"},
		{"c++.build", "c_2B_2B_build"},
		{"c#.format", "c_23_format"},
		{"go.x_AB", "go_x_5FAB"}, // an "_" that would read as an escape is escaped
		{"go.x_ab", "go_x_ab"},
		{"go.ünï", "go__C3_BCn_C3_AF"},
		{"go.a b", "go_a_20b"},
		{long, "go_" + strings.Repeat("x", 50) + "-" + "" /* hash checked below */},
	}
	for _, tt := range tests {
		got := toolname.Name(tt.id)
		if !clientName.MatchString(got) || !toolname.Valid(got) {
			t.Errorf("Name(%q) = %q, not a valid client name", tt.id, got)
		}
		if tt.id == long {
			if !strings.HasPrefix(got, tt.name) || len(got) != toolname.MaxLen {
				t.Errorf("Name(long) = %q (%d bytes)", got, len(got))
			}
			continue
		}
		if got != tt.name {
			t.Errorf("Name(%q) = %q, want %q", tt.id, got, tt.name)
		}
	}
}

func TestLongNamesStayDistinctAndDeterministic(t *testing.T) {
	a := "go." + strings.Repeat("y", 70) + "a"
	b := "go." + strings.Repeat("y", 70) + "b"
	if toolname.Name(a) == toolname.Name(b) {
		t.Fatalf("two long ids share the name %q", toolname.Name(a))
	}
	if first, again := toolname.Name(a), toolname.Name(a); first != again {
		t.Fatal("Name is not deterministic")
	}
	tab, err := toolname.NewTable([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, b} {
		if back, ok := tab.ID(toolname.Name(id)); !ok || back != id {
			t.Errorf("ID(Name(%q)) = %q, %v", id, back, ok)
		}
	}
}

func TestTable(t *testing.T) {
	ids := []string{"go.build", "go.find_references", "c++.build", "go.x_AB", "my_lang.vet"}
	tab, err := toolname.NewTable(ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		name, ok := tab.Name(id)
		if !ok {
			t.Fatalf("no name for %s", id)
		}
		if back, ok := tab.ID(name); !ok || back != id {
			t.Errorf("ID(%q) = %q, %v, want %q", name, back, ok, id)
		}
	}
	if _, ok := tab.ID("go.build"); ok {
		t.Error("the dotted id is not an MCP name of the table")
	}
	if _, ok := tab.ID("go_nope"); ok {
		t.Error("unknown name resolved")
	}
}

func TestTableRefusesCollisions(t *testing.T) {
	for _, ids := range [][]string{
		{"go.a_b", "go.a.b"},
		{"my_lang.vet", "my.lang_vet"},
	} {
		_, err := toolname.NewTable(ids)
		if err == nil || !strings.Contains(err.Error(), "same MCP name") || !strings.Contains(err.Error(), ids[0]) || !strings.Contains(err.Error(), ids[1]) {
			t.Errorf("NewTable(%q) = %v, want a collision naming both", ids, err)
		}
	}
	if _, err := toolname.NewTable([]string{"go.build", "go.build"}); err != nil {
		t.Errorf("a repeated id is not a collision: %v", err)
	}
}

func TestResolve(t *testing.T) {
	ids := []string{"go.build", "go.find_references", "c++.build"}
	for in, want := range map[string]string{
		"go.build": "go.build", "go_build": "go.build",
		"go_find_references": "go.find_references", "c_2B_2B_build": "c++.build",
	} {
		if got, ok := toolname.Resolve(in, ids); !ok || got != want {
			t.Errorf("Resolve(%q) = %q, %v, want %q", in, got, ok, want)
		}
	}
	if _, ok := toolname.Resolve("go_vet", ids); ok {
		t.Error("resolved an unknown name")
	}
}

func FuzzName(f *testing.F) {
	for _, s := range []string{"go.build", "c++.x", "a_BC", "", strings.Repeat("é", 60)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if id == "" {
			return
		}
		if name := toolname.Name(id); !clientName.MatchString(name) {
			t.Fatalf("Name(%q) = %q", id, name)
		}
	})
}
