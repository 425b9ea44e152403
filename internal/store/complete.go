package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/run"
)

// completionRows bounds what Completions reads: a shell waits for it.
const completionRows = 10000

// Completions are the run references of the store r names that start with
// prefix, for a shell's completion (cobra's "value\tdescription"): labels
// first, described by how many runs they hold, then run ids, described by
// their label and start. It only reads: it makes no database (a missing
// or empty one has no completions), does not wait for one another process
// holds locked, and returns nothing on any error (a completion must never
// print an error into the shell). A stored id or label is foreign text: one
// that run.CheckID/CheckLabel refuses, or that holds a character a shell
// would read as syntax (completionSafe), is not offered; the user can
// still type it.
func (r Ref) Completions(ctx context.Context, prefix string) []string {
	d, err := r.Open(ctx, Options{ReadOnly: true, BusyTimeout: 100 * time.Millisecond, Backoff: []time.Duration{}})
	if err != nil {
		return nil
	}
	defer d.Close()
	rows, err := d.db.QueryContext(ctx, `SELECT `+textColumn("id", run.MaxIDBytes)+`, `+textColumn("label", run.MaxLabelBytes)+`, `+
		textColumn("started", maxTimeChars)+` FROM runs ORDER BY `+textColumn("started", maxTimeChars)+` DESC, id LIMIT `+fmt.Sprint(completionRows))
	if err != nil {
		return nil
	}
	defer rows.Close()
	var ids []string
	var labels []string
	count := map[string]int{}
	for rows.Next() {
		var id, label, started string
		if rows.Scan(&id, &label, &started) != nil {
			return nil
		}
		if label != "" && run.CheckLabel(label) == nil && completionSafe(label) {
			if count[label] == 0 && strings.HasPrefix(label, prefix) {
				labels = append(labels, label)
			}
			count[label]++
		}
		if run.CheckID(id) != nil || !completionSafe(id) || !strings.HasPrefix(id, prefix) {
			continue
		}
		desc := "run"
		if label != "" && completionSafe(label) {
			desc += " " + label
		}
		if t, err := parseTime(started); err == nil {
			desc += ", " + t.UTC().Format("2006-01-02 15:04 UTC")
		}
		ids = append(ids, id+"\t"+desc)
	}
	if rows.Err() != nil {
		return nil
	}
	out := make([]string, 0, len(labels)+len(ids))
	for _, l := range labels {
		out = append(out, fmt.Sprintf("%s\tlabel of %d run(s)", l, count[l]))
	}
	return append(out, ids...)
}

// completionSafe says whether s may be offered to a shell as a word: only
// letters, digits and - _ . : + @ = , / (what run ids and sensible labels
// are made of), so a stored row cannot put a quote, a $, a ; or a newline
// into the command line being edited.
//
// A word that starts with '-' is never offered: it would read as an
// option of the command being completed (--output=PATH, -oPATH, --db=…),
// a store writer's word turned into the user's flag.
func completionSafe(s string) bool {
	if strings.HasPrefix(s, "-") {
		return false
	}
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("-_.:+@=,/", c):
		default:
			return false
		}
	}
	return s != ""
}
