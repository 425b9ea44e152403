package stats

import (
	"math"
	"sort"
)

// tiesExactLimit mirrors go-moremath's MannWhitneyTiesExactLimit: up to
// this size per side, samples with ties get the exact permutation
// distribution; above it, the normal approximation.
const tiesExactLimit = 25

// Note: with ties, go-moremath's exact U distribution (which benchmath
// uses) returns p = 0 for the most extreme arrangement; for example
// {0.2, 0.204} against {0.08, 0.084, 0.076, 0.08, 0.088, 0.08} gets p = 0
// where the exact two-sided p is 1/C(8,2) = 0.0357, and {1, 1} against
// {2, 2} gets p = 0 where it is 1/3: reports would print "p=0.000" and
// call changes significant that the data cannot establish. exactTiesP
// computes the permutation distribution of the rank sum itself.

// hasTies reports whether any value occurs twice in a and b together.
func hasTies(a, b []float64) bool {
	all := append(append([]float64(nil), a...), b...)
	sort.Float64s(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			return true
		}
	}
	return false
}

// exactTiesP is the exact two-sided p-value of the Mann-Whitney U test
// with mid-ranks for ties: the probability, over all C(n1+n2, n1) equally
// likely assignments of the pooled values to the two samples, of a U at
// least as far from its mean n1·n2/2 as the observed one.
func exactTiesP(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	n := n1 + n2
	type item struct {
		v    float64
		inA  bool
		rank int // doubled mid-rank, an integer
	}
	items := make([]item, 0, n)
	for _, v := range a {
		items = append(items, item{v: v, inA: true})
	}
	for _, v := range b {
		items = append(items, item{v: v})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].v < items[j].v })
	for i := 0; i < n; {
		j := i
		for j+1 < n && items[j+1].v == items[i].v {
			j++
		}
		// Positions i..j (0-based) share the mid-rank ((i+1)+(j+1))/2.
		for k := i; k <= j; k++ {
			items[k].rank = i + j + 2
		}
		i = j + 1
	}
	obs := 0
	maxSum := 0
	for _, it := range items {
		if it.inA {
			obs += it.rank
		}
		maxSum += it.rank
	}
	// ways[k][s]: ways to choose k of the items seen so far with doubled
	// rank sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, it := range items {
		for k := n1; k >= 1; k-- {
			row, prev := ways[k], ways[k-1]
			for s := maxSum; s >= it.rank; s-- {
				row[s] += prev[s-it.rank]
			}
		}
	}
	// 2·U = 2·R1 − n1(n1+1); its mean is n1·n2.
	dev := func(s int) int {
		d := s - n1*(n1+1) - n1*n2
		if d < 0 {
			return -d
		}
		return d
	}
	d0 := dev(obs)
	var hit, total float64
	for s, w := range ways[n1] {
		if w == 0 {
			continue
		}
		total += w
		if dev(s) >= d0 {
			hit += w
		}
	}
	return math.Min(1, hit/total)
}

// uTestMinN is the smallest per-side size at which the U test can reach
// alpha (two-sided, no ties): the least n with 2/C(2n, n) <= alpha.
func uTestMinN(alpha float64) int {
	for n := 1; n <= 50; n++ {
		c := 1.0
		for i := 1; i <= n; i++ {
			c = c * float64(n+i) / float64(i)
		}
		if 2/c <= alpha {
			return n
		}
	}
	return 51
}
