package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The expected bounds were computed apart from this code, from the closed
// form in Python (8/10 -> [0.490, 0.943] is the usual textbook example).
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{8, 10, 0.4901625, 0.9433178},
		{0, 10, 0, 0.2775328},
		{10, 10, 0.7224672, 1},
		{1, 2, 0.0945312, 0.9054688},
		{5, 10, 0.2365931, 0.7634069},
		{81, 263, 0.2552885, 0.3662096},
		{0, 1, 0, 0.7934507},
		{0, 0, 0, 1},  // no trials: nothing known
		{3, 2, 0, 1},  // impossible counts: nothing known
		{-1, 2, 0, 1}, // likewise
	}
	for _, tt := range tests {
		lo, hi := Wilson(tt.k, tt.n, Z95)
		if !near(lo, tt.lo, 5e-7) || !near(hi, tt.hi, 5e-7) {
			t.Errorf("Wilson(%d, %d) = [%.7f, %.7f], want [%.7f, %.7f]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
}

// The expected p-values are 2 * sum(comb(b+c, i) for i <= min(b, c)) / 2^(b+c),
// computed with Python's math.comb.
func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		p    float64
	}{
		{1, 9, 0.021484375}, // 2 * (1 + 10) / 2^10
		{9, 1, 0.021484375}, // symmetric
		{0, 6, 0.03125},     // 2 / 2^6
		{0, 5, 0.0625},      // the smallest n where p < 0.05 is 6
		{2, 8, 0.109375},    // 2 * (1 + 10 + 45) / 2^10
		{5, 5, 1},           // an even split caps at 1
		{3, 4, 1},           // 2 * P(X <= 3 | n=7) = 1
		{0, 0, 1},           // no discordant pairs: no evidence
		{0, 1, 1},           // 2 * 1/2
		{10, 30, 0.002221},  // 2 * P(X <= 10 | n=40)
		{-1, 3, 1},          // impossible counts
	}
	for _, tt := range tests {
		if p := McNemarExact(tt.b, tt.c); !near(p, tt.p, 5e-7) {
			t.Errorf("McNemarExact(%d, %d) = %.9f, want %.9f", tt.b, tt.c, p, tt.p)
		}
	}
}

// A large sample keeps exact arithmetic: far out in the tail the value is
// tiny but not zero, and it matches the normal approximation's order.
func TestMcNemarExactLarge(t *testing.T) {
	p := McNemarExact(400, 600)
	if p <= 0 || p > 1e-9 {
		t.Fatalf("McNemarExact(400, 600) = %g, want a small positive p", p)
	}
	// 2*P(Z <= (400.5-500)/sqrt(250)) ~ 3.1e-10
	if z := math.Erfc(99.5 / math.Sqrt(250) / math.Sqrt2); p < z/3 || p > z*3 {
		t.Errorf("McNemarExact(400, 600) = %g, far from the normal approximation %g", p, z)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{7}, Summary{N: 1, Min: 7, Q1: 7, Median: 7, Q3: 7, Max: 7, Mean: 7}},
		{"four unsorted", []float64{4, 1, 3, 2}, Summary{N: 4, Min: 1, Q1: 1.75, Median: 2.5, Q3: 3.25, Max: 4, Mean: 2.5}},
		{"five", []float64{1, 2, 3, 4, 100}, Summary{N: 5, Min: 1, Q1: 2, Median: 3, Q3: 4, Max: 100, Mean: 22}},
		// R: quantile(c(2, 4, 4, 5, 7, 9, 10, 12), type = 7)
		{"eight", []float64{2, 4, 4, 5, 7, 9, 10, 12}, Summary{N: 8, Min: 2, Q1: 4, Median: 6, Q3: 9.25, Max: 12, Mean: 6.625}},
		{"negative", []float64{-3, -1}, Summary{N: 2, Min: -3, Q1: -2.5, Median: -2, Q3: -1.5, Max: -1, Mean: -2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float64(nil), tt.xs...)
			if got := Summarize(tt.xs); got != tt.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tt.xs, got, tt.want)
			}
			for i := range in {
				if in[i] != tt.xs[i] {
					t.Fatalf("Summarize sorted its input: %v", tt.xs)
				}
			}
		})
	}
}
