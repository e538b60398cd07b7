// Package stats holds the few statistics a bench report states: Wilson
// score intervals for success rates, the exact McNemar test for paired
// outcomes and five-number summaries of a distribution.
package stats

import (
	"math"
	"math/big"
	"slices"
)

// Z95 is the standard normal quantile of a two-sided 95% interval.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval of k successes in n trials at
// the normal quantile z (Z95 for 95%). Unlike the Wald interval it stays
// inside [0, 1] and is not empty at 0 or n successes, which small bench
// samples hit often. With no trials nothing is known: [0, 1].
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 || k < 0 || k > n {
		return 0, 1
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	// At k = 0 or k = n one bound is exactly 0 or 1; rounding must not
	// move it.
	lo, hi = max(0, center-half), min(1, center+half)
	if k == 0 {
		lo = 0
	}
	if k == n {
		hi = 1
	}
	return lo, hi
}

// McNemarExact returns the two-sided p-value of the exact McNemar test
// for b and c discordant pairs (one config succeeded where the other
// failed, and the other way round): the probability, under
// Binomial(b+c, 1/2), of a split at least as uneven as the one seen,
// counted on both sides. The binomial coefficients are summed as exact
// integers, so the value is exact up to its final rounding to float64.
// With no discordant pairs there is no evidence of a difference: 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if b < 0 || c < 0 || n == 0 {
		return 1
	}
	k := min(b, c)
	tail := new(big.Int)
	coef := big.NewInt(1) // C(n, 0)
	for i := 0; i <= k; i++ {
		if i > 0 {
			// C(n, i) = C(n, i-1) * (n-i+1) / i, exact at every step.
			coef.Mul(coef, big.NewInt(int64(n-i+1)))
			coef.Quo(coef, big.NewInt(int64(i)))
		}
		tail.Add(tail, coef)
	}
	// p = 2 * tail / 2^n
	p := new(big.Rat).SetFrac(new(big.Int).Lsh(tail, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
	f, _ := p.Float64()
	return min(f, 1)
}

// Summary is the five-number summary of a sample, with its size and mean.
// Quartiles interpolate linearly between order statistics (Hyndman and
// Fan's type 7, the default of R and NumPy). N is 0 for an empty sample,
// and then every other field is 0.
type Summary struct {
	N      int     `json:"n"`
	Min    float64 `json:"min"`
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
}

// Summarize returns the summary of xs, which it does not modify.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{N: len(s), Min: s[0], Q1: quantile(s, 0.25), Median: quantile(s, 0.5),
		Q3: quantile(s, 0.75), Max: s[len(s)-1], Mean: sum / float64(len(s))}
}

// quantile is the type 7 quantile q of the sorted sample s.
func quantile(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}
