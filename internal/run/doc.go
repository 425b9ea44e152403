package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The sectax.run/v1 document format: what 'sectax export' and a measuring
// guest write and 'sectax import' and the lab host read (docs/format.md).
// It lives here, beside the Run it encodes, so that writing a run needs
// no store.

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
	Run    *Run
	RawEnv json.RawMessage
	// File and Index say where Decode found the document (for errors).
	File  string
	Index int
}

// EnvJSON is the env to store or write: RawEnv when present.
func (d Doc) EnvJSON() ([]byte, error) {
	if len(d.RawEnv) > 0 {
		return d.RawEnv, nil
	}
	return json.Marshal(d.Run.Env)
}

// Decode reads run documents from data: one document, a JSON array of
// documents, JSON Lines, or several documents one after another (what
// Export wrote before it wrote arrays). name is the file name used in
// errors. Every document is checked against the documented format: the
// required fields present, then (*Run).Validate.
func Decode(name string, data []byte) ([]Doc, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d MiB for an import file: split it (sectax export writes one run per line with --format jsonl)", name, len(data), MaxDocumentBytes>>20)
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
		fe := &FieldError{File: name, Index: i, ID: PrintableID(idOnly.ID)}
		if field, msg := missingField(raw); field != "" {
			fe.Field, fe.Msg = field, msg
			return nil, fe
		}
		var r Run
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
			var ie *InvalidError
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

// PrintableID is a run id fit for an error message (a hostile one is cut
// short and escaped).
func PrintableID(id string) string {
	if CheckID(id) == nil {
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

// Export writes the runs as a JSON array of sectax.run/v1 documents,
// indented; Decode reads them back.
func Export(w io.Writer, runs []*Run) error {
	docs := make([]Doc, len(runs))
	for i, r := range runs {
		docs[i] = Doc{Run: r}
	}
	return WriteDocs(w, docs, FormatArray)
}

// DocFormat is how WriteDocs lays out several documents.
type DocFormat string

// The layouts: a JSON array (one JSON value that any parser reads), JSON
// Lines (one compact document per line), or one indented document (only
// for exactly one).
const (
	FormatArray  DocFormat = "json"
	FormatLines  DocFormat = "jsonl"
	FormatSingle DocFormat = "single"
)

// envNull is how the top-level env of a run with Env nil encodes. Every
// field before it in a run document is a scalar (strings are escaped), so
// its first occurrence is the top-level env.
var envNull = []byte(`"env":null`)

// compactDoc is one document, compact, with its RawEnv in place of the
// typed env.
func compactDoc(d Doc) ([]byte, error) {
	env, err := d.EnvJSON()
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
func WriteDocs(w io.Writer, docs []Doc, f DocFormat) error {
	if f == FormatSingle && len(docs) != 1 {
		return fmt.Errorf("run: %d documents where one was expected", len(docs))
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
	f DocFormat
	n int
}

// NewDocWriter starts a layout on w.
func NewDocWriter(w io.Writer, f DocFormat) (*DocWriter, error) {
	switch f {
	case FormatSingle, FormatLines:
	case FormatArray:
		if _, err := io.WriteString(w, "["); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("run: unknown format %q", f)
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
			return fmt.Errorf("run: more than the one document expected")
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
