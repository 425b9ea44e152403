package campaign

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/rootfs"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/sysinfo"
)

// PlanDir is where a host keeps the plans of its campaigns, below the
// root: one root-only file per campaign (PlanDir/ID.json, 0600, in
// folders sectax made or that only root may write). The plan is the
// campaign's only source of instructions — what is measured, how it
// reboots, what it changed and the bytes to put back; the store holds a
// copy for status and the fleet, never read back as an instruction.
//
// A user other than root running a campaign on this machine (--via wsl,
// --via manual without systemd) keeps its plans in its own
// ~/.local/state/sectax/campaigns (userPlanDir) instead, made 0700 the
// same way: start and resume must then run as the same user.
const PlanDir = "var/lib/sectax/campaigns"

// userPlanDir is PlanDir of a user other than root, below its home.
const userPlanDir = ".local/state/sectax/campaigns"

// planBase is the folder the plans are kept below and their folder in it.
func (h *Host) planBase() (base, dir string) {
	if filepath.Clean(h.root()) == "/" && os.Geteuid() != 0 {
		if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
			return home, userPlanDir
		}
	}
	return h.root(), PlanDir
}

// planSchema names the plan file's format.
const planSchema = "sectax.campaign-plan/v1"

// maxPlan bounds what is read of a plan file (a plan of MaxSteps steps
// with a .wslconfig's original is far smaller).
const maxPlan = 8 << 20

// maxPlans bounds how many plan files a host's folder is searched for.
const maxPlans = 1000

// Machine is the machine a campaign belongs to: its hostname and a key
// derived from /etc/machine-id and the hostname (the machine id itself is
// not shared: systemd asks that it not leave the machine).
type Machine struct {
	Hostname string `json:"hostname"`
	Key      string `json:"key"`
}

// Machine is the machine below the host's root.
func (h *Host) Machine() Machine {
	id, _ := h.readText("etc/machine-id")
	name := sysinfo.Hostname(h.root())
	return Machine{Hostname: name, Key: machineKey(id, name)}
}

// machineKey is a Machine's key: a hash of the machine id and the
// hostname. It is in every store copy, so it is a claim, never proof: a
// campaign is this host's when its plan is below this host's root.
func machineKey(id, name string) string {
	sum := sha256.Sum256([]byte("sectax campaign\x00" + strings.TrimSpace(id) + "\x00" + name))
	return hex.EncodeToString(sum[:16])
}

// planFile is the plan as the host keeps it.
type planFile struct {
	Schema   string          `json:"schema"`
	Machine  Machine         `json:"machine"`
	Campaign *store.Campaign `json:"campaign"`
}

// PlanPath is the plan file of campaign id (a host path).
func (h *Host) PlanPath(id string) string {
	base, dir := h.planBase()
	return filepath.Join(base, dir, id+".json")
}

// writePlan writes the plan of rec below the root, through the rooted
// file system: folders made 0700 where missing, never through a link,
// never into a folder others may write.
func (h *Host) writePlan(m Machine, rec *store.Campaign) error {
	if err := checkID(rec.ID); err != nil {
		return err
	}
	b, err := json.MarshalIndent(planFile{Schema: planSchema, Machine: m, Campaign: rec}, "", "\t")
	if err != nil {
		return err
	}
	base, dir := h.planBase()
	w, err := rootfs.OpenWrite(base)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot keep the campaign's plan in %s: %w", filepath.Join(base, dir), err)
	}
	if err := w.WriteFile(path.Join(dir, rec.ID+".json"), b, 0o600); err != nil {
		return fmt.Errorf("cannot write the campaign's plan %s: %w (run as root)", h.PlanPath(rec.ID), err)
	}
	return nil
}

// removePlan removes the plan of a campaign whose start failed before
// anything was changed.
func (h *Host) removePlan(id string) {
	if checkID(id) != nil {
		return
	}
	base, dir := h.planBase()
	if w, err := rootfs.OpenWrite(base); err == nil {
		w.Remove(path.Join(dir, id+".json"))
		w.Close()
	}
}

