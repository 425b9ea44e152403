package report

import (
	"encoding/json"
	"io"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/safetext"
)

// JSON writes a comparison of any number of sides as one
// sectax.compare/v3 document: the baseline, every side's conclusion, and
// the report of each side against the baseline (a pair has one), with
// every summary, test and warning, its p-values corrected over every side
// together; intervals that do not exist are null.
func JSON(w io.Writer, c *compare.Comparison) error { return WriteJSON(w, c) }

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
