package parsers

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		want    literal
	}{
		{`: error `, literal{": error ", false}},
		{`^(?P<file>[^:]+\.go):(\d+): (?P<message>.+)$`, literal{".go", false}}, // literals inside a capture do not join those outside
		{`Passed:\s*(\d+).*Failed:\s*(\d+)`, literal{"Passed:", false}},
		{`(?i)passed:\s*(\d+)`, literal{"ed:", true}}, // s folds to ſ, so the run splits
		{`(?i)error TS(\d+)`, literal{"error t", true}},
		{`(a|b)c`, literal{"c", false}},
		{`(?:abc)?d`, literal{"d", false}},
		{`x*`, literal{}},
		{`(?:warn)+ing`, literal{"warn", false}},
		{`é(\d)`, literal{"é", false}},
	}
	for _, tt := range tests {
		re := regexp.MustCompile(tt.pattern)
		pre := prefilter(re)
		var got literal
		if pre != nil {
			got = literal{string(pre.needle), pre.fold}
		}
		if got != tt.want {
			t.Errorf("prefilter(%q) = %+v, want %+v", tt.pattern, got, tt.want)
		}
	}
}

// TestPrefilterNeverRejectsAMatch checks on random lines that a prefilter
// only skips lines the regexp would not match.
func TestPrefilterNeverRejectsAMatch(t *testing.T) {
	patterns := []string{
		`(?i)error (\w+)`, `(?i)SKIP(\d)`, `kelvin(\d)`, `(?i)k(\d)`, `a.*b:(\d)`, `(?i)é(\d)`, `(?i)[a-z]+ed: (\d)`,
	}
	alphabet := []string{"e", "E", "r", "R", "o", "O", " ", "s", "S", "ſ", "k", "K", "K", "i", "I", "p", "P", "1", "a", "b", ":", "é", "É", "d", "D"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pat := range patterns {
		re := regexp.MustCompile(pat)
		pre := prefilter(re)
		if pre == nil {
			continue
		}
		for range 20000 {
			var line []byte
			for range rng.IntN(12) {
				line = append(line, alphabet[rng.IntN(len(alphabet))]...)
			}
			if re.Match(line) && !pre.match(line) {
				t.Fatalf("prefilter %q of %q rejects matching line %q", pre.needle, pat, line)
			}
		}
	}
}

func TestSubstringFold(t *testing.T) {
	tests := []struct {
		needle, line string
		want         bool
	}{
		{": error ", "a.go:1: ERROR x", true},
		{": error ", "a.go:1: Error", false},
		{"error", "ERRO", false},
		{"tt", "aTt", true},
		{"xyz", "xyxyZ", true},
		{"q", "", false},
	}
	for _, tt := range tests {
		if got := newSubstring(tt.needle, true).match([]byte(tt.line)); got != tt.want {
			t.Errorf("fold match(%q in %q) = %v, want %v", tt.needle, tt.line, got, tt.want)
		}
	}
}
