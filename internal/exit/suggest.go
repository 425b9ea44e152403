package exit

import "strings"

// Suggest returns the candidates a mistyped word most likely meant: those
// within two edits of it (an insertion, a deletion, a substitution or two
// neighbours swapped, case ignored; one edit for a word of three letters or
// fewer) and those it starts, the closest first. It is the one "did you
// mean" of sectax: an unknown flag (cli), an unknown kernel parameter or
// value (mitigation.ParseTarget).
func Suggest(word string, candidates ...string) []string {
	w := strings.ToLower(word)
	if w == "" {
		return nil
	}
	limit := 2
	if len([]rune(w)) <= 3 {
		limit = 1
	}
	type hit struct {
		c string
		d int
	}
	var hits []hit
	seen := map[string]bool{}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if seen[c] || lc == w {
			continue
		}
		d := distance(w, lc)
		if d <= limit || (len(w) >= 2 && strings.HasPrefix(lc, w)) {
			seen[c] = true
			hits = append(hits, hit{c, d})
		}
	}
	// Stable by distance: the candidates' own order breaks ties.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].d < hits[j-1].d; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.c
	}
	return out
}

// DidYouMean is the wording of Suggest's answer for the end of an error
// message ("did you mean off?", "did you mean env or run?"), "" when there
// is none.
func DidYouMean(word string, candidates ...string) string {
	s := Suggest(word, candidates...)
	if len(s) == 0 {
		return ""
	}
	if len(s) > 3 {
		s = s[:3]
	}
	return "did you mean " + strings.Join(s, " or ") + "?"
}

// distance is the optimal string alignment distance of a and b: the edits
// of Levenshtein's distance plus the swap of two neighbouring letters.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
