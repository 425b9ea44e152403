package report

import (
	"encoding/json"
	"io"

	"github.com/sectax/sectax/internal/compare"
)

// JSON writes the comparison as the sectax.compare/v1 document: the
// Report with every summary, test and warning; intervals that do not
// exist are null.
func JSON(w io.Writer, rep *compare.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}
