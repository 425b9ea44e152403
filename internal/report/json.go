package report

import (
	"encoding/json"
	"io"

	"github.com/sectax/sectax/internal/compare"
)

// JSON writes the comparison as the sectax.compare/v1 document: the
// Report with every summary, test and warning; intervals that do not
// exist are null.
func JSON(w io.Writer, rep *compare.Report) error { return WriteJSON(w, rep) }

// WriteJSON is the layout of every JSON document sectax writes: indented
// two spaces, and <, > and & as themselves (the documents are read by
// programs and people, never pasted into HTML unescaped).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
