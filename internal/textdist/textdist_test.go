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