// planFolder opens the root and checks the folders of PlanDir: a
// missing folder is fs.ErrNotExist; a link or a folder others may write is
// refused.
func (h *Host) planFolder() (*rootfs.FS, error) {
	base, dir := h.planBase()
	w, err := rootfs.OpenWrite(base)
	if err != nil {
		return nil, err
	}
	if err := w.CheckFolders(dir); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// readPlan reads the plan of campaign id on this host, refusing one made
// on another machine.
func (h *Host) readPlan(id string) (*planFile, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	w, err := h.planFolder()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return h.readPlanIn(w, id)
}

func (h *Host) readPlanIn(w *rootfs.FS, id string) (*planFile, error) {
	_, dir := h.planBase()
	rel := path.Join(dir, id+".json")
	fi, err := w.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", h.PlanPath(id))
	}
	if !rootfs.Private(fi, 0o077) {
		return nil, fmt.Errorf("%s is not a plan sectax wrote (owned by another user, or readable by others)", h.PlanPath(id))
	}
	b, err := w.ReadFileMax(rel, maxPlan+1)
	if err != nil {
		return nil, err
	}
	if len(b) > maxPlan {
		return nil, fmt.Errorf("%s is larger than any plan sectax writes", h.PlanPath(id))
	}
	var p planFile
	if err := json.Unmarshal(b, &p); err != nil || p.Schema != planSchema || p.Campaign == nil {
		return nil, fmt.Errorf("%s is not a campaign plan sectax wrote", h.PlanPath(id))
	}
	if p.Campaign.ID != id {
		return nil, fmt.Errorf("%s holds campaign %q", h.PlanPath(id), p.Campaign.ID)
	}
	return &p, nil
}

// sameMachine is the machine a plan is followed as from now on: this one.
// The plan below this host's root is what makes a campaign this host's
// (only root, or the user who started it, may write it), not the hostname
// or the machine id it names: after a hostname change (DHCP, cloud-init)
// or a new /etc/machine-id, resume and abort still follow it, and say in
// one line (once: the plan is written again with this machine) what
// changed since it was made.
func (e *Engine) sameMachine(p *planFile) Machine {
	h := e.Host
	m := h.Machine()
	if p.Machine == m {
		return m
	}
	id, _ := h.readText("etc/machine-id")
	var what string
	switch {
	case p.Machine.Hostname != m.Hostname && machineKey(id, p.Machine.Hostname) == p.Machine.Key:
		what = fmt.Sprintf("its hostname changed (%q, now %q)", safetext.Line(p.Machine.Hostname), safetext.Line(m.Hostname))
	case p.Machine.Hostname != m.Hostname:
		what = fmt.Sprintf("its hostname (%q, now %q) and its /etc/machine-id changed", safetext.Line(p.Machine.Hostname), safetext.Line(m.Hostname))
	default:
		what = "its /etc/machine-id changed"
	}
	e.say("campaign %s: this machine's name or id changed since its plan was made (%s): the plan below this host's root is followed", p.Campaign.ID, what)
	return m
}

// plans are the ids of the campaigns this host keeps a plan of, oldest
// first (ids begin with their start time), and a note for each entry of
// the folder that is not one (a link, a folder, a FIFO named ID.json).
func (h *Host) plans() ([]string, []string, error) {
	w, err := h.planFolder()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer w.Close()
	_, dir := h.planBase()
	ents, err := w.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var ids, notes []string
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		switch {
		case !ok || checkID(id) != nil:
			// Not a plan's name (a temporary file of a write, something
			// else): not sectax's to read.
		case !e.Type().IsRegular():
			notes = append(notes, fmt.Sprintf("%s is not a regular file", h.PlanPath(id)))
		default:
			ids = append(ids, id)
		}
		if len(ids) == maxPlans {
			break
		}
	}
	slices.Sort(ids)
	return ids, notes, nil
}

// maxPlanNotes bounds the lines said about refused plan files.
const maxPlanNotes = 5

