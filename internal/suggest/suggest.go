// Package suggest finds the name a misspelling most likely meant, for
// "did you mean" hints.
package suggest

import "strings"

// Closest returns the candidate nearest to name by edit distance, ignoring
// case, when it is fewer than maxDist edits away; otherwise "".
func Closest(name string, candidates []string, maxDist int) string {
	best, bestD := "", maxDist
	for _, c := range candidates {
		if d := Distance(strings.ToLower(c), strings.ToLower(name)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, capped at 64 for long
// strings (hints never need more).
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
