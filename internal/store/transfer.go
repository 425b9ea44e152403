package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// FieldError names the file, the run and the field of a malformed import
// document.
type FieldError struct {
	File  string
	Index int    // position of the document in the file
	ID    string // run id, when known
	Field string // JSON path of the bad field ("results[2].metrics[0].better")
	Msg   string
}

func (e *FieldError) Error() string {
	where := fmt.Sprintf("%s: document %d", e.File, e.Index+1)
	if e.ID != "" {
		where += fmt.Sprintf(" (run %s)", e.ID)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", where, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", where, e.Msg)
}

// Doc is a run document with its environment as it was written: RawEnv
// keeps every field, including those the Go type of this build does not
// know, so that import and export lose nothing. RawEnv may be nil, and
// then Run.Env is used.
type Doc struct {
	Run    *run.Run
	RawEnv json.RawMessage
	// File and Index say where Decode found the document (for errors).
	File  string
	Index int
}

// envJSON is the env to store or write: RawEnv when present.
func (d Doc) envJSON() ([]byte, error) {
	if len(d.RawEnv) > 0 {
		return d.RawEnv, nil
	}
	return json.Marshal(d.Run.Env)
}

// Decode reads run documents from data: one document, a JSON array of
// documents, JSON Lines, or several documents one after another (what
// Export wrote before it wrote arrays). name is the file name used in
// errors. Every document is checked against the documented format: the
// required fields present, then (*run.Run).Validate.
func Decode(name string, data []byte) ([]Doc, error) {
	if len(data) > run.MaxDocumentBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d MiB for an import file: split it (sectax export writes one run per line with --format jsonl)", name, len(data), run.MaxDocumentBytes>>20)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty file, expected sectax.run/v1 documents", name)
	}
	// A stream of JSON values, each a document or an array of documents:
	// one document, an array, JSON Lines, documents or arrays one after
	// another (cat a.json b.json).
	var raws []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	for n := 1; ; n++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: value %d: not valid JSON: %v", name, n, err)
		}
		if raw[0] == '[' {
			var arr []json.RawMessage
			if err := json.Unmarshal(raw, &arr); err != nil {
				return nil, fmt.Errorf("%s: value %d: not a JSON array of run documents: %v", name, n, err)
			}
			raws = append(raws, arr...)
			continue
		}
		raws = append(raws, raw)
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%s: holds no run documents", name)
	}
	var docs []Doc
	seen := map[string]int{}
	for i, raw := range raws {
		var idOnly struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &idOnly) // best effort, for the message
		fe := &FieldError{File: name, Index: i, ID: printableID(idOnly.ID)}
		if field, msg := missingField(raw); field != "" {
			fe.Field, fe.Msg = field, msg
			return nil, fe
		}
		var r run.Run
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&r); err != nil {
			fe.Msg = err.Error()
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				fe.Field, fe.Msg = te.Field, fmt.Sprintf("a JSON %s cannot be a %s", te.Value, te.Type)
			}
			return nil, fe
		}
		if err := r.Validate(); err != nil {
			var ie *run.InvalidError
			if errors.As(err, &ie) {
				fe.Field, fe.Msg = ie.Field, ie.Msg
			} else {
				fe.Msg = err.Error()
			}
			return nil, fe
		}
		if j, dup := seen[r.ID]; dup {
			return nil, &FieldError{File: name, Index: i, ID: r.ID, Field: "id", Msg: fmt.Sprintf("same id as document %d", j+1)}
		}
		seen[r.ID] = i
		var envOnly struct {
			Env json.RawMessage `json:"env"`
		}
		_ = json.Unmarshal(raw, &envOnly) // raw decoded once already
		if len(envOnly.Env) > 0 && envOnly.Env[0] != '{' && string(envOnly.Env) != "null" {
			return nil, &FieldError{File: name, Index: i, ID: r.ID, Field: "env", Msg: "must be an object"}
		}
		var env bytes.Buffer
		if len(envOnly.Env) > 0 {
			_ = json.Compact(&env, envOnly.Env) // valid: decoded above
		}
		docs = append(docs, Doc{Run: &r, RawEnv: env.Bytes(), File: name, Index: i})
	}
	for i, d := range docs {
		for j, o := range docs {
			if d.Run.Label != "" && d.Run.Label == o.Run.ID && i != j {
				return nil, &FieldError{File: name, Index: d.Index, ID: d.Run.ID, Field: "label",
					Msg: fmt.Sprintf("%q is the id of document %d; a label must not name another run, or compare and rm would take the wrong one: change the label", d.Run.Label, o.Index+1)}
			}
		}
	}
	return docs, nil
}

