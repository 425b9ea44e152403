package campaign

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/measure"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
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
	StepMeasured  = "measured"  // the step's run is complete, recorded in this host's plan once measured here
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
	// Store is the store DB is (zero: any): resume and abort act only on
	// this host's campaigns whose plan names that store.
	Store store.Ref
	// Mech reboots; Mechanisms picks one by name and options for a
	// stored campaign (Mech is used when it is nil).
	Mech       Mechanism
	Mechanisms func(name string, o Options) (Mechanism, error)
	// Runs is how a step's run is measured (a measure.Session, here).
	Runs Runs
	KB   *mitigation.Knowledge
	// Now stamps the campaign; NewID names it and its runs (tests fix
	// both).
	Now   func() time.Time
	NewID func() string
	// Out is where notes, progress and each measured run go (nil:
	// nowhere): the one way output leaves the engine.
	Out measure.Printer
	// WriteFile replaces an edited file when restoring it (nil: a plain
	// write; the CLI passes wslconfig's atomic writer with its backup).
	WriteFile func(path string, old, data []byte) error
	// Extend is adaptive repetition (campaigns with Options.TargetCI):
	// asked when every step is measured, it names the configurations to
	// boot again (the first configuration is added to every round), how
	// many times and with how many repetitions each, and says, one line
	// each, what stopped the others. Nil: no rounds.
	Extend func(ctx context.Context, rec *store.Campaign, opts Options) (Extension, error)
}

// Extension is one decision of adaptive repetition for a campaign.
type Extension struct {
	// More are the configurations to boot again besides the first; Notes
	// say what stopped the others.
	More, Notes []string
	// Boots is the boots of each configuration in the round (0: 1);
	// Runs the repetitions per boot of the round's runs (0: as before);
	// Sizing the line that says why (adaptive.Allocation).
	Boots, Runs int
	Sizing      string
}

