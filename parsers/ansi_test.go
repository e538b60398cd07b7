package parsers

import (
	"io"
	"testing"
)

func TestStripANSI(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "src/a.ts:1:2 - error", "src/a.ts:1:2 - error"},
		{"sgr", "[\x1b[33mwarn\x1b[39m] math.js", "[warn] math.js"},
		{"bold and reset", "\x1b[1m\x1b[31merror\x1b[0m: x", "error: x"},
		{"params and intermediates", "a\x1b[38;5;196mb\x1b[0 qc", "abc"},
		{"osc hyperlink with BEL", "see \x1b]8;;file:///a.go\x07a.go\x1b]8;;\x07 now", "see a.go now"},
		{"osc with ST", "\x1b]0;title\x1b\\text", "text"},
		{"two-byte escape", "a\x1b=b", "ab"},
		{"cut after ESC", "abc\x1b", "abc"},
		{"cut inside CSI", "abc\x1b[3", "abc"},
		{"cut inside OSC", "abc\x1b]8;;x", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(stripANSI(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("stripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// Prettier colours its warnings whenever CI is set, even into a pipe.
func TestSetParsesColouredOutput(t *testing.T) {
	set := NewSet(map[string]*Parser{
		"unformatted": mustCompile(t, "unformatted", Spec{Type: KindRegex, Pattern: `^\[warn\] (.+\.\w+)$`, Groups: []string{"file"}, Mode: "all"}),
	})
	r := set.Start()
	io.WriteString(r.Writer(Stderr), "[\x1b[33mwarn\x1b[39m] math.js\n[\x1b[33mwarn\x1b[39m] math.test.js\n")
	outputs, _, err := r.Finish(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := asJSON(t, outputs["unformatted"]); got != `[{"file":"math.js"},{"file":"math.test.js"}]` {
		t.Errorf("unformatted = %s", got)
	}
}
