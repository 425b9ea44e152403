package campaign

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/userfile"
	"github.com/sectax/sectax/internal/wslconfig"
)

// The states of a campaign.
const (
	Running  = "running"
	Finished = "finished"
	Failed   = "failed"
	Aborted  = "aborted"
)

// The states of a step.
const (
	StepPending   = "pending"   // no boot requested yet
	StepBooting   = "booting"   // a boot into the step was requested
	StepVerified  = "verified"  // this boot matches the step
	StepMeasuring = "measuring" // the step's run is being measured
	StepMeasured  = "measured"  // the step's run is complete
	StepRefused   = "refused"   // no boot verified: the campaign stopped
)

// Measurement is one run a campaign asks for.
type Measurement struct {
	// RunID is the id the run must be stored under; Label its label
	// (PREFIX-CONFIG).
	RunID, Label string
	Options      Options
	Config       *run.Config
	Campaign     *run.Campaign
}

// Engine drives campaigns.
type Engine struct {
	DB   *store.DB
	Host *Host
	// Store is the reference of the store DB is (a path or a URL; ""
	// any): resume and abort act only on this host's campaigns whose
	// plan names that store.
	Store string
	// Mech reboots; Mechanisms picks one by name and options for a
	// stored campaign (Mech is used when it is nil).
	Mech       Mechanism
	Mechanisms func(name string, o Options) (Mechanism, error)
	// Runs is how a step's run is measured (runner.Measure, here).
	Runs Runs
	KB   *mitigation.Knowledge
	// Now stamps the campaign; NewID names it and its runs (tests fix
	// both).
	Now   func() time.Time
	NewID func() string
	// Say tells the user what happens (nil: nothing).
	Say func(format string, a ...any)
	// WriteFile replaces an edited file when restoring it (nil: a plain
	// write; the CLI passes wslconfig's atomic writer with its backup).
	WriteFile func(path string, old, data []byte) error
	// Extend is adaptive repetition (campaigns with Options.TargetCI):
	// asked when every step is measured, it names the configurations to
	// boot once more (the first configuration is added to every round)
	// and says, one line each, what stopped the others. Nil: no rounds.
	Extend func(ctx context.Context, rec *store.Campaign, opts Options) (more []string, notes []string, err error)
}

// StartRequest is a new campaign.
type StartRequest struct {
	Configs []config.Config
	Boots   int
	// Seed orders the plan (0: random, recorded).
	Seed int64
	// Label prefixes the runs' labels ("": campaign-XXXXXX).
	Label string
	// Via names the mechanism (Engine.Mechanisms picks it).
	Via     string
	Options Options
	// Estimate is how long the whole campaign is expected to take
	// (Estimate; said when it starts).
	Estimate plan.Estimate
}

// VerifyError says that a step's boot did not verify twice; the campaign
// stopped and was restored. Reasons are config.Verify's, one line each.
type VerifyError struct {
	Step    int
	Config  string
	Reasons []string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("step %d (%s) did not verify twice, so the campaign stopped and was restored: %s", e.Step, e.Config, strings.Join(e.Reasons, "; "))
}

// ExitKind says that an expectation was not met.
func (e *VerifyError) ExitKind() exit.Kind { return exit.Unmet }

// ErrNotRunning says that resume found no running campaign.
var ErrNotRunning = errors.New("no running campaign")

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now().UTC()
	}
	return time.Now().UTC()
}

func (e *Engine) say(format string, a ...any) {
	if e.Say != nil {
		e.Say(format, a...)
	}
}

func newID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// newID names a campaign or a run.
func (e *Engine) newID() string {
	if e.NewID != nil {
		return e.NewID()
	}
	return newID()
}

func (e *Engine) mech(name string, o Options) (Mechanism, error) {
	if e.Mechanisms != nil {
		return e.Mechanisms(name, o)
	}
	if e.Mech == nil {
		return nil, fmt.Errorf("no reboot mechanism %q", name)
	}
	return e.Mech, nil
}

