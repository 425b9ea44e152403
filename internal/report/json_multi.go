package report

import (
	"io"

	"github.com/sectax/sectax/internal/compare"
)

// JSONMulti writes a comparison of three or more sides as the
// sectax.compare-multi/v1 document: the baseline, every side's conclusion,
// and the sectax.compare/v1 report of each side against the baseline, its
// p-values corrected over every side together.
func JSONMulti(w io.Writer, mr *compare.MultiReport) error {
	return WriteJSON(w, mr)
}
