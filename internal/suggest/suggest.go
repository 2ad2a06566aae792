// Package suggest finds the nearest valid name for a mistyped one, for
// error messages that say "did you mean ...?".
package suggest

import "strings"

// Nearest returns the candidate closest to name by edit distance, and
// whether it is close enough to be worth suggesting (at most a third of
// the name's length, and at least 2 edits allowed). A candidate that starts
// with name, or that name starts with, also counts as close.
func Nearest(name string, candidates []string) (string, bool) {
	name = strings.ToLower(name)
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(name, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 {
		return "", false
	}
	limit := max(2, len(name)/3)
	if bestD <= limit {
		return best, true
	}
	for _, c := range candidates {
		if name != "" && (strings.HasPrefix(strings.ToLower(c), name) || strings.HasPrefix(name, strings.ToLower(c))) {
			return c, true
		}
	}
	return "", false
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
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

// DidYouMean formats the suggestion for name among candidates as
// ` (did you mean "x"?)`, or "" when nothing is close.
func DidYouMean(name string, candidates []string) string {
	if c, ok := Nearest(name, candidates); ok {
		return ` (did you mean "` + c + `"?)`
	}
	return ""
}
