package stats

import (
	"math"
	"math/rand/v2"
	"sort"

	mstats "github.com/aclements/go-moremath/stats"
)

// ratioExactLimit is the largest per-side size for which the cut-off of
// the ratio interval comes from the exact U distribution (as go-moremath's
// MannWhitneyExactLimit does for p); above it, the normal approximation
// with continuity correction, which is close to the exact value
// there (within two ranks, TestRatioCutoffNormal).
const ratioExactLimit = 50

// RatioInterval is the distribution-free confidence interval of the ratio
// B/A that goes with the Mann-Whitney U test: the Hodges-Lehmann interval
// of the shift between log(B) and log(A), from the order statistics of the
// n1·n2 pairwise differences, with the cut-off from the U distribution (no
// ties assumed). ok is false when the samples are too small for an
// interval at this confidence, or not all positive.
//
// It runs in O(n log n): the samples are sorted once, and the two order
// statistics are found by selection over the sorted pairwise differences
// (after Monahan's algorithm for the Hodges-Lehmann estimator: a random
// pivot among the candidates, a linear count of the differences below
// it, and the candidates narrowed row by row), never by listing the n1·n2
// differences.
func RatioInterval(a, b []float64, confidence float64) (lo, hi float64, ok bool) {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 || confidence <= 0 || confidence >= 1 {
		return 0, 0, false
	}
	x, okx := sortedLogs(a)
	y, oky := sortedLogs(b)
	if !okx || !oky {
		return 0, 0, false
	}
	c := ratioCutoff(n1, n2, confidence)
	total := n1 * n2
	if c <= 0 || c > total-c+1 {
		return 0, 0, false
	}
	return math.Exp(kthDiff(x, y, c)), math.Exp(kthDiff(x, y, total-c+1)), true
}

// sortedLogs returns the logarithms of xs in ascending order; ok is false
// when a value is not a positive finite number.
func sortedLogs(xs []float64) ([]float64, bool) {
	out := make([]float64, len(xs))
	for i, v := range xs {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, false
		}
		out[i] = math.Log(v)
	}
	sort.Float64s(out)
	return out, true
}

// ratioCutoff is c, the largest count with P(U ≤ c-1) ≤ (1-confidence)/2:
// the interval runs from the c-th smallest to the c-th largest pairwise
// difference. It is 0 when no count qualifies.
func ratioCutoff(n1, n2 int, confidence float64) int {
	tail := (1 - confidence) / 2
	if n1 <= ratioExactLimit && n2 <= ratioExactLimit {
		counts := uCounts(n1, n2)
		total := 0.0
		for _, c := range counts {
			total += c
		}
		cum := 0.0
		for c, k := range counts {
			cum += k
			if cum/total > tail {
				return c
			}
		}
		return n1 * n2
	}
	return ratioCutoffNormal(n1, n2, tail)
}

// uCounts returns, for u = 0 … n1·n2, how many of the C(n1+n2, n1) equally
// likely orderings of two samples without ties give U = u: the
// coefficients of the Gaussian binomial coefficient [n1+n2 choose n1]_q =
// ∏_{i=1..n1} (1 − q^(n2+i)) / (1 − q^i), multiplied out factor by
// factor in O(n1 · n1·n2). (go-moremath's UDist gives the same
// distribution, at O(n1·n2·u) for each CDF value.)
func uCounts(n1, n2 int) []float64 {
	deg := n1 * n2
	poly := make([]float64, deg+1)
	poly[0] = 1
	for i := 1; i <= n1; i++ {
		// Multiply by 1 − q^(n2+i), then divide by 1 − q^i (exact: the
		// partial products are the Gaussian binomials [n2+i choose i]_q).
		k := n2 + i
		for u := deg; u >= k; u-- {
			poly[u] -= poly[u-k]
		}
		for u := i; u <= deg; u++ {
			poly[u] += poly[u-i]
		}
	}
	return poly
}

