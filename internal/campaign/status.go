package campaign

import (
	"context"
	"errors"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/run"
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

// Find is the campaign status and report show: ref names one (an id or a
// unique prefix of one); "" is this host's (its running campaign, else its
// newest, found by the machine the store's copy names), else the store's
// running or newest one.
func Find(ctx context.Context, db *store.DB, root, ref string) (*store.Campaign, error) {
	if ref != "" {
		return db.FindCampaign(ctx, ref)
	}
	h := &Host{Root: root}
	rec, err := db.FindCampaignOf(ctx, `"key":"`+h.Machine().Key+`"`)
	if errors.Is(err, store.ErrNoCampaign) {
		return db.FindCampaign(ctx, "")
	}
	return rec, err
}