// printableID is a run id fit for an error message (a hostile one is cut
// short and escaped).
func printableID(id string) string {
	if run.CheckID(id) == nil {
		return id
	}
	if id == "" {
		return ""
	}
	q := strconv.Quote(id)
	if len(q) > 40 {
		q = q[:40] + "…"
	}
	return q
}

// Required fields of a sectax.run/v1 document, of each result and of each
// metric. The Go decoder would take an absent field as its zero value, so
// they are checked on the JSON itself.
var (
	requiredRun    = []string{"schema", "id", "label", "started", "finished", "status", "suite", "engine", "tool_version", "runs", "warmup", "seed", "env", "results"}
	requiredResult = []string{"workload", "params", "metrics"}
	requiredMetric = []string{"name", "unit", "better", "samples"}
)

// missingField returns the path of the first required field absent from
// the document (or of a part that is not an object), or "".
func missingField(raw json.RawMessage) (field, msg string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return "(document)", "must be a JSON object"
	}
	if _, ok := top["schema"]; !ok {
		return "schema", "missing: this is not a sectax run document"
	}
	for _, k := range requiredRun {
		if _, ok := top[k]; !ok {
			return k, "missing (a required field of sectax.run/v1)"
		}
	}
	if string(top["results"]) == "null" {
		return "results", "must be an array, not null"
	}
	var results []map[string]json.RawMessage
	if json.Unmarshal(top["results"], &results) != nil {
		return "", "" // the typed decode names the problem
	}
	for i, res := range results {
		p := fmt.Sprintf("results[%d]", i)
		if res == nil {
			return p, "must be an object"
		}
		for _, k := range requiredResult {
			if v, ok := res[k]; !ok {
				return p + "." + k, "missing"
			} else if string(v) == "null" {
				return p + "." + k, "must not be null"
			}
		}
		var metrics []map[string]json.RawMessage
		if json.Unmarshal(res["metrics"], &metrics) != nil {
			return "", ""
		}
		for j, m := range metrics {
			mp := fmt.Sprintf("%s.metrics[%d]", p, j)
			if m == nil {
				return mp, "must be an object"
			}
			for _, k := range requiredMetric {
				if v, ok := m[k]; !ok {
					return mp + "." + k, "missing"
				} else if string(v) == "null" {
					return mp + "." + k, "must not be null"
				}
			}
		}
	}
	return "", ""
}

// ImportResult says what Import did with each document.
type ImportResult struct {
	Imported []string
	// Skipped are ids already present; nothing of them was written.
	Skipped []string
	// Replaced are runs stored cut short (still marked running, nobody
	// measuring) that a finished document of the same run replaced: the
	// file sectax run writes when it cannot store a finished run.
	Replaced []string
}

