package config

import (
	"fmt"
	"strings"
)

// didYouMean is the hint appended to an unknown name's error: the known
// name it is most likely a typo of, or "" when none is close. A name that
// differs only in case (displayhooks, pretoolcall) always gets one; others
// within an edit or two (a letter missing, doubled, swapped: matchr,
// modle).
func didYouMean(name string, known []string) string {
	if s := closest(name, known); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}

func closest(name string, known []string) string {
	lower := strings.ToLower(name)
	for _, k := range known {
		if strings.ToLower(k) == lower {
			return k
		}
	}
	limit := 1
	if len([]rune(name)) >= 5 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if d := editDistance(lower, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours, each 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// DidYouMean is the hint for a name that is not one of known, for the
// command line's own unknown names (a flag, a hook event): the same
// suggester as the config's, "" when nothing is close.
func DidYouMean(name string, known []string) string { return didYouMean(name, known) }
