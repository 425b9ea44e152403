package stats

import (
	"math"

	mstats "github.com/aclements/go-moremath/stats"
)

// Levels is how a metric's variance splits between the two levels of an
// experiment that boots several times and repeats within each boot: the
// variance of the boots' true means (Between, σ²_between) and of the
// repetitions around their boot's mean (Within, σ²_within). It is the
// one-way random-effects ANOVA (method of moments, unbalanced groups
// allowed) that Kalibera & Jones ("Rigorous benchmarking in reasonable
// time", ISMM 2013) use to size the repetitions at each level.
type Levels struct {
	// Boots is the number of boots (groups) with at least one sample;
	// Samples the number of samples.
	Boots, Samples int
	// Mean is the grand mean of every sample.
	Mean float64
	// Within is the mean square within boots (σ²_within); Between the
	// estimate of σ²_between, (MSB − MSW)/n₀, at least 0.
	Within, Between float64
	// Clamped says that the raw estimate of Between was negative (the
	// boots' means agree more closely than their repetitions predict,
	// which chance does when the boot-to-boot variance is small) and was
	// set to 0.
	Clamped bool
	// PerBootN is n₀, the effective number of repetitions per boot
	// ((N − Σnᵢ²/N)/(k − 1); the common count when every boot has as many).
	PerBootN float64
}

// VarianceLevels estimates the variance components of samples grouped by
// boot (one slice per boot; empty slices are ignored). ok is false when
// they cannot be estimated: fewer than two boots, or no boot with two
// samples (no within-boot variance), or a value that is not finite.
func VarianceLevels(groups [][]float64) (l Levels, ok bool) {
	var sum, sumSq float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		l.Boots++
		l.Samples += len(g)
		for _, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Levels{}, false
			}
			sum += v
		}
		sumSq += float64(len(g)) * float64(len(g))
	}
	k, n := l.Boots, l.Samples
	if k < 2 || n <= k {
		return Levels{}, false
	}
	l.Mean = sum / float64(n)
	var ssb, ssw float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m := mstats.Mean(g)
		ssb += float64(len(g)) * (m - l.Mean) * (m - l.Mean)
		for _, v := range g {
			ssw += (v - m) * (v - m)
		}
	}
	msb := ssb / float64(k-1)
	l.Within = ssw / float64(n-k)
	l.PerBootN = (float64(n) - sumSq/float64(n)) / float64(k-1)
	l.Between = (msb - l.Within) / l.PerBootN
	if l.Between < 0 {
		l.Between, l.Clamped = 0, true
	}
	return l, true
}

// BootShare is the part of the metric's variance (of one repetition) that
// is boot-to-boot: σ²_between / (σ²_between + σ²_within), from 0 to 1 (0
// when the metric does not vary at all).
func (l Levels) BootShare() float64 {
	t := l.Between + l.Within
	if t <= 0 {
		return 0
	}
	return l.Between / t
}

// Relative is l with its components divided by the squared grand mean
// (squared coefficients of variation): the variance of a change in
// percent of the mean, comparable between sides and workloads. It is l
// unchanged when the mean is 0.
func (l Levels) Relative() Levels {
	if l.Mean == 0 {
		return l
	}
	m2 := l.Mean * l.Mean
	l.Between /= m2
	l.Within /= m2
	return l
}

// PerBoot is the variance of one boot's mean of r repetitions:
// σ²_between + σ²_within / r. The mean of n such boots has PerBoot(r)/n.
func (l Levels) PerBoot(r int) float64 {
	return l.Between + l.Within/float64(max(r, 1))
}

// OptimalRepetitions is Kalibera & Jones's number of repetitions per boot
// that gives the most precise mean for the time spent, a boot costing
// costBoot and a repetition costRep (any one unit):
// r* = ⌈√((costBoot/costRep) · (σ²_within/σ²_between))⌉, bounded to
// [lo, hi]. With no boot-to-boot variance (Between 0) a boot tells
// nothing a repetition does not, so it is hi; with no within-boot
// variance it is lo; so it is when a cost is not positive.
func (l Levels) OptimalRepetitions(costBoot, costRep float64, lo, hi int) int {
	lo = max(lo, 1)
	hi = max(hi, lo)
	switch {
	case !(costBoot > 0) || !(costRep > 0) || l.Within <= 0:
		return lo
	case l.Between <= 0:
		return hi
	}
	r := math.Ceil(math.Sqrt(costBoot / costRep * l.Within / l.Between))
	if math.IsNaN(r) || r > float64(hi) {
		return hi
	}
	return max(lo, int(r))
}

// z95 is the two-sided 97.5% quantile of the standard normal.
const z95 = 1.959963984540054

// maxBoots bounds BootsNeeded (a variance far above the target).
const maxBoots = 1 << 20

// BootsNeeded is the number of boots whose mean has a 95% interval of at
// most ±halfWidth, a boot's mean having the variance perBoot (PerBoot, or
// the sum of two sides' for the difference of their means), in the normal
// approximation: n = ⌈z²·perBoot/halfWidth²⌉, at least 1 (at most 2²⁰;
// 2²⁰ too when halfWidth is not positive).
func BootsNeeded(perBoot, halfWidth float64) int {
	if !(halfWidth > 0) {
		return maxBoots
	}
	if !(perBoot > 0) {
		return 1
	}
	n := math.Ceil(z95 * z95 * perBoot / (halfWidth * halfWidth))
	if math.IsNaN(n) || n > maxBoots {
		return maxBoots
	}
	return max(1, int(n))
}
