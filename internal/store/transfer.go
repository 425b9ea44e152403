package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

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
}

// envJSON is the env to store or write: RawEnv when present.
func (d Doc) envJSON() ([]byte, error) {
	if len(d.RawEnv) > 0 {
		return d.RawEnv, nil
	}
	return json.Marshal(d.Run.Env)
}

// Decode reads run documents from data: one document, a JSON array of
// documents, or several documents one after another (what Export writes).
// name is the file name used in errors. Every document is validated.
func Decode(name string, data []byte) ([]Doc, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty file, expected sectax.run/v1 documents", name)
	}
	var raws []json.RawMessage
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array of run documents: %v", name, err)
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: not valid JSON: %v", name, len(raws)+1, err)
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 {
		return nil, fmt.Errorf("%s: holds no run documents", name)
	}
	var docs []Doc
	seen := map[string]int{}
	for i, raw := range raws {
		var r run.Run
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&r); err != nil {
			var idOnly struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(raw, &idOnly) // best effort, for the message
			fe := &FieldError{File: name, Index: i, ID: idOnly.ID, Msg: err.Error()}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				fe.Field, fe.Msg = te.Field, fmt.Sprintf("a JSON %s cannot be a %s", te.Value, te.Type)
			}
			return nil, fe
		}
		if field, msg := Validate(&r); field != "" || msg != "" {
			return nil, &FieldError{File: name, Index: i, ID: r.ID, Field: field, Msg: msg}
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
		docs = append(docs, Doc{Run: &r, RawEnv: env.Bytes()})
	}
	return docs, nil
}

// Validate checks a run document and returns the bad field and what is
// wrong with it, or two empty strings.
func Validate(r *run.Run) (field, msg string) {
	switch {
	case r.Schema != run.Schema:
		return "schema", fmt.Sprintf("%q is not %q", r.Schema, run.Schema)
	case strings.TrimSpace(r.ID) == "" || r.ID != strings.TrimSpace(r.ID):
		return "id", "missing, empty or padded with spaces"
	case r.Started.IsZero():
		return "started", "missing"
	}
	switch r.Status {
	case run.StatusRunning, run.StatusComplete, run.StatusInterrupted, run.StatusFailed:
	default:
		return "status", fmt.Sprintf("%q is not running, complete, interrupted or failed", r.Status)
	}
	for i, res := range r.Results {
		p := fmt.Sprintf("results[%d]", i)
		if res.Workload == "" {
			return p + ".workload", "missing"
		}
		names := map[string]bool{}
		for j, m := range res.Metrics {
			mp := fmt.Sprintf("%s.metrics[%d]", p, j)
			switch {
			case m.Name == "":
				return mp + ".name", "missing"
			case names[m.Name]:
				return mp + ".name", fmt.Sprintf("%q appears twice", m.Name)
			case m.Better != run.Lower && m.Better != run.Higher:
				return mp + ".better", fmt.Sprintf("%q is not lower or higher", m.Better)
			}
			names[m.Name] = true
			for k, v := range m.Samples {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Sprintf("%s.samples[%d]", mp, k), "not a finite number"
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
}

// Import writes runs in one transaction; a run whose id is already stored
// is skipped and reported in the result, also when another host imports
// it at the same moment (PostgreSQL: lockRuns). Validate the runs (Decode does)
// before calling it.
func (d *DB) Import(ctx context.Context, docs []Doc) (ImportResult, error) {
	var out ImportResult
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return out, d.wrap(err)
	}
	defer tx.Rollback()
	ids := make([]string, len(docs))
	for i, doc := range docs {
		ids[i] = doc.Run.ID
	}
	if err := d.lockRuns(ctx, tx, ids); err != nil {
		return out, d.wrap(err)
	}
	for _, doc := range docs {
		r := doc.Run
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id=?`, r.ID).Scan(&n); err != nil {
			return ImportResult{}, d.wrap(err)
		}
		if n > 0 {
			out.Skipped = append(out.Skipped, r.ID)
			continue
		}
		if err := insertRun(ctx, tx, doc); err != nil {
			return ImportResult{}, d.wrap(err)
		}
		out.Imported = append(out.Imported, r.ID)
	}
	if err := tx.Commit(); err != nil {
		return ImportResult{}, d.wrap(err)
	}
	return out, nil
}

// Export writes the runs as sectax.run/v1 documents, one after another,
// indented; Decode reads them back.
func Export(w io.Writer, runs []*run.Run) error {
	docs := make([]Doc, len(runs))
	for i, r := range runs {
		docs[i] = Doc{Run: r}
	}
	return WriteDocs(w, docs)
}

// envNull is how the top-level env of a run with Env nil encodes. Every
// field before it in a run document is a scalar (strings are escaped), so
// its first occurrence is the top-level env.
var envNull = []byte(`"env":null`)

// WriteDocs writes documents one after another, indented, each with its
// RawEnv in place of the typed env.
func WriteDocs(w io.Writer, docs []Doc) error {
	for _, d := range docs {
		env, err := d.envJSON()
		if err != nil {
			return fmt.Errorf("run %s: env: %w", d.Run.ID, err)
		}
		r := *d.Run
		r.Env = nil
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			return fmt.Errorf("run %s: %w", d.Run.ID, err)
		}
		b := compact.Bytes()
		i := bytes.Index(b, envNull)
		if i < 0 {
			return fmt.Errorf("run %s: no env field in the encoded document", d.Run.ID)
		}
		spliced := make([]byte, 0, len(b)+len(env))
		spliced = append(spliced, b[:i]...)
		spliced = append(spliced, `"env":`...)
		spliced = append(spliced, env...)
		spliced = append(spliced, b[i+len(envNull):]...)
		var out bytes.Buffer
		if err := json.Indent(&out, spliced, "", "  "); err != nil {
			return fmt.Errorf("run %s: %w", d.Run.ID, err)
		}
		if _, err := w.Write(out.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
