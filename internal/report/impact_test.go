package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/compare"
)

// TestImpactChartAgreesWithTable: a bar of the impact chart is the change
// the table prints for the same result (syscall-basic's µs/op: −60.20% in
// both, where the chart once drew +151% "better"), the axis says so, and
// the geometric mean is drawn on the same scale, as a change of cost.
func TestImpactChartAgreesWithTable(t *testing.T) {
	qa, qb := quickSides()
	ra, rb := runSides()
	for _, sides := range [][2]compare.Side{{qa, qb}, {ra, rb}} {
		c := comparison(t, sides[0], sides[1])
		rep, rows := c.Comparisons[0], impactRows(c)
		i := 0
		for _, wl := range rep.Workloads {
			if len(wl.Metrics) == 0 {
				continue
			}
			m := wl.Metrics[0]
			cell := metricDelta(m)
			table := strings.NewReplacer("−", "-", "%", "", "+", "").Replace(cell)
			if cell == "~" {
				table = strconv.FormatFloat(m.ChangePct, 'f', 2, 64)
			}
			if got := strconv.FormatFloat(rows[i].v, 'f', 2, 64); got != table {
				t.Errorf("%s %s: the chart's bar is %s%%, the table says %s", wl.ID, m.Name, got, cell)
			}
			if m.RatioInterval != nil {
				lo, hi := m.RatioInterval.ChangePct()
				if !rows[i].hasCI || rows[i].lo != lo || rows[i].hi != hi {
					t.Errorf("%s: whisker %v..%v, the table's interval %v..%v", wl.ID, rows[i].lo, rows[i].hi, lo, hi)
				}
			}
			i++
		}
		if g := rep.Geomean; g != nil {
			last := rows[len(rows)-1]
			if want := (1/g.Speedup - 1) * 100; last.v != want || (g.Speedup > 1) != (last.v < 0) {
				t.Errorf("geomean bar %v, want %v (speedup %v)", last.v, want, g.Speedup)
			}
		}
	}
	if !strings.Contains(impactXLabel, "the table's vs A column") {
		t.Errorf("the axis does not say it is the table's change: %q", impactXLabel)
	}
	for _, c := range mustCharts(t, qa, qb) {
		if c.Kind == ChartImpact && c.plot.X.Label.Text != impactXLabel {
			t.Errorf("impact chart axis %q", c.plot.X.Label.Text)
		}
	}
}

func mustCharts(t *testing.T, a, b compare.Side) []Chart {
	t.Helper()
	cs, err := Charts(comparison(t, a, b))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
