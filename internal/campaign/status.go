package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/store"
)

// Status is where a campaign stands: the model of 'sectax campaign
// status' (report lays it out as text and JSON).
type Status struct {
	ID      string    `json:"id"`
	State   string    `json:"state"`
	Via     string    `json:"via"`
	Labels  []string  `json:"labels"`
	Seed    int64     `json:"seed"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Step is the step the campaign is at (1-based; steps+1 when done).
	Step    int    `json:"step"`
	Steps   int    `json:"steps"`
	Message string `json:"message"`
	// NextBoot is what the next boot must be (absent when none is due).
	NextBoot *NextBoot `json:"next_boot,omitempty"`
	// Resume says how the campaign continues after a boot.
	Resume           string            `json:"resume,omitempty"`
	LastVerification *StepVerification `json:"last_verification,omitempty"`
	Plan             []StepStatus      `json:"plan"`
	// Changed is what the campaign changed and has not put back.
	Changed      []Change `json:"changed"`
	RestoreError string   `json:"restore_error,omitempty"`
	// MoreSteps counts the stored steps beyond those read
	// (store.MaxCampaignSteps): no campaign sectax plans has them.
	MoreSteps int `json:"more_steps,omitempty"`
}

// NextBoot is the boot a running campaign waits for.
type NextBoot struct {
	Config  string `json:"config"`
	Boot    int    `json:"boot"`
	Cmdline string `json:"cmdline"`
}

// StepVerification is the last verification of a step's boot.
type StepVerification struct {
	Step         int               `json:"step"`
	Config       string            `json:"config"`
	Verification *run.Verification `json:"verification"`
}

// StepStatus is one step of the plan.
type StepStatus struct {
	Step      int     `json:"step"`
	Config    string  `json:"config"`
	Boot      int     `json:"boot"`
	Status    string  `json:"status"`
	Attempts  int     `json:"attempts"`
	BootID    string  `json:"boot_id,omitempty"`
	RunID     string  `json:"run_id,omitempty"`
	Quiet     string  `json:"quiet,omitempty"`
	QuietWait float64 `json:"quiet_wait_s,omitempty"`
}

// StatusOf is the status of the stored campaign rec.
func StatusOf(rec *store.Campaign) *Status {
	st := &Status{ID: rec.ID, State: rec.State, Via: rec.Via, Seed: rec.Seed, Created: rec.Created, Updated: rec.Updated,
		Step: rec.Next + 1, Steps: len(rec.Steps) + rec.MoreSteps, Message: rec.Message, RestoreError: rec.RestoreError,
		Plan: []StepStatus{}, MoreSteps: rec.MoreSteps}
	configs, _ := Configs(rec)
	for _, c := range configs {
		st.Labels = append(st.Labels, rec.Label+"-"+c.Name)
	}
	opts, _ := StoredOptions(rec)
	if rec.State == Running {
		st.Resume = opts.Resume
		if opts.Resume == "by hand" {
			st.Resume = "by hand: " + ResumeCommand(opts)
		}
	}
	st.Changed, _ = Changes(rec)
	if st.Changed == nil {
		st.Changed = []Change{}
	}
	for i := range st.Changed {
		st.Changed[i].Original = nil // the saved bytes are not for people
	}
	if rec.State == Running && rec.Next >= 0 && rec.Next < len(rec.Steps) {
		s := rec.Steps[rec.Next]
		if c, ok := bootconfig.Find(configs, s.Config); ok {
			st.NextBoot = &NextBoot{Config: s.Config, Boot: s.Boot, Cmdline: c.Cmdline(rec.BaseCmdline, configs)}
		}
	}
	for _, s := range rec.Steps {
		st.Plan = append(st.Plan, StepStatus{Step: s.Index + 1, Config: s.Config, Boot: s.Boot, Status: s.Status,
			Attempts: s.Attempts, BootID: s.BootID, RunID: s.RunID, Quiet: s.Quiet, QuietWait: s.QuietWait.Seconds()})
		if s.Verification != nil {
			st.LastVerification = &StepVerification{Step: s.Index + 1, Config: s.Config, Verification: s.Verification}
		}
	}
	return st
}

// Find is the campaign status and report show, and the lines to say
// before it. ref names one (an id or a unique prefix of one, any host's:
// status shows the store's copy, CheckCopy says how far to trust it); ""
// is this host's: among the campaigns whose plan is below this host's root
// (the only thing that makes a campaign this host's) on the store storeRef
// names (zero: any), its running one, else its newest. The store may hold others
// claiming to be this host's (its machine key or its hostname in their
// options: copyable strings): they are not shown, and one line says so.
func Find(ctx context.Context, db *store.DB, root string, storeRef store.Ref, ref string) (*store.Campaign, []string, error) {
	if ref != "" {
		rec, err := db.FindCampaign(ctx, ref)
		return rec, nil, err
	}
	h := &Host{Root: root}
	plans, notes, err := h.hostPlans()
	if err != nil {
		return nil, notes, err
	}
	mine := map[string]bool{}
	for _, p := range plans {
		mine[p.Campaign.ID] = true
	}
	if n := claimants(ctx, db, h.Machine(), mine); n != "" {
		notes = append(notes, n)
	}
	p := runningOf(plans, storeRef)
	if p == nil {
		p = newestOf(plans, storeRef)
	}
	if p == nil {
		base, dir := h.planBase()
		return nil, notes, fmt.Errorf("%w of this host (%s) in this store: no plan of one in %s; start one with 'sectax campaign start', or name one ('sectax campaign status ID' shows any campaign of the store)",
			store.ErrNoCampaign, safetext.Line(h.Machine().Hostname), filepath.Join(base, dir))
	}
	rec, err := db.Campaign(ctx, p.Campaign.ID)
	if err != nil {
		// The store lost or mangled its copy: this host's plan is what
		// the campaign is.
		notes = append(notes, fmt.Sprintf("campaign %s: the store has no readable copy (%s): shown from this host's plan %s", p.Campaign.ID, safetext.Clip(safetext.Line(err.Error()), 300), h.PlanPath(p.Campaign.ID)))
		return storeCopy(p.Campaign), notes, nil
	}
	return rec, notes, nil
}

// claimants is one line naming the store's campaigns that claim to be
// this host's (its machine key, or its hostname) but have no plan here
// ("" none): the running or newest of each claim.
func claimants(ctx context.Context, db *store.DB, m Machine, mine map[string]bool) string {
	name, _ := json.Marshal(m.Hostname)
	var ids, why []string
	for _, c := range []struct{ mark, why string }{
		{`"key":"` + m.Key + `"`, "this machine's key"},
		{`"hostname":` + string(name), "this hostname"},
	} {
		rec, err := db.FindCampaignOf(ctx, c.mark)
		if err != nil || mine[rec.ID] {
			continue
		}
		if id := safetext.Line(rec.ID); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		why = append(why, c.why)
	}
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("the store also holds %s, claiming to be this host's (%s) with no plan on this host: not this host's campaign, not shown ('sectax campaign status ID' shows the store's copy)",
		strings.Join(ids, ", "), strings.Join(why, ", "))
}