// state is a campaign being driven: the stored record and its decoded
// parts.
type state struct {
	rec     *store.Campaign
	configs []config.Config
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
		if _, ok := config.Find(st.configs, s.Config); !ok {
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
			if st.changes[i].SHA256 == c.SHA256 {
				return nil
			}
			// Written again with other bytes: restore must accept those.
			st.changes[i].SHA256 = c.SHA256
			return e.save(ctx, st)
		}
		st.changes = append(st.changes, c)
		return e.save(ctx, st)
	}
}

// Start plans and stores a campaign, installs what resumes it after a
// boot, and requests the first boot. It returns the stored campaign.
func (e *Engine) Start(ctx context.Context, req StartRequest) (*store.Campaign, error) {
	if req.Boots == 0 {
		req.Boots = DefaultBoots
	}
	steps, err := Plan(req.Configs, req.Boots, req.Seed)
	if err != nil {
		return nil, err
	}
	mech, err := e.mech(req.Via, req.Options)
	if err != nil {
		return nil, err
	}
	if id, err := e.runningHere(); err != nil {
		return nil, err
	} else if id != "" {
		return nil, &store.ActiveCampaignError{ID: id}
	}
	snap, err := e.Host.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	configs, err := encodeConfigs(req.Configs)
	if err != nil {
		return nil, err
	}
	id := e.newID()
	if req.Label == "" {
		req.Label = "campaign-" + id[len(id)-6:]
	}
	first := req.Configs[0]
	for _, c := range req.Configs {
		if c.Name == steps[0].Config {
			first = c
		}
	}
	if err := mech.Check(ctx, BootRequest{CampaignID: id, Step: 1, Steps: len(steps), Config: first, Plan: req.Configs,
		Cmdline: first.Cmdline(snap.Cmdline.Raw, req.Configs), Options: req.Options, Say: e.Say}); err != nil {
		return nil, err
	}
	req.Options.Resume = e.resumeHow(mech)
	if req.Estimate.Duration > 0 {
		e.say("campaign: %d boots, %s", len(steps), req.Estimate)
	}
	// The password of a PostgreSQL store goes to a root-only password
	// file, never into the options (a shared column), the unit (world
	// readable) or a message: they name the URL without it.
	public, passLine, secret, err := store.Secret(req.Options.DB, e.Host.PassfilePath(id))
	if err != nil {
		return nil, err
	}
	if store.IsURL(req.Options.DB) {
		req.Options.DB = public
	}
	machine := e.Host.Machine()
	req.Options.Machine = &machine
	// Options the campaign would refuse on load are refused before
	// anything is stored or changed.
	if err := req.Options.Check(); err != nil {
		return nil, exit.Usagef("campaign options: %v", err)
	}
	opts, err := json.Marshal(req.Options)
	if err != nil {
		return nil, err
	}
	now := e.now()
	rec := &store.Campaign{ID: id, Created: now, Updated: now, Label: req.Label, Via: mech.Name(), Seed: req.Seed,
		Configs: configs, Options: string(opts), BaseCmdline: strings.TrimSpace(snap.Cmdline.Raw), StartBootID: snap.BootID,
		State: Running, Changes: "[]"}
	for i, s := range steps {
		rec.Steps = append(rec.Steps, store.CampaignStep{Index: i, Config: s.Config, Boot: s.Boot, Status: StepPending})
	}
	st, err := e.load(rec)
	if err != nil {
		return nil, err
	}
	st.machine = machine
	// The plan is written on this host before the store's copy: the
	// campaign's instructions never come from the store.
	if err := e.Host.writePlan(machine, rec); err != nil {
		return nil, err
	}
	if err := e.DB.CreateCampaign(ctx, storeCopy(rec)); err != nil {
		e.Host.removePlan(id)
		return nil, err
	}
	if secret {
		if err := e.Host.WritePassfile(id, passLine, e.record(ctx, st)); err != nil {
			return rec, e.fail(ctx, st, fmt.Sprintf("cannot write the store's password file: %v", err), err)
		}
	}
	if req.Options.Resume == "unit" {
		if err := e.Host.InstallUnit(rec.ID, st.opts.Exe, st.opts.DB, e.record(ctx, st)); err != nil {
			return rec, e.fail(ctx, st, fmt.Sprintf("cannot install the resume unit: %v", err), err)
		}
	}
	return rec, e.boot(ctx, st, mech, snap)
}

