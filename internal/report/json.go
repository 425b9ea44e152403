package report

import (
	"encoding/json"
	"io"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/safetext"
)

// JSON writes a comparison of two sides as the sectax.compare/v2
// document: the Report with every summary, test and warning; intervals
// that do not exist are null. Three or more sides are one
// sectax.compare-multi/v2 document: the baseline, every side's conclusion,
// and the sectax.compare/v2 report of each side against the baseline, its
// p-values corrected over every side together.
func JSON(w io.Writer, c *compare.Comparison) error {
	if alone(c) {
		return WriteJSON(w, c.Comparisons[0])
	}
	return WriteJSON(w, c)
}

// WriteJSON is the layout of every JSON document sectax writes: indented
// two spaces, and <, > and & as themselves (the documents are read by
// programs and people, never pasted into HTML unescaped).
// What encoding/json leaves raw but a terminal acts on (C1 controls, DEL,
// bidirectional overrides) is written as \uXXXX (safetext.JSON).
func WriteJSON(w io.Writer, v any) error {
	sw := safetext.NewJSONWriter(w)
	enc := json.NewEncoder(sw)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return sw.Flush()
}

// SafeJSON is w behind WriteJSON's escaping of what a terminal acts on
// (safetext.JSON), for documents encoded elsewhere (the store's run
// documents: show --format json, export); Flush it at the end.
func SafeJSON(w io.Writer) *safetext.JSONWriter { return safetext.NewJSONWriter(w) }

// WriteSafeJSON runs write with w behind SafeJSON and flushes it.
func WriteSafeJSON(w io.Writer, write func(io.Writer) error) error {
	sw := SafeJSON(w)
	if err := write(sw); err != nil {
		return err
	}
	return sw.Flush()
}
