package semantic

import "testing"

func TestDetectIndent(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		size   int
		spaces bool
	}{
		{"empty", "", 4, true},
		{"flat", "a\nb\n", 4, true},
		{"two spaces", "class A {\n  m() {\n    return 1;\n  }\n}\n", 2, true},
		{"four spaces", "def f():\n    if x:\n        return 1\n", 4, true},
		{"tabs", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", 4, false},
		{"continuation lines do not win", "a(\n  b,\n  c)\nclass B:\n    x\n    y\nclass C:\n    z\n", 4, true},
		{"blank lines ignored", "f {\n\n  a\n\n  b\n}\n", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size, spaces := detectIndent([]byte(tt.text))
			if size != tt.size || spaces != tt.spaces {
				t.Errorf("detectIndent = %d, %v; want %d, %v", size, spaces, tt.size, tt.spaces)
			}
		})
	}
}
