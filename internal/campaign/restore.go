package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/wslconfig"
)

// Abort stops the campaign ref names ("" the running one) and puts back
// what it changed. On a campaign that has already ended, it tries again
// to put back what is left.
func (e *Engine) Abort(ctx context.Context, ref string) (*store.Campaign, error) {
	id, err := e.planned(ref)
	if err != nil {
		return nil, err
	}
	plan, err := e.Host.readPlan(id)
	if err != nil {
		return nil, err
	}
	rec := plan.Campaign
	e.reconcile(ctx, rec)
	st, lerr := e.load(rec)
	if lerr != nil {
		// A damaged campaign is still stopped, and what sectax made for
		// it on this host is still put back.
		e.say("%v", lerr)
		st = salvage(rec)
		st.machine = e.sameMachine(plan)
		if rec.State == Running {
			rec.State = Aborted
			rec.Message = "aborted: the stored campaign was damaged"
		}
		if err := e.save(ctx, st); err != nil {
			return rec, errors.Join(lerr, err)
		}
		return rec, e.restore(ctx, st)
	}
	st.machine = e.sameMachine(plan)
	if rec.State == Running {
		rec.State = Aborted
		rec.Message = fmt.Sprintf("aborted at step %d of %d", rec.Next+1, len(rec.Steps))
		if err := e.save(ctx, st); err != nil {
			return rec, err
		}
	}
	return rec, e.restore(ctx, st)
}

// restore puts back every change, newest first, and stores what is left.
// The changes come from this host's plan, never from the store, and each
// is still checked to be one sectax itself makes for this campaign on
// this host (owned: derived again from its id, the root, its .wslconfig
// and its mechanism); undo then checks that the file is still the one
// sectax wrote. Anything else is refused, reported and dropped.
func (e *Engine) restore(ctx context.Context, st *state) error {
	ctx = context.WithoutCancel(ctx)
	write := e.WriteFile
	if write == nil {
		write = func(path string, _, data []byte) error { return userfile.WriteNew(path, data) }
	}
	owned := e.owned(st)
	var left []Change
	var errs []string
	for i := len(st.changes) - 1; i >= 0; i-- {
		c := st.changes[i]
		pl, why := owned.check(c)
		if why != "" {
			errs = append(errs, fmt.Sprintf("refused the recorded change %q of %s: %s; nothing was done to it", c.Kind, c.Path, why))
			continue
		}
		if err := undo(c, pl, write); err != nil {
			if c.Pending && c.Kind == "created" {
				// Recorded, never made: what is at its path is not
				// sectax's, and nothing of this campaign is there to
				// put back. Said once; the change is dropped.
				e.say("campaign %s: the %s %s was recorded but never made by sectax: nothing to restore there (%v)", st.rec.ID, c.What, c.Path, err)
				continue
			}
			left = append([]Change{c}, left...)
			errs = append(errs, err.Error())
		}
	}
	st.changes = left
	st.rec.RestoreError = strings.Join(errs, "; ")
	if err := e.save(ctx, st); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("restore incomplete: %s; fix it and run 'sectax campaign abort %s' again", st.rec.RestoreError, st.rec.ID)
	}
	return nil
}

// ownedPaths are the things sectax makes for one campaign on this host,
// derived from its id, the host's root, the .wslconfig it edits and its
// mechanism: the only things restore acts on.
type ownedPaths struct {
	created map[string]place // host path → where it is acted on
	file    place            // the .wslconfig (--via wsl)
	path    string           // its host path
	kexec   bool             // a kexec image may be loaded (--via kexec)
}

func (e *Engine) owned(st *state) ownedPaths {
	o := ownedPaths{created: map[string]place{}, kexec: st.rec.Via == "kexec"}
	root := e.Host.root()
	if checkID(st.rec.ID) == nil {
		id := st.rec.ID
		o.created[e.Host.UnitPath(id)] = place{dir: root, rel: path.Join(unitDir, UnitName(id))}
		o.created[e.Host.UnitLink(id)] = place{dir: root, rel: path.Join(wantsDir, UnitName(id)), link: path.Join("..", UnitName(id))}
		o.created[e.Host.PassfilePath(id)] = place{dir: root, rel: path.Join(passDir, filepath.Base(e.Host.PassfilePath(id)))}
	}
	if p := st.opts.WSLConfig; st.rec.Via == "wsl" && p != "" && filepath.IsAbs(p) && filepath.Base(p) == ".wslconfig" {
		if t, err := wslconfig.Target(p); err == nil && filepath.Base(t) == ".wslconfig" {
			o.file, o.path = at(t), t
			s := filepath.Join(filepath.Dir(t), ScriptName)
			o.created[s] = at(s)
		}
	}
	return o
}

// check says why c is not a change sectax made ("" when it is), and where
// it is acted on.
func (o ownedPaths) check(c Change) (pl place, why string) {
	switch c.Kind {
	case "kexec":
		if o.kexec {
			return place{}, ""
		}
		return place{}, "this campaign does not reboot with kexec"
	case "created":
		if p, ok := o.created[c.Path]; ok {
			return p, ""
		}
	case "file":
		if o.path != "" && c.Path == o.path {
			if c.Existed {
				if _, err := wslconfig.Parse(c.Original); err != nil {
					return place{}, fmt.Sprintf("its recorded original is not a .wslconfig (%v)", err)
				}
			}
			return o.file, ""
		}
	default:
		return place{}, "sectax makes no change of that kind"
	}
	return place{}, "sectax makes nothing there for this campaign on this host"
}

// Changes decodes what a stored campaign has changed and not put back.
func Changes(rec *store.Campaign) ([]Change, error) {
	var cs []Change
	err := json.Unmarshal([]byte(rec.Changes), &cs)
	return cs, err
}

// StoredOptions decodes a stored campaign's options.
func StoredOptions(rec *store.Campaign) (Options, error) {
	var o Options
	err := json.Unmarshal([]byte(rec.Options), &o)
	return o, err
}

// Configs decodes a stored campaign's configurations.
func Configs(rec *store.Campaign) ([]bootconfig.Config, error) { return decodeConfigs(rec.Configs) }