// resumeHow is how a campaign continues after a boot: the Windows-side
// script resumes a WSL campaign; elsewhere the systemd unit where systemd
// is PID 1, else the user.
func (e *Engine) resumeHow(m Mechanism) string {
	switch {
	case m.Name() == "wsl":
		return "interop"
	case e.Host.Systemd():
		return "unit"
	}
	return "by hand"
}

// ResumeCommand is what resumes a campaign by hand, quoted for a shell
// (a PostgreSQL URL's '&' would otherwise end the command), for printing:
// a PostgreSQL URL without its password (store.DisplayName; libpq finds it
// in PGPASSWORD or ~/.pgpass, the unit in its own password file).
func ResumeCommand(o Options) string {
	exe := o.Exe
	if exe == "" {
		exe = "sectax"
	}
	if o.DB == "" {
		return advise.ShellQuote(exe) + " campaign resume"
	}
	return advise.ShellQuote(exe) + " --db " + advise.ShellQuote(store.DisplayName(o.DB)) + " campaign resume"
}

// boot requests the boot of the current step.
func (e *Engine) boot(ctx context.Context, st *state, mech Mechanism, snap *sysinfo.Snapshot) error {
	rec := st.rec
	s := &rec.Steps[rec.Next]
	cfg, _ := config.Find(st.configs, s.Config)
	s.Status = StepBooting
	s.Attempts++
	s.FromBootIDs = append(s.FromBootIDs, snap.BootID)
	rec.Message = fmt.Sprintf("waiting for boot %d of %s", s.Boot, s.Config)
	if err := e.save(ctx, st); err != nil {
		return err
	}
	req := BootRequest{CampaignID: rec.ID, Step: rec.Next + 1, Steps: len(rec.Steps), Config: cfg, Plan: st.configs,
		Cmdline: cfg.Cmdline(rec.BaseCmdline, st.configs), Changes: st.changes, Options: st.opts, Say: e.Say}
	if st.opts.Resume == "by hand" {
		e.say("after the boot, run: %s", ResumeCommand(st.opts))
	}
	if err := mech.Boot(ctx, req, e.record(ctx, st)); err != nil {
		s.Status = StepPending
		s.Attempts--
		s.FromBootIDs = s.FromBootIDs[:len(s.FromBootIDs)-1]
		rec.Message = fmt.Sprintf("the boot into step %d (%s) could not be requested: %v; fix that and run 'sectax campaign resume', or 'sectax campaign abort'", rec.Next+1, s.Config, err)
		if serr := e.save(ctx, st); serr != nil {
			return errors.Join(err, serr)
		}
		return err
	}
	return nil
}

