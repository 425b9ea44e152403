package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

func TestPlan(t *testing.T) {
	configs := []bootconfig.Config{bootconfig.On, bootconfig.Off}
	a, err := Schedule(configs, 3, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Schedule(configs, 3, 42)
	if !slices.Equal(a, b) {
		t.Fatalf("same seed, different order: %v vs %v", a, b)
	}
	n := map[string][]int{}
	for _, s := range a {
		n[s.Config] = append(n[s.Config], s.Boot)
	}
	if !slices.Equal(n["on"], []int{1, 2, 3}) || !slices.Equal(n["off"], []int{1, 2, 3}) {
		t.Fatalf("boots per configuration: %v", n)
	}
	differ := false
	for seed := int64(1); seed < 20 && !differ; seed++ {
		c, _ := Schedule(configs, 3, seed)
		differ = !slices.Equal(a, c)
	}
	if !differ {
		t.Fatal("the order does not depend on the seed")
	}
	if _, err := Schedule(configs[:1], 2, 1); !errors.Is(err, ErrPlan) {
		t.Fatalf("one configuration: %v", err)
	}
	if _, err := Schedule(configs, 0, 1); !errors.Is(err, ErrPlan) {
		t.Fatalf("0 boots: %v", err)
	}
}

// drive resumes until the campaign leaves running or n resumes were made.
func (r *rig) drive(n int) error {
	for i := 0; i < n; i++ {
		c, err := r.e.Resume(context.Background())
		if err != nil || c.State != Running {
			return err
		}
	}
	return nil
}

func TestCampaignOnOff(t *testing.T) {
	r := newRig(t)
	c := r.start(2)
	if len(c.Steps) != 4 || c.Label != "cmp" || c.StartBootID != "boot-0" {
		t.Fatalf("plan: %+v", c)
	}
	if err := r.drive(10); err != nil {
		t.Fatal(err)
	}
	c = r.load()
	if c.State != Finished || c.Next != 4 || c.Changes != "[]" || c.RestoreError != "" {
		t.Fatalf("campaign: state %s next %d changes %s restore %q (%s)", c.State, c.Next, c.Changes, c.RestoreError, c.Message)
	}
	if len(r.m.calls) != 4 {
		t.Fatalf("boots requested: %q", r.m.calls)
	}
	seen := map[string]bool{}
	for i, s := range c.Steps {
		if s.Status != StepMeasured || s.Attempts != 1 || s.RunID == "" || s.Verification == nil || !s.Verification.OK {
			t.Fatalf("step %d: %+v", i, s)
		}
		if seen[s.BootID] || s.BootID == "boot-0" {
			t.Fatalf("step %d measured boot %s twice", i, s.BootID)
		}
		seen[s.BootID] = true
		if !strings.Contains(s.Quiet, "load average 0.10 below 0.50") {
			t.Fatalf("step %d quiet start: %q", i, s.Quiet)
		}
		// The boot requested carried exactly the configuration's tokens.
		off := strings.Contains(r.m.calls[i], "mitigations=off")
		if off != (s.Config == "off") || !strings.Contains(r.m.calls[i], "config="+s.Config) {
			t.Fatalf("step %d (%s) requested %s", i, s.Config, r.m.calls[i])
		}
		got, err := r.db.Get(context.Background(), s.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Label != "cmp-"+s.Config || got.Config == nil || got.Config.Name != s.Config || !got.Config.Verification.OK ||
			got.Campaign == nil || *got.Campaign != (run.Campaign{ID: c.ID, Step: i + 1, Boot: s.Boot}) {
			t.Fatalf("step %d run: label %s config %+v campaign %+v", i, got.Label, got.Config, got.Campaign)
		}
		if s.Config == "off" {
			v := got.Config.Verification
			if !strings.Contains(v.Cmdline, "mitigations=off") || !slices.Contains(v.ExpectedOff, "spectre_v2") {
				t.Fatalf("off run's verification: %+v", v)
			}
		}
	}
	// "resume" on a finished campaign says so.
	if _, err := r.e.Resume(context.Background()); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("resume after the end: %v", err)
	}
}

func TestCampaignSystemdUnit(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	c := r.start(1)
	unit := r.e.Host.UnitPath(c.ID)
	link := r.e.Host.UnitLink(c.ID)
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	want := `ExecStart="/usr/local/bin/sectax" --db "` + r.dbPath + `" campaign resume`
	if !strings.Contains(string(b), want) || !strings.Contains(string(b), "Type=exec") {
		t.Fatalf("unit:\n%s\nwant %s", b, want)
	}
	if dest, err := os.Readlink(link); err != nil || dest != "../"+UnitName(c.ID) {
		t.Fatalf("unit not enabled: %q %v", dest, err)
	}
	if err := r.drive(5); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.m.calls, "systemctl is-system-running --wait") {
		t.Fatalf("quiet start did not ask systemd: %q", r.m.calls)
	}
	c = r.load()
	if c.State != Finished || !strings.Contains(c.Steps[0].Quiet, "systemd reported startup finished") {
		t.Fatalf("campaign %s, quiet %q", c.State, c.Steps[0].Quiet)
	}
	for _, p := range []string{unit, link} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s left after the campaign: %v", p, err)
		}
	}
}

