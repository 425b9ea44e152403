package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/ui"
)

// Bounds on what is read back. The store is written by every host of a
// fleet and by whoever can write its file: a row is data, not a promise.
// What a row holds beyond these bounds is cut (a text, with a marker) or
// not read (a JSON column, a sample), and said once in a note (Options.
// Out); memory and output stay bounded whatever a row claims.
const (
	// MaxReadEnvBytes bounds a run's stored environment (an honest one is
	// tens of kilobytes); a larger one is read as none.
	MaxReadEnvBytes = 4 << 20
	// MaxReadJSONBytes bounds each other JSON column of a row (a result's
	// parameters, warnings, failures, the extra blocks).
	MaxReadJSONBytes = 1 << 20
	// MaxReadRunTextBytes bounds the JSON text kept of one run in all.
	MaxReadRunTextBytes = 16 << 20
	// MaxReadSamples bounds the samples of one metric (the import limit).
	MaxReadSamples = run.MaxSamples
	// MaxListedNotes is how many notes a command prints about rows it cut
	// or skipped; the rest are counted in one more.
	MaxListedNotes = 10
)

// MaxReadRunSamples bounds the samples read of one run, and
// MaxReadQuerySamples those of all the runs one command reads at once (a
// side of compare, fleet). Variables only so that a test can show the cut
// without writing millions of rows.
var (
	MaxReadRunSamples   = 2_000_000
	MaxReadQuerySamples = 20_000_000
)

// cutMark ends a text cut at read.
const cutMark = "…[cut by sectax: %d bytes stored]"

// cutText returns s cut to max bytes (on a character boundary) with a
// marker that says how long it was, or s when it fits.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf(cutMark, len(s))
}

// textColumn is the SQL that reads a text column at most max characters
// long (one more, so that a longer one shows as cut), both engines. A
// value of more than 4(max+1) bytes, more than max+1 characters can take,
// is never read: its length is taken without its bytes (octet_length,
// which SQLite answers from the record header and PostgreSQL from the
// TOAST pointer; substr and length would load the whole value first) and
// the row reads the cut marker alone.
func textColumn(col string, max int) string {
	n := strconv.Itoa(max + 1)
	return "CASE WHEN octet_length(" + col + ") > " + strconv.Itoa(4*(max+1)) + " THEN " + cutMarkSQL(col) +
		" ELSE substr(" + col + ", 1, " + n + ") END"
}

// cutMarkSQL is cutMark in SQL, for a value too long to read at all.
func cutMarkSQL(col string) string {
	return "'…[cut by sectax: ' || octet_length(" + col + ") || ' bytes stored]'"
}

// notRead reports whether s is the marker textColumn reads in place of a
// value too long to read at all (an id that is one names no run).
func notRead(s string) bool { return strings.HasPrefix(s, "…[cut by sectax: ") }

// readText is cutText for a column of run id's row read by textColumn: a
// value too long to read at all is said once in a note naming the run
// and the field (and stays the marker).
func (d *DB) readText(id, field, s string, max int) string {
	if notRead(s) {
		d.notes.add("database %s: run %s: its stored %s is too big to read (%s); shown as the marker", d.path, shownID(id), field, strings.TrimPrefix(s, "…"))
		return s
	}
	return cutText(s, max)
}

// jsonColumn is the SQL that reads a JSON column, or def when it is
// longer than max bytes, and its length in bytes: the length is checked
// in the query (octet_length, see textColumn), so that an over-bound
// value is never transferred.
func jsonColumn(col, def string, max int) string {
	return "CASE WHEN octet_length(" + col + ") > " + strconv.Itoa(max) + " THEN '" + def + "' ELSE " + col + " END, octet_length(" + col + ")"
}

// notes says what a read cut or skipped on Options.Out: at most
// MaxListedNotes, then one that counts the rest.
type notes struct {
	mu   sync.Mutex
	out  ui.Printer
	n    int
	seen map[string]bool
}

func (n *notes) add(format string, a ...any) {
	if n == nil || n.out == nil {
		return
	}
	msg := fmt.Sprintf(format, a...)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if n.seen[msg] {
		return
	}
	n.seen[msg] = true
	n.n++
	switch {
	case n.n <= MaxListedNotes:
		n.out.Notef("%s", msg)
	case n.n == MaxListedNotes+1:
		n.out.Notef("more stored rows were cut or skipped; only the first %d are named", MaxListedNotes)
	}
}

// shownID is a stored run id fit for a note (a hostile one is cut and
// escaped).
func shownID(id string) string {
	if run.CheckID(id) == nil {
		return id
	}
	return run.PrintableID(id)
}

// finite reports whether a stored sample is a number sectax can compute
// with (NaN and ±Inf are not).
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// RowError says that a stored run's rows do not decode (a bad time,
// results or metrics out of order, a malformed JSON column): that run is
// unreadable, the others are not. Commands over many runs (fleet) report
// it and go on.
type RowError struct {
	ID  string
	Msg string
}

func (e *RowError) Error() string { return e.Msg }