// Resume continues the running campaign after a boot: it verifies the
// boot against the current step, waits for a quiet start, measures, and
// requests the next boot (or finishes and restores).
func (e *Engine) Resume(ctx context.Context) (*store.Campaign, error) {
	id, err := e.runningHere()
	if err != nil {
		return nil, err
	}
	if id == "" {
		if last := e.lastHere(); last != nil {
			return last, fmt.Errorf("%w: campaign %s is %s (%s); start a new one with 'sectax campaign start'", ErrNotRunning, last.ID, last.State, last.Message)
		}
		return nil, fmt.Errorf("%w on this host (%s) in this store; start one with 'sectax campaign start'", ErrNotRunning, e.Host.Machine().Hostname)
	}
	plan, err := e.Host.readPlan(id)
	if err != nil {
		return nil, err
	}
	rec := plan.Campaign
	st, err := e.load(rec)
	if err != nil {
		return rec, err
	}
	st.machine = plan.Machine
	e.reconcile(ctx, rec)
	mech, err := e.mech(rec.Via, st.opts)
	if err != nil {
		return rec, err
	}
	snap, err := e.Host.Snapshot(ctx)
	if err != nil {
		return rec, err
	}
	s := &rec.Steps[rec.Next]
	switch s.Status {
	case StepPending:
		return rec, e.boot(ctx, st, mech, snap)
	case StepVerified, StepMeasuring:
		if snap.BootID != s.BootID {
			// The machine booted again after the step verified (a
			// crash, a power cycle): this boot must verify afresh.
			s.FromBootIDs = append(s.FromBootIDs, s.BootID)
			s.BootID, s.Status = "", StepBooting
		}
	}
	if s.Status == StepBooting {
		ok, err := e.verify(ctx, st, mech, snap)
		if err != nil || !ok {
			return rec, err
		}
	}
	if err := e.measure(ctx, st); err != nil {
		return rec, err
	}
	rec.Next++
	var notes []string
	if rec.Next == len(rec.Steps) && st.opts.TargetCI > 0 && e.Extend != nil {
		if notes, err = e.extend(ctx, st); err != nil {
			return rec, err
		}
	}
	if rec.Next == len(rec.Steps) {
		rec.State = Finished
		rec.Message = fmt.Sprintf("finished: %d boots measured", len(rec.Steps))
		for _, n := range notes {
			rec.Message += "; " + n
		}
		if err := e.save(ctx, st); err != nil {
			return rec, err
		}
		return rec, e.restore(ctx, st)
	}
	return rec, e.boot(ctx, st, mech, snap)
}

// extend asks Extend for another round of adaptive repetition and appends
// its steps, the first configuration and those named, in an order shuffled
// from the campaign's seed and the round; what stopped the others goes to
// the campaign's message when no round follows.
func (e *Engine) extend(ctx context.Context, st *state) ([]string, error) {
	rec := st.rec
	more, notes, err := e.Extend(ctx, rec, st.opts)
	if err != nil || len(more) == 0 {
		return notes, err
	}
	round := []config.Config{st.configs[0]}
	for _, name := range more {
		c, ok := config.Find(st.configs, name)
		if !ok || c.Name == st.configs[0].Name {
			return nil, fmt.Errorf("adaptive repetition named %q, not a configuration of campaign %s", name, rec.ID)
		}
		round = append(round, c)
	}
	steps, err := Plan(round, 1, rec.Seed+int64(len(rec.Steps)))
	if err != nil {
		return nil, err
	}
	boots := map[string]int{}
	for _, s := range rec.Steps {
		boots[s.Config] = max(boots[s.Config], s.Boot)
	}
	for _, s := range steps {
		boots[s.Config]++
		rec.Steps = append(rec.Steps, store.CampaignStep{Index: len(rec.Steps), Config: s.Config, Boot: boots[s.Config], Status: StepPending})
	}
	e.say("adaptive: %d more boots (%s and %s): their interval against %s is still wider than ±%g points", len(steps), st.configs[0].Name, strings.Join(more, ", "), st.configs[0].Name, st.opts.TargetCI)
	return notes, nil
}

// verify checks this boot against the current step. A boot that does not
// verify is retried once (a new boot requested); the second one stops the
// campaign. ok is true when the step may be measured.
func (e *Engine) verify(ctx context.Context, st *state, mech Mechanism, snap *sysinfo.Snapshot) (ok bool, err error) {
	rec := st.rec
	s := &rec.Steps[rec.Next]
	cfg, found := config.Find(st.configs, s.Config)
	if !found {
		return false, fmt.Errorf("campaign %s: step %d names configuration %q, which is not in its plan", rec.ID, rec.Next+1, s.Config)
	}
	seen := []string{rec.StartBootID}
	for _, p := range rec.Steps[:rec.Next] {
		seen = append(seen, p.BootID)
	}
	seen = append(seen, s.FromBootIDs...)
	v := config.Verify(snap, cfg, st.configs, seen, e.KB)
	s.Verification = &v
	if v.OK {
		s.Status, s.BootID = StepVerified, snap.BootID
		rec.Message = fmt.Sprintf("boot %d of %s verified", s.Boot, s.Config)
		return true, e.save(ctx, st)
	}
	if s.Attempts < MaxAttempts {
		e.say("step %d (%s) did not verify: %s; rebooting once more", rec.Next+1, s.Config, strings.Join(v.Reasons, "; "))
		return false, e.boot(ctx, st, mech, snap)
	}
	s.Status = StepRefused
	verr := &VerifyError{Step: rec.Next + 1, Config: s.Config, Reasons: v.Reasons}
	return false, e.fail(ctx, st, verr.Error(), verr)
}

