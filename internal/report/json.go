package report

import (
	"encoding/json"
	"io"

	"github.com/sectax/sectax/internal/compare"
)

// JSON writes a comparison of two sides as the sectax.compare/v2
// document: the Report with every summary, test and warning; intervals
// that do not exist are null. Three or more sides are one
// sectax.compare-multi/v2 document: the baseline, every side's conclusion,
// and the sectax.compare/v2 report of each side against the baseline, its
// p-values corrected over every side together.
func JSON(w io.Writer, c *compare.Comparison) error {
	if p := c.Pair(); p != nil {
		return WriteJSON(w, p)
	}
	return WriteJSON(w, c)
}

// WriteJSON is the layout of every JSON document sectax writes: indented
// two spaces, and <, > and & as themselves (the documents are read by
// programs and people, never pasted into HTML unescaped).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
