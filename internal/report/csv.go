package report

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/stats"
)

// CSVHeader is the first row of the CSV output, for any number of sides:
// the baseline's and the side's references, then the pairwise columns,
// in which a_* is the baseline and b_* the side.
var CSVHeader = []string{"baseline", "side", "workload", "params", "engine", "control", "metric", "unit", "better",
	"a_median", "a_lo", "a_hi", "a_n", "b_median", "b_lo", "b_hi", "b_n",
	"change_pct", "speedup", "p", "alpha", "significant", "verdict",
	"p_adjusted", "role", "ratio_lo", "ratio_hi", "margin_pct", "equivalence", "detectable_pct", "accel"}

// accel is the CSV's accel cell: how the runs were measured (kvm or tcg
// in a `sectax lab` guest; none on a machine itself). Under tcg the
// timings are emulator artefacts, not hardware costs.
func accel(rep *compare.Report) string {
	if rep.Lab == nil {
		return "none"
	}
	return csvCell(rep.Lab.Accel)
}

// f renders a number unscaled; a value that is not finite (the change from
// a median of 0) is an empty cell.
func f(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func ci(s stats.Summary) (lo, hi string) {
	if !s.HasCI {
		return "", ""
	}
	return f(s.Lo), f(s.Hi)
}

// CSV writes one row per compared metric, numbers unscaled; empty cells
// stand for a missing interval or an untested difference. p is the raw
// p-value, p_adjusted the one after Holm's correction; significant and
// verdict are judged on p_adjusted. ratio_lo and ratio_hi bound the
// interval of B/A; accel says how the runs were measured ("tcg": emulated,
// timings are not hardware costs); margin_pct, equivalence (within,
// beyond, inconclusive) and detectable_pct are the verdict against the
// equivalence margin. Text fields have control characters
// escaped (\xNN), and one that a spreadsheet would run as a formula (=,
// +, -, @ first) begins with a single quote; numbers are as they are.
// It is in long form, one header for any number of sides: one row per
// side, workload and metric, in side order (a pair has one side),
// p_adjusted corrected over every side together.
func CSV(w io.Writer, c *compare.Comparison) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, rep := range c.Comparisons {
		sides := []string{csvCell(rep.A.Ref), csvCell(rep.B.Ref)}
		for _, wl := range rep.Workloads {
			for _, m := range wl.Metrics {
				if err := cw.Write(append(append(sides, csvRow(wl, m)...), accel(rep))); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvEquivalence are the CSV's columns of a compared metric after ratio_hi: the
// margin, the verdict against it and the smallest change the run could
// have detected (empty when untested, or without an interval).
func csvEquivalence(m compare.Metric) []string {
	if m.Equivalence == nil {
		return []string{"", "", ""}
	}
	det := ""
	if m.DetectablePct != nil {
		det = f(*m.DetectablePct)
	}
	return []string{f(m.Equivalence.MarginPct), m.Equivalence.Verdict, det}
}

// csvRow is the CSV row of one compared metric (CSVHeader's columns
// from workload to detectable_pct).
func csvRow(wl compare.Workload, m compare.Metric) []string {
	alo, ahi := ci(m.A)
	blo, bhi := ci(m.B)
	p, alpha, sig, padj := "", "", "", ""
	if m.Test != nil {
		p, alpha, sig = f(m.Test.P), f(m.Test.Alpha), strconv.FormatBool(m.Significant)
	}
	if m.PAdjusted != nil {
		padj = f(*m.PAdjusted)
	}
	rlo, rhi := "", ""
	if m.RatioInterval != nil {
		rlo, rhi = f(m.RatioInterval.Lo), f(m.RatioInterval.Hi)
	}
	return append([]string{csvCell(wl.ID), csvCell(wl.ParamsKey), csvCell(wl.Engine), strconv.FormatBool(wl.Control),
		csvCell(m.Name), csvCell(m.Unit), csvCell(string(m.Better)),
		f(m.A.Center), alo, ahi, strconv.Itoa(m.A.N), f(m.B.Center), blo, bhi, strconv.Itoa(m.B.N),
		f(m.ChangePct), f(m.Speedup), p, alpha, sig, m.Verdict, padj, m.Role, rlo, rhi}, csvEquivalence(m)...)
}