// failing runs a campaign whose off boots go wrong as f says, and checks
// that the campaign stops, restores, never measures that step, and says why.
func failing(t *testing.T, f fault, reason string) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	offStep := slices.IndexFunc(r.order(1), func(s Step) bool { return s.Config == "off" })
	// Boot requests are numbered; the off step's two attempts follow the
	// steps before it.
	r.m.faults[offStep+1] = f
	r.m.faults[offStep+2] = f
	r.start(1)
	err := r.drive(10)
	var verr *VerifyError
	if !errors.As(err, &verr) || verr.Config != "off" || !strings.Contains(err.Error(), reason) {
		t.Fatalf("error %v; want a VerifyError of off saying %q", err, reason)
	}
	if k := exit.Of(err); k != exit.Unmet {
		t.Fatalf("kind %v, want unmet", k)
	}
	c := r.load()
	s := c.Steps[offStep]
	if c.State != Failed || s.Status != StepRefused || s.Attempts != 2 || s.RunID != "" || c.Changes != "[]" {
		t.Fatalf("campaign %s step %+v changes %s", c.State, s, c.Changes)
	}
	if !strings.Contains(c.Message, reason) || s.Verification.OK || !slices.ContainsFunc(s.Verification.Reasons, func(x string) bool { return strings.Contains(x, reason) }) {
		t.Fatalf("message %q, verification %+v", c.Message, s.Verification)
	}
	for _, m := range r.measured {
		if m.Config.Name == "off" {
			t.Fatalf("an unverified boot was measured: %+v", m)
		}
	}
	if _, err := os.Lstat(r.e.Host.UnitPath(c.ID)); !os.IsNotExist(err) {
		t.Fatalf("unit left after the failure: %v", err)
	}
	if !slices.ContainsFunc(r.said(), func(x string) bool { return strings.Contains(x, "rebooting once more") }) {
		t.Fatalf("the retry was not announced: %q", r.said())
	}
}

func TestFailWrongCmdline(t *testing.T) {
	failing(t, defaultBoot, "mitigations=off is not on the command line")
}

func TestFailSameBootID(t *testing.T) {
	failing(t, noReboot, "was already measured: the machine did not boot again")
}

func TestFailVulnerabilitiesInconsistent(t *testing.T) {
	failing(t, inconsistent, "still says \"Mitigation:")
}

func TestRetryThenVerify(t *testing.T) {
	r := newRig(t)
	r.m.faults[1] = defaultBoot
	if r.order(1)[0].Config == "on" {
		// A default boot verifies as on; make the first boot not boot.
		r.m.faults[1] = noReboot
	}
	r.start(1)
	if err := r.drive(10); err != nil {
		t.Fatal(err)
	}
	c := r.load()
	if c.State != Finished || c.Steps[0].Attempts != 2 || len(c.Steps[0].FromBootIDs) != 2 || c.Steps[1].Attempts != 1 {
		t.Fatalf("campaign %s steps %+v", c.State, c.Steps)
	}
}

func TestRebootRequestFails(t *testing.T) {
	r := newRig(t)
	r.m.faults[1] = failRequest
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1, Seed: 7, Label: "cmp"})
	if err == nil || !strings.Contains(err.Error(), "refuses to reboot") {
		t.Fatalf("start: %v", err)
	}
	c := r.load()
	if c.State != Running || c.Steps[0].Status != StepPending || c.Steps[0].Attempts != 0 || !strings.Contains(c.Message, "could not be requested") {
		t.Fatalf("after a failed request: %s %+v %q", c.State, c.Steps[0], c.Message)
	}
	// resume in the same boot requests it again, and the campaign goes on.
	if err := r.drive(10); err != nil {
		t.Fatal(err)
	}
	if c := r.load(); c.State != Finished {
		t.Fatalf("state %s: %s", c.State, c.Message)
	}
}