// StartRequest is a new campaign.
type StartRequest struct {
	Configs []bootconfig.Config
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

// LabInstead is what measures both settings on a guest whose command line
// its host sets, when no reboot from inside can.
const LabInstead = "measure both settings in QEMU guests instead: sectax lab --config on --config off=mitigations=off"

// VerifyError says that a step's boot did not verify twice; the campaign
// stopped and was restored. Reasons are bootconfig.Verify's, one line each.
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

func (e *Engine) say(format string, a ...any) { e.out().Notef(format, a...) }

// out is e.Out, or a printer that says nothing.
func (e *Engine) out() measure.Printer {
	if e.Out == nil {
		return measure.Discard{}
	}
	return e.Out
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

// Start plans and stores a campaign, installs what resumes it after a
// boot, and requests the first boot. It returns the stored campaign.
func (e *Engine) Start(ctx context.Context, req StartRequest) (*store.Campaign, error) {
	if req.Boots == 0 {
		req.Boots = DefaultBoots
	}
	steps, err := Schedule(req.Configs, req.Boots, req.Seed)
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
	// The estimate comes first; work over an hour is confirmed before
	// anything is checked, stored or changed.
	if d := req.Estimate.Duration; d > measure.LongWork {
		if err := e.out().Confirm(fmt.Sprintf("this campaign of %d boots is %s", len(steps), req.Estimate)); err != nil {
			return nil, err
		}
	} else if d > 0 {
		e.say("campaign: %d boots, %s", len(steps), req.Estimate)
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
		Cmdline: first.Cmdline(snap.Cmdline.Raw, req.Configs), Options: req.Options, Out: e.out()}); err != nil {
		return nil, err
	}
	req.Options.Resume = e.resumeHow(mech)
	// The password of a PostgreSQL store goes to a root-only password
	// file, never into the options (a shared column), the unit (world
	// readable) or a message: they name the URL without it.
	var passLine string
	var secret bool
	if req.Options.DB != "" {
		dbRef, err := store.ParseRef(req.Options.DB)
		if err != nil {
			return nil, err
		}
		if req.Options.DB, passLine, secret, err = dbRef.Secret(e.Host.PassfilePath(id)); err != nil {
			return nil, err
		}
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
// a PostgreSQL URL without its password (store.Ref.String; libpq finds it
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
	cfg, _ := bootconfig.Find(st.configs, s.Config)
	s.Status = StepBooting
	s.Attempts++
	s.FromBootIDs = append(s.FromBootIDs, snap.BootID)
	rec.Message = fmt.Sprintf("waiting for boot %d of %s", s.Boot, s.Config)
	if err := e.save(ctx, st); err != nil {
		return err
	}
	req := BootRequest{CampaignID: rec.ID, Step: rec.Next + 1, Steps: len(rec.Steps), Config: cfg, Plan: st.configs,
		Cmdline: cfg.Cmdline(rec.BaseCmdline, st.configs), Changes: st.changes, Options: st.opts, Out: e.out()}
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
	st.machine = e.sameMachine(plan)
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
	ext, err := e.Extend(ctx, rec, st.opts)
	more, notes := ext.More, ext.Notes
	if err != nil || len(more) == 0 {
		return notes, err
	}
	round := []bootconfig.Config{st.configs[0]}
	for _, name := range more {
		c, ok := bootconfig.Find(st.configs, name)
		if !ok || c.Name == st.configs[0].Name {
			return nil, fmt.Errorf("adaptive repetition named %q, not a configuration of campaign %s", name, rec.ID)
		}
		round = append(round, c)
	}
	steps, err := Schedule(round, max(ext.Boots, 1), rec.Seed+int64(len(rec.Steps)))
	if err != nil {
		return nil, err
	}
	if ext.Runs > 0 && ext.Runs != st.opts.Repetitions {
		// The round's runs are measured from the campaign's options:
		// the count is stored with them before the round starts.
		st.opts.Repetitions = ext.Runs
		b, err := json.Marshal(st.opts)
		if err != nil {
			return nil, err
		}
		rec.Options = string(b)
	}
	if ext.Sizing != "" {
		e.say("%s", ext.Sizing)
	}
	boots := map[string]int{}
	for _, s := range rec.Steps {
		boots[s.Config] = max(boots[s.Config], s.Boot)
	}
	for _, s := range steps {
		boots[s.Config]++
		rec.Steps = append(rec.Steps, store.CampaignStep{Index: len(rec.Steps), Config: s.Config, Boot: boots[s.Config], Status: StepPending})
	}
	e.say("adaptive: %d more boots (%s and %s, %d each): their interval against %s is still wider than ±%g points", len(steps), st.configs[0].Name, strings.Join(more, ", "), max(ext.Boots, 1), st.configs[0].Name, st.opts.TargetCI)
	return notes, nil
}

// verify checks this boot against the current step. A boot that does not
// verify is retried once (a new boot requested); the second one stops the
// campaign. ok is true when the step may be measured.
func (e *Engine) verify(ctx context.Context, st *state, mech Mechanism, snap *sysinfo.Snapshot) (ok bool, err error) {
	rec := st.rec
	s := &rec.Steps[rec.Next]
	cfg, found := bootconfig.Find(st.configs, s.Config)
	if !found {
		return false, fmt.Errorf("campaign %s: step %d names configuration %q, which is not in its plan", rec.ID, rec.Next+1, s.Config)
	}
	seen := []string{rec.StartBootID}
	for _, p := range rec.Steps[:rec.Next] {
		seen = append(seen, p.BootID)
	}
	seen = append(seen, s.FromBootIDs...)
	v := bootconfig.Verify(snap, cfg, st.configs, seen, e.KB)
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
		// This host's plan records a step's run as finished (measured,
		// with its id) once it was measured here; a run it does not
		// record so was left unfinished on this host (Ctrl-C, a crash,
		// SIGKILL), whatever the store's row says now (anyone who can
		// write the store can mark it complete with samples of their
		// choosing): the row is deleted and the boot measured again
		// under a new id.
		r, err := e.DB.Get(ctx, s.RunID)
		if err == nil {
			if r.Status == run.StatusComplete {
				e.say("campaign %s: the run %s of step %d was not finished on this host, though the store's row says complete: it is deleted and this boot measured again", rec.ID, s.RunID, rec.Next+1)
			}
			if err := e.DB.Delete(ctx, s.RunID); err != nil {
				return err
			}
		}
		s.RunID = ""
	}
	e.say("%s: boot %d of %s verified; waiting for a quiet start", stepOf(rec.Next+1, len(rec.Steps), st.opts.TargetCI > 0), s.Boot, s.Config)
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
	cfg, _ := bootconfig.Find(st.configs, s.Config)
	m := Measurement{RunID: s.RunID, Label: rec.Label + "-" + s.Config, Options: st.opts,
		Config:   bootconfig.Record(cfg, *s.Verification),
		Campaign: &run.Campaign{ID: rec.ID, Step: rec.Next + 1, Boot: s.Boot}}
	e.say("%s: %s; measuring as %s", stepOf(rec.Next+1, len(rec.Steps), st.opts.TargetCI > 0), q.How, m.Label)
	merr := e.measureRun(ctx, m)
	r, gerr := e.DB.Get(ctx, s.RunID)
	if merr == nil && gerr == nil && r.Status == run.StatusComplete {
		// Recorded in the plan at once: the run is finished on this
		// host (a crash before the next transition does not measure it
		// again).
		s.Status = StepMeasured
		return e.save(context.WithoutCancel(ctx), st)
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