// hostPlans are the plans this host keeps that it can read, oldest first,
// and one line for each file of the plan folder that was refused (at most
// maxPlanNotes, then one line counting the rest): each is skipped, said.
func (h *Host) hostPlans() ([]*planFile, []string, error) {
	ids, refused, err := h.plans()
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read this host's campaign plans: %w", err)
	}
	var out []*planFile
	for _, id := range ids {
		p, err := h.readPlan(id)
		if err != nil {
			refused = append(refused, safetext.Line(err.Error()))
			continue
		}
		out = append(out, p)
	}
	var notes []string
	for i, n := range refused {
		if i == maxPlanNotes {
			notes = append(notes, fmt.Sprintf("%d more plan files refused", len(refused)-maxPlanNotes))
			break
		}
		notes = append(notes, "plan skipped: "+n)
	}
	return out, notes, nil
}

// onStore reports whether plan p is of a campaign on the store ref names
// (a plan whose options do not decode is every store's candidate: loading
// it says what is wrong).
func (p *planFile) onStore(ref store.Ref) bool {
	var o Options
	return json.Unmarshal([]byte(p.Campaign.Options), &o) != nil || sameStore(o.DB, ref)
}

// storeKey is what names one store, whatever the spelling of its
// reference: a SQLite file's clean absolute path, or a PostgreSQL URL's
// user, host, port and database (no password, no options).
func storeKey(ref store.Ref) string {
	if !ref.IsURL() {
		return filepath.Clean(ref.Path())
	}
	u, err := url.Parse(ref.Locate())
	if err != nil {
		return ref.String()
	}
	user := ""
	if u.User != nil {
		user = u.User.Username()
	}
	return "postgres://" + user + "@" + strings.ToLower(u.Host) + u.Path
}

// sameStore reports whether a campaign's store (from its plan, where it
// is data: one that does not parse names no store) is the store ref names
// (zero: any).
func sameStore(planned string, ref store.Ref) bool {
	if ref.IsZero() || planned == "" {
		return true
	}
	p, err := store.ParseRef(planned)
	return err == nil && storeKey(p) == storeKey(ref)
}

// runningHere is the running campaign of this host on the engine's store
// ("" none), from the host's plans only: a campaign another host runs, or
// a row someone put in the store, is never this host's. A refused plan
// file is said.
func (e *Engine) runningHere() (string, error) {
	plans, notes, err := e.Host.hostPlans()
	if err != nil {
		return "", err
	}
	for _, n := range notes {
		e.say("%s", n)
	}
	if p := runningOf(plans, e.Store); p != nil {
		return p.Campaign.ID, nil
	}
	return "", nil
}

// runningOf is the oldest running campaign of plans on the store ref
// names (nil none).
func runningOf(plans []*planFile, ref store.Ref) *planFile {
	for _, p := range plans {
		if p.Campaign.State == Running && p.onStore(ref) {
			return p
		}
	}
	return nil
}

// newestOf is the newest campaign of plans on the store ref names (nil
// none).
func newestOf(plans []*planFile, ref store.Ref) *planFile {
	for i := len(plans) - 1; i >= 0; i-- {
		if plans[i].onStore(ref) {
			return plans[i]
		}
	}
	return nil
}

// lastHere is this host's newest campaign on the engine's store (nil
// none).
func (e *Engine) lastHere() *store.Campaign {
	plans, _, _ := e.Host.hostPlans()
	if p := newestOf(plans, e.Store); p != nil {
		return p.Campaign
	}
	return nil
}

