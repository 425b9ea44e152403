package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/exit"
)

// NotFoundError says that a run reference matched nothing. Candidates lists
// what exists (labels and run ids), for the error message.
type NotFoundError struct {
	Ref        string
	Candidates []string
}

// ExitKind says that naming a run that does not exist is a usage error.
func (e *NotFoundError) ExitKind() exit.Kind { return exit.Usage }

func (e *NotFoundError) Error() string {
	if e.Ref == "" {
		return "an empty run reference: name a run id or a label ('sectax list' shows them)"
	}
	if len(e.Candidates) == 0 {
		return fmt.Sprintf("no run or label matches %q (the database holds no runs)", e.Ref)
	}
	return fmt.Sprintf("no run or label matches %q; candidates: %s", e.Ref, someOf(e.Candidates))
}

// AmbiguousError says that a run reference matched several runs where one
// was needed. Candidates are the matching run ids.
type AmbiguousError struct {
	Ref        string
	Why        string
	Candidates []string
}

// ExitKind says that an ambiguous reference is a usage error.
func (e *AmbiguousError) ExitKind() exit.Kind { return exit.Usage }

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous (%s): %s; give more of the run id", e.Ref, e.Why, someOf(e.Candidates))
}

// maxListed is how many candidates a message names: a reference that
// matches thousands of runs must not print them all.
const maxListed = 10

// someOf lists at most maxListed items, then how many more there are.
func someOf(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}

// Match says how a reference was resolved.
type Match string

// The ways a reference resolves.
const (
	ByID     Match = "id"
	ByLabel  Match = "label"
	ByPrefix Match = "prefix"
)

// Resolve turns a reference into run ids, oldest first: an exact run id,
// else a label (every run with it), else side selectors (select.go), else
// a unique prefix of a run id.
func (d *DB) Resolve(ctx context.Context, ref string) ([]string, Match, error) {
	if ref == "" {
		return nil, "", &NotFoundError{Ref: ref}
	}
	all, err := d.ListBrief(ctx)
	if err != nil {
		return nil, "", err
	}
	var labelled, prefixed []string
	for _, s := range all {
		if s.ID == ref {
			return []string{s.ID}, ByID, nil
		}
		if s.Label == ref {
			labelled = append(labelled, s.ID)
		}
		if strings.HasPrefix(s.ID, ref) {
			prefixed = append(prefixed, s.ID)
		}
	}
	switch {
	case len(labelled) > 0:
		return labelled, ByLabel, nil
	case IsSelector(ref):
		return resolveSelector(ref, all)
	case len(prefixed) == 1:
		return prefixed, ByPrefix, nil
	case len(prefixed) > 1:
		return nil, "", &AmbiguousError{Ref: ref, Why: "a prefix of several run ids", Candidates: prefixed}
	}
	// A row List skipped (a bad time) is still named by its exact id, so
	// that 'sectax rm ID' can delete it.
	var id string
	if err := d.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE id = ?`, ref).Scan(&id); err == nil {
		return []string{id}, ByID, nil
	}
	return nil, "", &NotFoundError{Ref: ref, Candidates: candidates(all)}
}

// ResolveOne is Resolve for commands that act on a single run: a label
// that holds several runs is ambiguous.
func (d *DB) ResolveOne(ctx context.Context, ref string) (string, error) {
	ids, _, err := d.Resolve(ctx, ref)
	if err != nil {
		return "", err
	}
	if len(ids) > 1 {
		return "", &AmbiguousError{Ref: ref, Why: fmt.Sprintf("label of %d runs", len(ids)), Candidates: ids}
	}
	return ids[0], nil
}

// candidates lists the labels (as label:NAME) and run ids in the database.
func candidates(all []Summary) []string {
	seen := map[string]bool{}
	var labels, ids []string
	for _, s := range all {
		if s.Label != "" && !seen[s.Label] {
			seen[s.Label] = true
			labels = append(labels, "label "+s.Label)
		}
		ids = append(ids, s.ID)
	}
	const max = 20
	if len(ids) > max {
		ids = append([]string{fmt.Sprintf("(%d older)", len(ids)-max)}, ids[len(ids)-max:]...)
	}
	return append(labels, ids...)
}