// Import writes runs in one transaction. A run whose id is already stored
// is skipped and reported in the result, also when another host imports
// it at the same moment (PostgreSQL: lockRuns), unless the stored one was
// cut short and the document is the same run finished (its samples extend
// the stored ones): then the document replaces it. An id that is the label
// of a stored run, or a label that is the id of one, is refused with a
// *FieldError (compare and rm would take the wrong runs). Decode the
// documents (which validates them) before calling it.
func (d *DB) Import(ctx context.Context, docs []Doc) (ImportResult, error) {
	var out ImportResult
	err := d.retry(ctx, func() error {
		out = ImportResult{}
		tx, err := d.db.BeginTx(ctx, nil)
		if err != nil {
			return d.wrap(err)
		}
		defer tx.Rollback()
		ids := make([]string, len(docs))
		for i, doc := range docs {
			ids[i] = doc.Run.ID
		}
		// Before reading what is stored: a concurrent import of the same
		// runs waits here, then sees them.
		if err := d.lockRuns(ctx, tx, ids); err != nil {
			return d.wrap(err)
		}
		status := map[string]string{}
		labels := map[string]int{}
		rows, err := tx.QueryContext(ctx, `SELECT id, label, status FROM runs`)
		if err != nil {
			return d.wrap(err)
		}
		for rows.Next() {
			var id, label, st string
			if err := rows.Scan(&id, &label, &st); err != nil {
				rows.Close()
				return d.wrap(err)
			}
			status[id] = st
			if label != "" {
				labels[label]++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return d.wrap(err)
		}
		for _, doc := range docs {
			r := doc.Run
			if st, ok := status[r.ID]; ok {
				if st == string(run.StatusRunning) && r.Status != run.StatusRunning && d.ref.MeasuringPID() == 0 {
					stored, err := getRun(ctx, tx, d, r.ID)
					if err != nil {
						return err
					}
					if extends(r, stored) {
						if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id=?`, r.ID); err != nil {
							return d.wrap(err)
						}
						if err := insertRun(ctx, tx, doc); err != nil {
							return d.wrap(err)
						}
						out.Replaced = append(out.Replaced, r.ID)
						continue
					}
				}
				out.Skipped = append(out.Skipped, r.ID)
				continue
			}
			fe := &FieldError{File: doc.File, Index: doc.Index, ID: r.ID}
			if n := labels[r.ID]; n > 0 {
				fe.Field, fe.Msg = "id", fmt.Sprintf("%q is already the label of %d stored run(s); a run id must not name a label, or 'sectax compare %s' would take this run alone and 'sectax rm %s' would delete it: change the id", r.ID, n, r.ID, r.ID)
				return fe
			}
			if _, ok := status[r.Label]; ok && r.Label != "" {
				fe.Field, fe.Msg = "label", fmt.Sprintf("%q is the id of a stored run; a label must not name another run: change the label", r.Label)
				return fe
			}
			if err := insertRun(ctx, tx, doc); err != nil {
				return d.wrap(err)
			}
			status[r.ID] = string(r.Status)
			if r.Label != "" {
				labels[r.Label]++
			}
			out.Imported = append(out.Imported, r.ID)
		}
		return d.wrap(tx.Commit())
	})
	if err != nil {
		return ImportResult{}, err
	}
	return out, nil
}

// extends reports whether r is stored run as it went on: the same
// workloads and metrics, each with the stored samples as a prefix.
func extends(r, stored *run.Run) bool {
	if len(r.Results) != len(stored.Results) {
		return false
	}
	for i, sr := range stored.Results {
		rr := r.Results[i]
		if rr.Workload != sr.Workload || len(rr.Metrics) != len(sr.Metrics) {
			return false
		}
		for j, sm := range sr.Metrics {
			rm := rr.Metrics[j]
			if rm.Name != sm.Name || len(rm.Samples) < len(sm.Samples) {
				return false
			}
			for k, v := range sm.Samples {
				if rm.Samples[k] != v {
					return false
				}
			}
		}
	}
	return true
}

// Export writes the runs as a JSON array of sectax.run/v1 documents,
// indented; Decode reads them back.
func Export(w io.Writer, runs []*run.Run) error {
	docs := make([]Doc, len(runs))
	for i, r := range runs {
		docs[i] = Doc{Run: r}
	}
	return WriteDocs(w, docs, FormatArray)
}

// Format is how WriteDocs lays out several documents.
type Format string

// The layouts: a JSON array (one JSON value that any parser reads), JSON
// Lines (one compact document per line), or one indented document (only
// for exactly one).
const (
	FormatArray  Format = "json"
	FormatLines  Format = "jsonl"
	FormatSingle Format = "single"
)

// envNull is how the top-level env of a run with Env nil encodes. Every
// field before it in a run document is a scalar (strings are escaped), so
// its first occurrence is the top-level env.
var envNull = []byte(`"env":null`)

// compactDoc is one document, compact, with its RawEnv in place of the
// typed env.
func compactDoc(d Doc) ([]byte, error) {
	env, err := d.envJSON()
	if err != nil {
		return nil, fmt.Errorf("run %s: env: %w", d.Run.ID, err)
	}
	r := *d.Run
	r.Env = nil
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&r); err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Run.ID, err)
	}
	b := compact.Bytes()
	i := bytes.Index(b, envNull)
	if i < 0 {
		return nil, fmt.Errorf("run %s: no env field in the encoded document", d.Run.ID)
	}
	spliced := make([]byte, 0, len(b)+len(env))
	spliced = append(spliced, b[:i]...)
	spliced = append(spliced, `"env":`...)
	spliced = append(spliced, env...)
	spliced = append(spliced, b[i+len(envNull):]...)
	var out bytes.Buffer
	if err := json.Compact(&out, spliced); err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Run.ID, err)
	}
	return out.Bytes(), nil
}

// WriteDocs writes documents in the given layout, each with its RawEnv in
// place of the typed env.
func WriteDocs(w io.Writer, docs []Doc, f Format) error {
	if f == FormatSingle && len(docs) != 1 {
		return fmt.Errorf("store: %d documents where one was expected", len(docs))
	}
	dw, err := NewDocWriter(w, f)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := dw.Write(d); err != nil {
			return err
		}
	}
	return dw.Close()
}

// DocWriter writes documents one at a time in a layout, so that an export
// of many runs holds one of them in memory, not all.
type DocWriter struct {
	w io.Writer
	f Format
	n int
}

// NewDocWriter starts a layout on w.
func NewDocWriter(w io.Writer, f Format) (*DocWriter, error) {
	switch f {
	case FormatSingle, FormatLines:
	case FormatArray:
		if _, err := io.WriteString(w, "["); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("store: unknown format %q", f)
	}
	return &DocWriter{w: w, f: f}, nil
}

// Write writes one more document.
func (dw *DocWriter) Write(d Doc) error {
	b, err := compactDoc(d)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	switch dw.f {
	case FormatSingle:
		if dw.n > 0 {
			return fmt.Errorf("store: more than the one document expected")
		}
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return err
		}
		out.WriteByte('\n')
	case FormatLines:
		out.Write(b)
		out.WriteByte('\n')
	case FormatArray:
		if dw.n > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n  ")
		if err := json.Indent(&out, b, "  ", "  "); err != nil {
			return err
		}
	}
	dw.n++
	_, err = dw.w.Write(out.Bytes())
	return err
}

// Close ends the layout.
func (dw *DocWriter) Close() error {
	if dw.f != FormatArray {
		return nil
	}
	end := "]\n"
	if dw.n > 0 {
		end = "\n]\n"
	}
	_, err := io.WriteString(dw.w, end)
	return err
}

// CheckExport checks a stored run as 'sectax import' would check the
// document export writes of it (Decode, the import's own validation), so
// that export never writes what import then refuses. One line naming the
// run and the field.
func CheckExport(d Doc) error {
	b, err := compactDoc(d)
	if err != nil {
		return err
	}
	// A text too big to read holds textColumn's marker, short enough to
	// pass the document's bounds: it is not what the store holds.
	if i := bytes.Index(b, []byte("…[cut by sectax: ")); i >= 0 {
		mark := string(b[i:min(len(b), i+64)])
		if j := strings.IndexByte(mark, ']'); j >= 0 {
			mark = mark[:j+1]
		}
		return exit.Wrap(exit.Usage, fmt.Errorf("run %s as stored holds a text too big to read (%s), so its document would not be what the store holds; nothing was written", shownID(d.Run.ID), mark))
	}
	if _, err := Decode("the stored run", b); err != nil {
		var fe *FieldError
		msg := oneLine(err.Error())
		if errors.As(err, &fe) {
			msg = fe.Field + ": " + oneLine(fe.Msg)
			if fe.Field == "" {
				msg = oneLine(fe.Msg)
			}
		}
		return exit.Wrap(exit.Usage, fmt.Errorf("run %s as stored is not a valid %s document (%s), so import would refuse it; nothing was written", shownID(d.Run.ID), run.Schema, cutText(msg, 512)))
	}
	return nil
}

// CheckDocs validates documents read back from a store before they are
// sent on (sectax push from the spool, which anyone who can write its
// folder can edit): every run as Decode validates one, and its stored
// environment as JSON. One line naming the first bad run.
func CheckDocs(docs []Doc) error {
	for _, doc := range docs {
		if doc.Run == nil {
			return exit.Usagef("a document without a run cannot be sent")
		}
		if err := doc.Run.Validate(); err != nil {
			return exit.Wrap(exit.Usage, fmt.Errorf("run %q is not a valid %s document (%v); nothing was sent", oneLine(doc.Run.ID), run.Schema, err))
		}
		if len(doc.RawEnv) > 0 && !json.Valid(doc.RawEnv) {
			return exit.Usagef("run %q: its stored environment is not valid JSON; nothing was sent", oneLine(doc.Run.ID))
		}
	}
	return nil
}
