package textdist

import (
	"reflect"
	"testing"
)

func TestClosest(t *testing.T) {
	known := []string{"command", "args", "successCodes", "integer", "string"}
	tests := []struct{ word, want string }{
		{"comand", "command"},
		{"sucessCodes", "successCodes"},
		{"int", "integer"},
		{"ARGS", "args"},
		{"zzzzzz", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.word, known); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestRanked(t *testing.T) {
	ids := []string{"go.build", "go.test", "go.vet", "rust.build", "python.test"}
	if got, want := Ranked("go.buld", ids, 3), []string{"go.build"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ranked = %v, want %v", got, want)
	}
	if got := Ranked("zzzzzzzzzz", ids, 3); len(got) != 0 {
		t.Errorf("Ranked of nonsense = %v", got)
	}
}

// An abbreviation ranks above a word that is fewer edits away: "pkgs" is
// packages, not tags.
func TestAbbreviation(t *testing.T) {
	inputs := []string{"packages", "packet", "tags", "workdir"}
	if got := Closest("pkgs", inputs); got != "packages" {
		t.Errorf("Closest(pkgs) = %q", got)
	}
	if got := Ranked("pkgs", inputs, 3); len(got) == 0 || got[0] != "packages" {
		t.Errorf("Ranked(pkgs) = %q", got)
	}
	for _, tt := range []struct {
		word, candidate string
		want            bool
	}{
		{"pkgs", "packages", true}, {"cfg", "config", true}, {"pkgs", "tags", false},
		{"go", "gofmt", false}, {"packages", "packages", false}, {"kgs", "packages", false},
	} {
		if got := Abbreviates(tt.word, tt.candidate); got != tt.want {
			t.Errorf("Abbreviates(%q, %q) = %v", tt.word, tt.candidate, got)
		}
	}
}