// ratioCutoffNormal approximates ratioCutoff with the normal distribution
// of U (mean n1·n2/2, variance n1·n2·(n1+n2+1)/12) and a continuity
// correction: P(U ≤ c-1) ≈ Φ((c-1+0.5-μ)/σ) ≤ tail.
func ratioCutoffNormal(n1, n2 int, tail float64) int {
	f1, f2 := float64(n1), float64(n2)
	mu := f1 * f2 / 2
	sigma := math.Sqrt(f1 * f2 * (f1 + f2 + 1) / 12)
	z := mstats.NormalDist{Mu: 0, Sigma: 1}.InvCDF(tail)
	c := int(math.Floor(mu + 0.5 + sigma*z))
	return max(c, 0)
}

// pivotDraws is how many candidates kthDiff draws to choose each pivot.
const pivotDraws = 255

// kthDiff returns the k-th smallest (1-based) of the differences y[j]-x[i]
// over all pairs, x and y sorted ascending. Every difference is computed
// as y[j]-x[i], so the result is bit for bit the one a sort of all
// differences gives.
func kthDiff(x, y []float64, k int) float64 {
	n1, n2 := len(x), len(y)
	// Row i holds y[j]-x[i], ascending in j. The candidates of row i are
	// the columns [lo[i], hi[i]); every column below lo[i] is known to be
	// smaller than the answer's rank, every column from hi[i] larger.
	lo := make([]int, n1)
	hi := make([]int, n1)
	for i := range hi {
		hi[i] = n2
	}
	below := 0 // differences known to rank before the candidates
	rng := rand.New(rand.NewPCG(uint64(n1), uint64(n2)))
	draws := make([]float64, pivotDraws)
	ends := make([]int, n1)
	less := make([]int, n1) // per row: columns with y[j]-x[i] < pivot
	upto := make([]int, n1) // per row: columns with y[j]-x[i] <= pivot
	for {
		cands := 0
		for i := range lo {
			cands += hi[i] - lo[i]
		}
		if cands <= max(1024, (n1+n2)/2) {
			// Few enough: list and sort them.
			vals := make([]float64, 0, cands)
			for i := range lo {
				for j := lo[i]; j < hi[i]; j++ {
					vals = append(vals, y[j]-x[i])
				}
			}
			sort.Float64s(vals)
			return vals[k-below-1]
		}
		// The pivot: of pivotDraws candidates drawn uniformly, the one
		// whose rank among the draws is where the answer's rank lies among
		// the candidates (Floyd and Rivest's sampling). A pivot near the
		// answer discards most candidates at each count; any pivot gives
		// the same answer.
		// ends[i] is the number of candidates in rows 0..i: a draw finds
		// its row by binary search.
		end := 0
		for i := range lo {
			end += hi[i] - lo[i]
			ends[i] = end
		}
		for d := range draws {
			r := rng.IntN(cands)
			i := sort.SearchInts(ends, r+1)
			draws[d] = y[hi[i]-(ends[i]-r)] - x[i]
		}
		sort.Float64s(draws)
		pivot := draws[min(len(draws)-1, (k-below-1)*len(draws)/cands)]
		// Count the differences below and up to the pivot. In row i+1
		// every difference is at most the one in row i (x ascends), so the
		// boundaries only move right: two pointers, O(n1+n2).
		nLess, nUpto := 0, 0
		jl, ju := 0, 0
		for i := range x {
			for jl < n2 && y[jl]-x[i] < pivot {
				jl++
			}
			for ju < n2 && y[ju]-x[i] <= pivot {
				ju++
			}
			less[i], upto[i] = jl, ju
			nLess += jl
			nUpto += ju
		}
		switch {
		case k <= nLess:
			// The answer is below the pivot.
			for i := range hi {
				hi[i] = min(hi[i], less[i])
				lo[i] = min(lo[i], hi[i])
			}
		case k > nUpto:
			// The answer is above the pivot.
			for i := range lo {
				lo[i] = max(lo[i], upto[i])
				hi[i] = max(hi[i], lo[i])
			}
		default:
			return pivot
		}
		below = 0
		for i := range lo {
			below += lo[i]
		}
	}
}
