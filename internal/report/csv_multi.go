package report

import (
	"encoding/csv"
	"io"

	"github.com/sectax/sectax/internal/compare"
)

// CSVMultiHeader is the first row of the CSV output of three or more
// sides: the baseline's and the side's references, then CSVHeader's
// columns, in which a_* is the baseline and b_* the side.
var CSVMultiHeader = append([]string{"baseline", "side"}, CSVHeader...)

// CSVMulti writes a comparison of three or more sides in long form: one
// row per side, workload and metric, in side order, each as CSV writes the
// pairwise comparison; p_adjusted is corrected over every side together.
func CSVMulti(w io.Writer, mr *compare.MultiReport) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVMultiHeader); err != nil {
		return err
	}
	for _, rep := range mr.Comparisons {
		for _, wl := range rep.Workloads {
			for _, m := range wl.Metrics {
				if err := cw.Write(append([]string{termSafe(rep.A.Ref), termSafe(rep.B.Ref)}, append(csvRow(wl, m), accel(rep))...)); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
