// Package textdist suggests the closest known word for a misspelt one.
package textdist

import (
	"cmp"
	"slices"
	"strings"
)

// Levenshtein returns the edit distance between a and b, compared
// case-insensitively.
func Levenshtein(a, b string) int {
	ra, rb := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Closest returns the candidate nearest to word, or "" when none is close
// enough to be a plausible typo (distance at most a third of the word, min 2).
func Closest(word string, candidates []string) string {
	best, bestDist := "", max(len(word)/3, 2)+1
	for _, c := range candidates {
		d := Levenshtein(word, c)
		if len(word) >= 3 && strings.HasPrefix(strings.ToLower(c), strings.ToLower(word)) {
			d = min(d, 1) // "int" for "integer"
		}
		if Abbreviates(word, c) {
			d = min(d, 1) // "pkgs" for "packages", not "tags"
		}
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Ranked returns up to n candidates ordered by distance to word, keeping only
// plausible ones.
func Ranked(word string, candidates []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	limit := max(len(word)/2, 2)
	var out []scored
	for _, c := range candidates {
		d := Levenshtein(word, c)
		if strings.Contains(strings.ToLower(c), strings.ToLower(word)) || Abbreviates(word, c) {
			d = min(d, 1)
		}
		if d <= limit {
			out = append(out, scored{c, d})
		}
	}
	// Not an insertion sort: with thousands of similar ids ("go.t1" ...)
	// most candidates are plausible.
	slices.SortFunc(out, func(a, b scored) int { return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.s, b.s)) })
	res := make([]string, 0, min(n, len(out)))
	for i := 0; i < len(out) && i < n; i++ {
		res = append(res, out[i].s)
	}
	return res
}

// Abbreviates reports whether word (three letters or more) abbreviates
// candidate the way people shorten names: the same first letter, then the
// rest of word's letters in order ("pkgs" for "packages", "cfg" for
// "config"). Edit distance alone ranks "tags" nearer to "pkgs".
func Abbreviates(word, candidate string) bool {
	w, c := []rune(strings.ToLower(word)), []rune(strings.ToLower(candidate))
	if len(w) < 3 || len(w) >= len(c) || w[0] != c[0] {
		return false
	}
	i := 1
	for _, r := range c[1:] {
		if i < len(w) && r == w[i] {
			i++
		}
	}
	return i == len(w)
}
