package stats

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestVarianceLevels(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		groups                    [][]float64
		mean, within, between, n0 float64
		clamped                   bool
		share                     float64
	}{
		// Boot means 2, 6, 10, grand mean 6. SSB = 2·(16+0+16) = 64, MSB =
		// 64/2 = 32; SSW = 2+2+2 = 6, MSW = 6/(6−3) = 2; n₀ = 2; σ²_between
		// = (32−2)/2 = 15; share 15/17.
		{"balanced", [][]float64{{1, 3}, {5, 7}, {9, 11}}, 6, 2, 15, 2, false, 15.0 / 17},
		// Every boot's mean is 3: SSB = 0; SSW = 8+2+0 = 10, MSW = 10/3;
		// (0 − 10/3)/2 < 0: clamped to 0, share 0.
		{"clamped", [][]float64{{1, 5}, {2, 4}, {3, 3}}, 3, 10.0 / 3, 0, 2, true, 0},
		// Means 4 and 10, grand mean 22/4 = 5.5. SSB = 3·1.5² + 1·4.5² = 27
		// = MSB (k−1 = 1); SSW = 4+0+4 = 8, MSW = 8/(4−2) = 4; n₀ = (4 −
		// (9+1)/4)/1 = 1.5; σ²_between = (27−4)/1.5 = 46/3. An empty boot
		// is ignored.
		{"unbalanced", [][]float64{{2, 4, 6}, {}, {10}}, 5.5, 4, 46.0 / 3, 1.5, false, (46.0 / 3) / (46.0/3 + 4)},
	} {
		l, ok := VarianceLevels(tc.groups)
		if !ok {
			t.Errorf("%s: not estimated", tc.name)
			continue
		}
		if !near(l.Mean, tc.mean) || !near(l.Within, tc.within) || !near(l.Between, tc.between) ||
			!near(l.PerBootN, tc.n0) || l.Clamped != tc.clamped || !near(l.BootShare(), tc.share) {
			t.Errorf("%s: %+v share %v, want mean %v within %v between %v n0 %v clamped %v share %v",
				tc.name, l, l.BootShare(), tc.mean, tc.within, tc.between, tc.n0, tc.clamped, tc.share)
		}
	}
	for name, g := range map[string][][]float64{
		"one boot":            {{1, 2, 3}},
		"one sample per boot": {{1}, {2}, {3}},
		"not finite":          {{1, 2}, {3, math.NaN()}},
		"nothing":             nil,
	} {
		if l, ok := VarianceLevels(g); ok {
			t.Errorf("%s: estimated %+v", name, l)
		}
	}
}

func TestOptimalRepetitions(t *testing.T) {
	// The balanced case above: σ²_within 2, σ²_between 15.
	l := Levels{Within: 2, Between: 15}
	for _, tc := range []struct {
		cb, cr float64
		lo, hi int
		want   int
	}{
		{60, 2, 2, 50, 2},  // √(30·2/15) = √4 = 2
		{600, 1, 2, 50, 9}, // √(600·2/15) = √80 = 8.94 → 9
		{600, 1, 2, 5, 5},  // bounded above
		{1, 100, 2, 50, 2}, // √(0.01·2/15) < 1: bounded below
		{0, 1, 3, 50, 3},   // no cost known: the lower bound
		{60, 2, 0, 50, 2},  // a lower bound under 1 is 1
	} {
		if got := l.OptimalRepetitions(tc.cb, tc.cr, tc.lo, tc.hi); got != tc.want {
			t.Errorf("r*(%v, %v, [%d, %d]) = %d, want %d", tc.cb, tc.cr, tc.lo, tc.hi, got, tc.want)
		}
	}
	// No boot-to-boot variance: as many repetitions as allowed; no
	// within-boot variance: as few.
	if got := (Levels{Within: 2}).OptimalRepetitions(60, 2, 2, 20); got != 20 {
		t.Errorf("between 0: %d, want 20", got)
	}
	if got := (Levels{Between: 2}).OptimalRepetitions(60, 2, 2, 20); got != 2 {
		t.Errorf("within 0: %d, want 2", got)
	}
}

func TestBootsNeeded(t *testing.T) {
	l := Levels{Mean: 6, Within: 2, Between: 15}
	// PerBoot(2) = 15 + 2/2 = 16; z² = 3.8415: 3.8415·16/2² = 15.37 → 16.
	if got := l.PerBoot(2); got != 16 {
		t.Errorf("PerBoot(2) = %v, want 16", got)
	}
	if got := BootsNeeded(l.PerBoot(2), 2); got != 16 {
		t.Errorf("BootsNeeded(16, 2) = %d, want 16", got)
	}
	// Relative: 15/36 and 2/36; PerBoot(2) = 16/36; ±10% of the mean:
	// 3.8415·(16/36)/0.01 = 170.7 → 171.
	rel := l.Relative()
	if !near(rel.Between, 15.0/36) || !near(rel.Within, 2.0/36) {
		t.Errorf("Relative = %+v", rel)
	}
	if got := BootsNeeded(rel.PerBoot(2), 0.1); got != 171 {
		t.Errorf("BootsNeeded relative = %d, want 171", got)
	}
	if got := BootsNeeded(0, 1); got != 1 {
		t.Errorf("no variance: %d boots, want 1", got)
	}
	if got := BootsNeeded(1, 0); got != maxBoots {
		t.Errorf("no half-width: %d boots, want %d", got, maxBoots)
	}
	if got := BootsNeeded(1e300, 1e-300); got != maxBoots {
		t.Errorf("overflow: %d boots, want %d", got, maxBoots)
	}
}
