package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

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
// *run.FieldError (compare and rm would take the wrong runs). run.Decode the
// documents (which validates them) before calling it.
func (d *DB) Import(ctx context.Context, docs []run.Doc) (ImportResult, error) {
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
			fe := &run.FieldError{File: doc.File, Index: doc.Index, ID: r.ID}
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

// CheckExport checks a stored run as 'sectax import' would check the
// document export writes of it (run.Decode, the import's own validation), so
// that export never writes what import then refuses. One line naming the
// run and the field.
func CheckExport(d run.Doc) error {
	var buf bytes.Buffer
	if err := run.WriteDocs(&buf, []run.Doc{d}, run.FormatLines); err != nil {
		return err
	}
	b := buf.Bytes()
	// A text too big to read holds textColumn's marker, short enough to
	// pass the document's bounds: it is not what the store holds.
	if i := bytes.Index(b, []byte("…[cut by sectax: ")); i >= 0 {
		mark := string(b[i:min(len(b), i+64)])
		if j := strings.IndexByte(mark, ']'); j >= 0 {
			mark = mark[:j+1]
		}
		return exit.Wrap(exit.Usage, fmt.Errorf("run %s as stored holds a text too big to read (%s), so its document would not be what the store holds; nothing was written", shownID(d.Run.ID), mark))
	}
	if _, err := run.Decode("the stored run", b); err != nil {
		var fe *run.FieldError
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
// folder can edit): every run as run.Decode validates one, and its stored
// environment as JSON. One line naming the first bad run.
func CheckDocs(docs []run.Doc) error {
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

// ExportIDs resolves the references of 'sectax export' (ids, prefixes,
// labels, selectors: Resolve) into run ids, each once, in the order
// named, and checks every run as import would (CheckExport), so that
// nothing is written when one cannot be: export writes in a second pass
// (WriteDocs), one run in memory at a time.
func (d *DB) ExportIDs(ctx context.Context, refs []string) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	for _, ref := range refs {
		got, _, err := d.Resolve(ctx, ref)
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		doc, err := d.Doc(ctx, id)
		if err == nil {
			err = CheckExport(doc)
		}
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// WriteDocs writes the stored runs ids (ExportIDs) to w as sectax.run/v1
// documents in layout f, reading one run at a time.
func (d *DB) WriteDocs(ctx context.Context, w io.Writer, f run.DocFormat, ids []string) error {
	dw, err := run.NewDocWriter(w, f)
	if err != nil {
		return err
	}
	for _, id := range ids {
		doc, err := d.Doc(ctx, id)
		if err == nil {
			err = dw.Write(doc)
		}
		if err != nil {
			return err
		}
	}
	return dw.Close()
}
