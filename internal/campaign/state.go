package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/store"
)

// state is a campaign being driven: the stored record and its decoded
// parts.
type state struct {
	rec     *store.Campaign
	configs []bootconfig.Config
	opts    Options
	changes []Change
	machine Machine
}

// load decodes a stored campaign and checks it whole: the store is not
// trusted (anyone who can write it can edit a row), so a campaign that is
// not one sectax could have stored is refused in one line naming it and
// what is wrong, never driven (and never a panic).
func (e *Engine) load(rec *store.Campaign) (*state, error) {
	st, err := decode(rec)
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w; the store was edited or is corrupt: 'sectax campaign abort %s' puts back what it safely can", rec.ID, err, rec.ID)
	}
	return st, nil
}

// decode is load without the wording.
func decode(rec *store.Campaign) (*state, error) {
	st := &state{rec: rec}
	var err error
	if err := checkID(rec.ID); err != nil {
		return nil, err
	}
	if st.configs, err = decodeConfigs(rec.Configs); err != nil {
		return nil, err
	}
	if len(st.configs) < 2 {
		return nil, fmt.Errorf("its plan has %d configurations, not the two or more sectax stores", len(st.configs))
	}
	if err := json.Unmarshal([]byte(rec.Options), &st.opts); err != nil {
		return nil, fmt.Errorf("stored options: %v", err)
	}
	if err := st.opts.Check(); err != nil {
		return nil, fmt.Errorf("stored options: %v", err)
	}
	if err := json.Unmarshal([]byte(rec.Changes), &st.changes); err != nil {
		return nil, fmt.Errorf("stored changes: %v", err)
	}
	if len(rec.Damage) > 0 {
		return nil, errors.New(strings.Join(rec.Damage, "; "))
	}
	if len(rec.Steps) == 0 {
		return nil, errors.New("it has no steps")
	}
	if rec.Next < 0 || rec.Next > len(rec.Steps) {
		return nil, fmt.Errorf("it is at step %d of a plan of %d", rec.Next+1, len(rec.Steps))
	}
	for i, s := range rec.Steps {
		if s.Index != i {
			return nil, fmt.Errorf("step %d is stored as step %d", i+1, s.Index+1)
		}
		if _, ok := bootconfig.Find(st.configs, s.Config); !ok {
			return nil, fmt.Errorf("step %d names configuration %q, which is not in its plan", i+1, s.Config)
		}
		if s.Attempts < 0 || s.Attempts > MaxAttempts {
			return nil, fmt.Errorf("step %d has %d boot attempts (0 to %d)", i+1, s.Attempts, MaxAttempts)
		}
		switch s.Status {
		case StepVerified, StepMeasuring, StepMeasured:
			if s.Verification == nil {
				return nil, fmt.Errorf("step %d is %s without a verification", i+1, s.Status)
			}
		case StepPending, StepBooting, StepRefused:
		default:
			return nil, fmt.Errorf("step %d has status %q", i+1, s.Status)
		}
		if i < rec.Next && s.Status != StepMeasured {
			return nil, fmt.Errorf("step %d is %s, yet the campaign is past it", i+1, s.Status)
		}
	}
	if rec.State == Running && rec.Next == len(rec.Steps) {
		return nil, errors.New("it is running with every step done")
	}
	return st, nil
}

// salvage is what abort can still use of a campaign load refused: the id,
// the options and the list of changes when they decode (restore checks
// every change against what sectax would have made anyway).
func salvage(rec *store.Campaign) *state {
	st := &state{rec: rec}
	if json.Unmarshal([]byte(rec.Options), &st.opts) != nil {
		st.opts = Options{}
	}
	if json.Unmarshal([]byte(rec.Changes), &st.changes) != nil {
		st.changes = nil
	}
	return st
}

// save writes the whole campaign: first this host's plan (the campaign's
// only source of instructions), then its copy in the store (one
// transaction), which holds no original bytes.
func (e *Engine) save(ctx context.Context, st *state) error {
	b, err := json.Marshal(nonNilChanges(st.changes))
	if err != nil {
		return err
	}
	st.rec.Changes = string(b)
	st.rec.Updated = e.now()
	if err := e.Host.writePlan(st.machine, st.rec); err != nil {
		return err
	}
	return e.DB.SaveCampaign(ctx, storeCopy(st.rec))
}

// storeCopy is the copy of rec the store keeps: the original bytes of
// what the campaign changed stay in the plan.
func storeCopy(rec *store.Campaign) *store.Campaign {
	c := *rec
	var cs []Change
	if json.Unmarshal([]byte(rec.Changes), &cs) == nil {
		for i := range cs {
			cs[i].Original = nil
		}
		if b, err := json.Marshal(nonNilChanges(cs)); err == nil {
			c.Changes = string(b)
		}
	}
	return &c
}

func nonNilChanges(c []Change) []Change {
	if c == nil {
		return []Change{}
	}
	return c
}

// record stores a change before it is made.
func (e *Engine) record(ctx context.Context, st *state) func(Change) error {
	return func(c Change) error {
		if i := slices.IndexFunc(st.changes, func(x Change) bool { return x.Kind == c.Kind && x.Path == c.Path }); i >= 0 {
			if st.changes[i].SHA256 == c.SHA256 && st.changes[i].Pending == c.Pending {
				return nil
			}
			// Written again with other bytes: restore must accept those;
			// or made now (no longer pending).
			st.changes[i].SHA256, st.changes[i].Pending = c.SHA256, c.Pending
			return e.save(ctx, st)
		}
		st.changes = append(st.changes, c)
		return e.save(ctx, st)
	}
}
