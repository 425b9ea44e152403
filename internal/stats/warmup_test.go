package stats

import "testing"

// TestDetectWarmup runs the rule on scripted series.
func TestDetectWarmup(t *testing.T) {
	for _, c := range []struct {
		name    string
		xs      []float64
		limit   int
		discard int
		decided bool
	}{
		{"decaying start", []float64{200, 150, 120, 105, 101, 100, 100.5, 99.8, 100.2, 100.1}, 10, 4, true},
		{"flat", []float64{100, 100, 100, 100, 100, 100}, 10, 0, true},
		{"noisy flat", []float64{100, 103, 97, 101, 99, 102, 98, 100, 104, 96}, 10, 0, true},
		{"one outlier later", []float64{100, 101, 150, 99, 100, 100.5, 99.5}, 10, 0, true},
		{"one outlier first", []float64{150, 100, 101, 99, 100, 100.5, 99.5}, 10, 1, true},
		{"rising start (a throughput)", []float64{50, 80, 95, 100, 99, 101, 100, 100}, 10, 3, true},
		{"within the 1% tolerance", []float64{101, 100, 100.2, 99.9, 100.1}, 10, 0, true},
		{"too short to say", []float64{200, 150, 120}, 10, 0, false},
		{"short after a discard", []float64{200, 100, 101, 99}, 10, 0, false},
		{"still decaying at the bound", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 3, 3, true},
		{"no warm-up allowed", []float64{200, 100}, 0, 0, true},
	} {
		d, ok := DetectWarmup(c.xs, c.limit)
		if d != c.discard || ok != c.decided {
			t.Errorf("%s: DetectWarmup(%v, %d) = %d, %v; want %d, %v", c.name, c.xs, c.limit, d, ok, c.discard, c.decided)
		}
	}
}