// TestCrashAnywhere drops the engine and its database handle before every
// resume, and crashes the measurement twice (before the run ended, and after
// it was stored but before the step moved on).
func TestCrashAnywhere(t *testing.T) {
	r := newRig(t)
	r.start(2)
	r.reopen()
	running, complete := run.StatusRunning, run.StatusComplete
	r.measureFail = &running
	if _, err := r.e.Resume(context.Background()); err == nil || !strings.Contains(err.Error(), "crashed while measuring") {
		t.Fatalf("crash while measuring: %v", err)
	}
	c := r.load()
	partial := c.Steps[0].RunID
	if c.Steps[0].Status != StepMeasuring || partial == "" || !strings.Contains(c.Message, "resume") {
		t.Fatalf("after the crash: %+v %q", c.Steps[0], c.Message)
	}
	r.reopen()
	r.measureFail = &complete
	if _, err := r.e.Resume(context.Background()); err == nil {
		t.Fatal("crash after storing: no error")
	}
	if _, err := r.db.Get(context.Background(), partial); err == nil {
		t.Fatalf("the partial run %s was kept", partial)
	}
	stored := r.load().Steps[0].RunID
	r.reopen()
	for i := 0; i < 10 && r.load().State == Running; i++ {
		if _, err := r.e.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.reopen()
	}
	// The run stored complete by the crashed resume was never recorded
	// as finished in this host's plan: it is measured again (a new run),
	// and the old row is gone.
	c = r.load()
	if c.State != Finished || c.Steps[0].RunID == stored {
		t.Fatalf("state %s, step 1 run %s (stored %s)", c.State, c.Steps[0].RunID, stored)
	}
	if _, err := r.db.Get(context.Background(), stored); err == nil {
		t.Fatalf("the run %s, not finished on this host, was kept", stored)
	}
	if len(r.m.calls) != 4 {
		t.Fatalf("a crash cost a boot: %q", r.m.calls)
	}
	// A power cycle after verification: the step verifies the new boot.
}

func TestRebootAfterVerification(t *testing.T) {
	r := newRig(t)
	r.start(1)
	// The quiet start is interrupted (Ctrl-C while waiting): the step
	// stays verified.
	r.m.write("proc/loadavg", "9.00 9.00 9.00 1/100 4242")
	r.e.Host.Settle = &Settler{Sleep: func(context.Context, time.Duration) error { return context.Canceled }}
	if _, err := r.e.Resume(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted quiet start: %v", err)
	}
	r.e.Host.Settle = nil
	c := r.load()
	if c.Steps[0].Status != StepVerified {
		t.Fatalf("step after interruption: %+v", c.Steps[0])
	}
	// The machine power-cycles into the default boot.
	r.m.bootInto(r.m.base, false)
	r.m.write("proc/loadavg", "0.10 0.20 0.30 1/100 4242")
	err := r.drive(10)
	c = r.load()
	if c.Steps[0].Config == "on" {
		// The default boot is a new boot of on: it verifies.
		if err != nil || c.State != Finished {
			t.Fatalf("%v: %s", err, c.State)
		}
		return
	}
	// off: the default boot does not verify, a retry is requested.
	if err != nil || c.Steps[0].Attempts != 2 {
		t.Fatalf("%v: %+v", err, c.Steps[0])
	}
}

func TestAbortMidway(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	r.start(2)
	if err := r.drive(2); err != nil {
		t.Fatal(err)
	}
	r.reopen()
	if _, err := r.e.Abort(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	c := r.load()
	if c.State != Aborted || c.Changes != "[]" || !strings.Contains(c.Message, "aborted at step 3 of 4") {
		t.Fatalf("after abort: %s %s %q", c.State, c.Changes, c.Message)
	}
	if _, err := os.Lstat(r.e.Host.UnitPath(c.ID)); !os.IsNotExist(err) {
		t.Fatalf("unit left: %v", err)
	}
	if _, err := r.e.Resume(context.Background()); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("resume after abort: %v", err)
	}
}

func TestRestoreFails(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	c0 := r.start(1)
	// Something else now sits where the unit was: a folder with a file,
	// which restore must not delete.
	unit := r.e.Host.UnitPath(c0.ID)
	os.Remove(unit)
	r.m.write(filepath.Join("etc/systemd/system", UnitName(c0.ID), "keep"), "x")
	_, err := r.e.Abort(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), "restore incomplete") || !strings.Contains(err.Error(), unit) {
		t.Fatalf("abort: %v", err)
	}
	c := r.load()
	left, _ := Changes(c)
	if c.State != Aborted || len(left) != 1 || left[0].Path != unit || !strings.Contains(c.RestoreError, unit) {
		t.Fatalf("left %+v, restore error %q", left, c.RestoreError)
	}
	// The link was removed all the same.
	if _, err := os.Lstat(r.e.Host.UnitLink(c.ID)); !os.IsNotExist(err) {
		t.Fatalf("link: %v", err)
	}
	// Fixed by hand, abort again finishes the restore.
	os.RemoveAll(unit)
	if _, err := r.e.Abort(context.Background(), c.ID[:10]); err != nil {
		t.Fatal(err)
	}
	if c := r.load(); c.Changes != "[]" || c.RestoreError != "" {
		t.Fatalf("after the second abort: %s %q", c.Changes, c.RestoreError)
	}
}

func TestSecondCampaignRefused(t *testing.T) {
	r := newRig(t)
	r.start(1)
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1, Label: "x"})
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("second start: %v", err)
	}
}
