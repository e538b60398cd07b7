package workspace

import "testing"

func TestSkipDir(t *testing.T) {
	tests := []struct {
		name string
		skip bool
	}{
		{".git", true}, {".vs", true}, {".idea", true}, {".langhost", true},
		{"bin", true}, {"Bin", true}, {"obj", true}, {"OBJ", true},
		{"node_modules", true}, {"vendor", true}, {"target", true}, {"dist", true}, {"build", true},
		{"src", false}, {"lib", false}, {"binary", false}, {"objects", false}, {"builder", false},
		{".", false}, {"..", false}, {"", false},
	}
	for _, tt := range tests {
		if got := SkipDir(tt.name); got != tt.skip {
			t.Errorf("SkipDir(%q) = %v, want %v", tt.name, got, tt.skip)
		}
	}
}