// planned is the campaign of this host ref names: "" the running one on
// the engine's store, else an id or a unique prefix of one among this
// host's plans.
func (e *Engine) planned(ref string) (string, error) {
	if ref == "" {
		id, err := e.runningHere()
		if err == nil && id == "" {
			err = fmt.Errorf("%w on this host (%s) in this store: name the campaign, 'sectax campaign abort ID'", ErrNotRunning, e.Host.Machine().Hostname)
		}
		return id, err
	}
	ids, _, err := e.Host.plans()
	if err != nil {
		return "", fmt.Errorf("cannot read this host's campaign plans: %w", err)
	}
	var match []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if strings.HasPrefix(id, ref) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return "", fmt.Errorf("%w %q has a plan on this host (%s): nothing on this host was touched; a campaign is aborted on the host that runs it", store.ErrNoCampaign, ref, e.Host.Machine().Hostname)
	}
	return "", exit.Usagef("campaign %q is ambiguous on this host: %s; give more of the id", ref, strings.Join(match[:min(len(match), 10)], ", "))
}

// reconcile compares the store's copy of the campaign with this host's
// plan and says, in one line, where they disagree: the plan is followed
// and the copy is written again with the next transition.
func (e *Engine) reconcile(ctx context.Context, rec *store.Campaign) {
	got, err := e.DB.Campaign(ctx, rec.ID)
	if err != nil {
		e.say("campaign %s: the store has no readable copy (%v); this host's plan is followed and the copy written again", rec.ID, err)
		return
	}
	if diff := disagreement(rec, got); len(diff) > 0 {
		e.say("campaign %s: the store's copy disagrees with this host's plan (%s): the plan is followed and the copy written again", rec.ID, strings.Join(diff, ", "))
	}
}

// CheckCopy says, in one line, where the store's copy rec of a campaign
// disagrees with this host's plan of it, or, when this host has no plan of
// it it can read, what is damaged in it ("" when it agrees, or is whole):
// status shows the copy, and says so.
func CheckCopy(root string, rec *store.Campaign) string {
	h := &Host{Root: root}
	if checkID(rec.ID) != nil {
		return ""
	}
	p, err := h.readPlan(rec.ID)
	if err != nil {
		// No plan here to compare with (another host's campaign): the
		// copy is still checked whole, as resume would load it.
		if _, derr := decode(rec); derr != nil {
			return fmt.Sprintf("campaign %s: the store's copy shown here is damaged (%s): shown as far as it reads", rec.ID, safetext.Clip(safetext.Line(derr.Error()), 300))
		}
		return ""
	}
	if diff := disagreement(p.Campaign, rec); len(diff) > 0 {
		return fmt.Sprintf("campaign %s: the store's copy shown here disagrees with this host's plan %s (%s); 'sectax campaign resume' or 'abort' follow the plan", rec.ID, h.PlanPath(rec.ID), strings.Join(diff, ", "))
	}
	return ""
}

// disagreement names the fields where the store's copy got differs from
// the copy of the plan rec.
func disagreement(rec, got *store.Campaign) []string {
	want := storeCopy(rec)
	var diff []string
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"label", want.Label, got.Label}, {"via", want.Via, got.Via}, {"seed", want.Seed, got.Seed},
		{"configs", want.Configs, got.Configs}, {"options", want.Options, got.Options},
		{"base_cmdline", want.BaseCmdline, got.BaseCmdline}, {"start_boot_id", want.StartBootID, got.StartBootID},
		{"state", want.State, got.State}, {"next_step", want.Next, got.Next}, {"message", want.Message, got.Message},
		{"changes", want.Changes, got.Changes}, {"restore_error", want.RestoreError, got.RestoreError},
		{"steps", stepsKey(want.Steps), stepsKey(got.Steps)},
	} {
		if f.a != f.b {
			diff = append(diff, f.name)
		}
	}
	if len(got.Damage) > 0 || got.MoreSteps > 0 {
		diff = append(diff, "steps")
	}
	return slices.Compact(diff)
}

// stepsKey is steps as one comparable string (durations to the
// millisecond the store keeps).
func stepsKey(steps []store.CampaignStep) string {
	var b strings.Builder
	for _, s := range steps {
		s.QuietWait = s.QuietWait.Truncate(time.Millisecond)
		if len(s.FromBootIDs) == 0 {
			s.FromBootIDs = nil
		}
		j, _ := json.Marshal(s)
		b.Write(j)
	}
	return b.String()
}