// measure waits for a quiet start and measures the current step. A run
// left unfinished by an earlier attempt in the same boot (Ctrl-C, a
// crash) is deleted and measured again.
func (e *Engine) measure(ctx context.Context, st *state) error {
	rec := st.rec
	s := &rec.Steps[rec.Next]
	if s.Status == StepMeasured {
		return nil
	}
	if s.Status == StepMeasuring && s.RunID != "" {
		r, err := e.DB.Get(ctx, s.RunID)
		if err == nil && r.Status == run.StatusComplete {
			s.Status = StepMeasured
			return nil
		}
		if err == nil {
			if err := e.DB.Delete(ctx, s.RunID); err != nil {
				return err
			}
		}
		s.RunID = ""
	}
	e.say("step %d of %d: boot %d of %s verified; waiting for a quiet start", rec.Next+1, len(rec.Steps), s.Boot, s.Config)
	q, err := e.Host.QuietStart(ctx)
	if err != nil {
		return err
	}
	s.Quiet, s.QuietWait = q.How, q.Waited
	s.Status = StepMeasuring
	s.RunID = e.newID()
	rec.Message = fmt.Sprintf("measuring boot %d of %s", s.Boot, s.Config)
	if err := e.save(ctx, st); err != nil {
		return err
	}
	cfg, _ := config.Find(st.configs, s.Config)
	m := Measurement{RunID: s.RunID, Label: rec.Label + "-" + s.Config, Options: st.opts,
		Config:   config.Record(cfg, *s.Verification),
		Campaign: &run.Campaign{ID: rec.ID, Step: rec.Next + 1, Boot: s.Boot}}
	e.say("step %d of %d: %s; measuring as %s", rec.Next+1, len(rec.Steps), q.How, m.Label)
	merr := e.measureRun(ctx, m)
	r, gerr := e.DB.Get(ctx, s.RunID)
	if merr == nil && gerr == nil && r.Status == run.StatusComplete {
		s.Status = StepMeasured
		return nil // saved with the next transition
	}
	if merr == nil {
		merr = fmt.Errorf("the run of step %d was not stored complete", rec.Next+1)
	}
	if ctx.Err() == nil {
		rec.Message = fmt.Sprintf("the run of step %d (%s) failed: %v; run 'sectax campaign resume' to measure this boot again, or 'sectax campaign abort'", rec.Next+1, s.Config, merr)
	} else {
		rec.Message = fmt.Sprintf("the run of step %d (%s) was interrupted; run 'sectax campaign resume' to measure this boot again, or 'sectax campaign abort'", rec.Next+1, s.Config)
	}
	if err := e.save(context.WithoutCancel(ctx), st); err != nil {
		return errors.Join(merr, err)
	}
	return merr
}

// fail stops the campaign, restores, and returns cause.
func (e *Engine) fail(ctx context.Context, st *state, msg string, cause error) error {
	ctx = context.WithoutCancel(ctx)
	st.rec.State = Failed
	st.rec.Message = msg
	if err := e.save(ctx, st); err != nil {
		return errors.Join(cause, err)
	}
	if err := e.restore(ctx, st); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

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
		st.machine = plan.Machine
		if rec.State == Running {
			rec.State = Aborted
			rec.Message = "aborted: the stored campaign was damaged"
		}
		if err := e.save(ctx, st); err != nil {
			return rec, errors.Join(lerr, err)
		}
		return rec, e.restore(ctx, st)
	}
	st.machine = plan.Machine
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
func Configs(rec *store.Campaign) ([]config.Config, error) { return decodeConfigs(rec.Configs) }
