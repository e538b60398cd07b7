package inputname

import (
	"slices"
	"testing"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

func TestSpellings(t *testing.T) {
	for _, tc := range []struct{ old, name string }{
		{"newName", "new_name"},
		{"minSeverity", "min_severity"},
		{"includeDeclaration", "include_declaration"},
		{"endColumn", "end_column"},
	} {
		if got := Snake(tc.old); got != tc.name {
			t.Errorf("Snake(%q) = %q, want %q", tc.old, got, tc.name)
		}
		if got := Deprecated(tc.name); got != tc.old {
			t.Errorf("Deprecated(%q) = %q, want %q", tc.name, got, tc.old)
		}
		if !IsSnake(tc.name) || IsSnake(tc.old) {
			t.Errorf("IsSnake(%q) = %v, IsSnake(%q) = %v", tc.name, IsSnake(tc.name), tc.old, IsSnake(tc.old))
		}
	}
	for _, name := range []string{"file", "path", "_x", "a__b", "x_"} {
		if got := Deprecated(name); got != "" {
			t.Errorf("Deprecated(%q) = %q, want none", name, got)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	known := func(k string) bool { return k == "new_name" || k == "file" }
	for _, tc := range []struct {
		name    string
		in      map[string]any
		want    map[string]any
		renamed []string
		err     string // field of the error
	}{
		{"current", map[string]any{"new_name": "B", "file": "a.go"}, map[string]any{"new_name": "B", "file": "a.go"}, nil, ""},
		{"deprecated", map[string]any{"newName": "B"}, map[string]any{"new_name": "B"}, []string{"newName"}, ""},
		{"unknown stays", map[string]any{"colourName": 1}, map[string]any{"colourName": 1}, nil, ""},
		{"both", map[string]any{"newName": "B", "new_name": "C"}, nil, nil, "newName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			renamed, err := Canonicalize(tc.in, known)
			if tc.err != "" {
				if fe, ok := err.(*failure.Error); !ok || fe.Code != failure.InvalidInput || fe.Field != tc.err {
					t.Fatalf("err = %v, want invalid_input on %s", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(renamed, tc.renamed) || len(tc.in) != len(tc.want) {
				t.Fatalf("renamed %v, err %v, input %v", renamed, err, tc.in)
			}
			for k, v := range tc.want {
				if tc.in[k] != v {
					t.Errorf("input[%s] = %v, want %v", k, tc.in[k], v)
				}
			}
		})
	}
}
