package campaign

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/store/storetest"
)

// shareStore lets another user write the rig's SQLite store (a
// group-writable team folder) and returns a copy of this test binary that
// user may run.
func (r *rig) shareStore() string {
	r.t.Helper()
	if os.Geteuid() != 0 {
		r.t.Skip("needs root to act as another user")
	}
	dir := filepath.Dir(r.dbPath)
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o777)
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Chmod(r.dbPath+s, 0o666)
	}
	self, err := os.Executable()
	if err != nil {
		r.t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		r.t.Fatal(err)
	}
	exe := filepath.Join(dir, "campaign.test")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		r.t.Fatal(err)
	}
	return exe
}

// attack runs the SQL statements qs on the rig's store as another user
// (uid 65534) for SQLite; for PostgreSQL as the store's writer (a role
// that may write the shared database, whatever its Unix user).
func (r *rig) attack(qs ...string) {
	r.t.Helper()
	if r.ref.IsURL() {
		for _, q := range qs {
			r.rawSQL(q)
		}
		return
	}
	r.db.Close()
	exe := r.shareStore()
	cmd := exec.Command(exe, "-test.run", "^TestAttackerChild$")
	cmd.Env = []string{"CAMPAIGN_ATTACK_DB=" + r.dbPath, "CAMPAIGN_ATTACK_SQL=" + strings.Join(qs, "\x1e"), "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("PASS")) {
		r.t.Fatalf("the attacker: %v: %s", err, out)
	}
	r.reopen()
}

// TestAttackerChild is the other user of attack.
func TestAttackerChild(t *testing.T) {
	path := os.Getenv("CAMPAIGN_ATTACK_DB")
	if path == "" {
		t.Skip("run by rig.attack")
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range strings.Split(os.Getenv("CAMPAIGN_ATTACK_SQL"), "\x1e") {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// forgedClaim is an INSERT of a running campaign, newer than everything,
// whose options claim the machine m.
func forgedClaim(id string, m Machine) string {
	return `INSERT INTO campaigns(id, created, updated, label, via, seed, configs, options, state, changes) VALUES ('` + id + `',
		'2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z', 'x', 'kexec', 1, '[{"name":"on","params":""},{"name":"off","params":"mitigations=off"}]',
		'{"suite":"quick","machine":{"hostname":"` + m.Hostname + `","key":"` + m.Key + `"}}', 'running', '[]')`
}

// TestForgedRowNotThisHostsCampaign: another user writes into the shared
// store a running campaign, newer than the host's own, with the host's
// machine key and hostname: the host's status still shows its own
// campaign (found by the plan below its root) and says in one line that
// the store holds another claiming to be this host's; resume does not
// drive it. SQLite with the attacker as another uid, and PostgreSQL.
func TestForgedRowNotThisHostsCampaign(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			r := b.rig(t).host("host-a", "0123456789abcdef0123456789abcdef")
			c := r.start(1)
			if err := r.drive(10); err != nil {
				t.Fatal(err)
			}
			r.attack(forgedClaim("20300101T000000-f0f0f0", r.e.Host.Machine()))
			got, notes, err := Find(context.Background(), r.db, r.m.root, r.ref, "")
			if err != nil || got.ID != c.ID || got.State != Finished {
				t.Fatalf("status: %+v %v", got, err)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "20300101T000000-f0f0f0") || !strings.Contains(notes[0], "claiming to be this host's (this machine's key, this hostname)") {
				t.Fatalf("notes %q", notes)
			}
			n := len(r.measured)
			if _, err := r.e.Resume(context.Background()); err == nil || len(r.measured) != n {
				t.Fatalf("resume drove the forged campaign: %v", err)
			}
		})
	}
}

// TestSameHostnameNoMachineID: two hosts named alike without
// /etc/machine-id (two containers) share a store: each one's status shows
// its own campaign only, and names the other's as a claim it does not
// follow.
func TestSameHostnameNoMachineID(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			a := b.rig(t)
			a.m.write("proc/sys/kernel/hostname", "box")
			bb := newRigOn(t, a.dbPath)
			bb.m.write("proc/sys/kernel/hostname", "box")
			bb.ids = 50
			if a.e.Host.Machine() != bb.e.Host.Machine() {
				t.Fatal("the two hosts do not look alike")
			}
			ca := a.start(1)
			if err := a.drive(10); err != nil {
				t.Fatal(err)
			}
			cb := bb.start(1) // running, newer
			got, notes, err := Find(context.Background(), a.db, a.m.root, a.ref, "")
			if err != nil || got.ID != ca.ID {
				t.Fatalf("host a's status: %+v %v", got, err)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], cb.ID) {
				t.Fatalf("host a's notes %q", notes)
			}
			got, _, err = Find(context.Background(), bb.db, bb.m.root, bb.ref, "")
			if err != nil || got.ID != cb.ID {
				t.Fatalf("host b's status: %+v %v", got, err)
			}
		})
	}
}

// TestStatusWithoutPlan: a host with no plan shows no campaign of the
// store as its own: the error says how to name one.
func TestStatusWithoutPlan(t *testing.T) {
	r := newRig(t)
	r.start(1)
	other := newRigOn(t, r.dbPath)
	_, notes, err := Find(context.Background(), other.db, other.m.root, other.ref, "")
	if err == nil || !strings.Contains(err.Error(), "no plan of one in") || len(notes) != 1 {
		t.Fatalf("%v %q", err, notes)
	}
}

// TestResumeAfterKillForgedRun: a resume is SIGKILLed while it measures
// (a real process, killed mid-measurement with its run stored as
// running); another user then marks that run complete with samples of
// their choosing. The next resume does not count them: this host's plan
// never recorded the run as finished, so the row is deleted and the boot
// measured again under a new id.
func TestResumeAfterKillForgedRun(t *testing.T) {
	r := newRig(t)
	c := r.start(1)
	r.db.Close()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestResumeChild$")
	cmd.Env = append(os.Environ(), "CAMPAIGN_RESUME_ROOT="+r.m.root, "CAMPAIGN_RESUME_DB="+r.dbPath, "CAMPAIGN_RESUME_BASE="+r.m.base)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	cmd.Stderr = &errs
	hold, err := cmd.StdinPipe() // never written: the child waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	partial := ""
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "MEASURING "); ok {
			partial = id
			break
		}
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if partial == "" {
		t.Fatalf("the resume never measured: %s", errs.String())
	}
	r.reopen()
	if got, err := r.db.Get(context.Background(), partial); err != nil || got.Status != run.StatusRunning {
		t.Fatalf("the killed run: %+v %v", got, err)
	}
	r.attack(`UPDATE runs SET status = 'complete', finished = '2026-11-30T23:59:00Z' WHERE id = '`+partial+`'`,
		`UPDATE samples SET value = 0.000001 WHERE run_id = '`+partial+`'`)
	if got, err := r.db.Get(context.Background(), partial); err != nil || got.Status != run.StatusComplete {
		t.Fatalf("the forged run: %+v %v", got, err)
	}
	if err := r.drive(10); err != nil {
		t.Fatal(err)
	}
	got, err := r.db.Campaign(context.Background(), c.ID)
	if err != nil || got.State != Finished {
		t.Fatalf("%+v %v", got, err)
	}
	for _, s := range got.Steps {
		if s.RunID == partial {
			t.Fatalf("step %d counts the forged run %s", s.Index+1, partial)
		}
		rr, err := r.db.Get(context.Background(), s.RunID)
		if err != nil || rr.Results[0].Metrics[0].Samples[0] == 0.000001 {
			t.Fatalf("step %d: %+v %v", s.Index+1, rr, err)
		}
	}
	if _, err := r.db.Get(context.Background(), partial); err == nil {
		t.Fatal("the forged run was kept")
	}
	if !strings.Contains(strings.Join(r.said(), "\n"), "was not finished on this host, though the store's row says complete") {
		t.Fatalf("said %q", r.said())
	}
}

// TestResumeChild is the resume TestResumeAfterKillForgedRun kills: its
// measurement stores the run as running, says so and waits to be killed.
func TestResumeChild(t *testing.T) {
	root := os.Getenv("CAMPAIGN_RESUME_ROOT")
	if root == "" {
		t.Skip("run by TestResumeAfterKillForgedRun")
	}
	r := &rig{t: t, m: &machine{t: t, root: root, base: os.Getenv("CAMPAIGN_RESUME_BASE"), faults: map[int]fault{}},
		dbPath: os.Getenv("CAMPAIGN_RESUME_DB"), ref: storetest.Ref(t, os.Getenv("CAMPAIGN_RESUME_DB")), clock: time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC), ids: 100}
	r.reopen()
	r.e.Runs = Runs{measure: func(ctx context.Context, m Measurement) error {
		r.measureFail = new(run.Status)
		*r.measureFail = run.StatusRunning
		r.measure(ctx, m)
		fmt.Printf("MEASURING %s\n", m.RunID)
		os.Stdin.Read(make([]byte, 1)) // measuring until killed
		return fmt.Errorf("not killed")
	}}
	_, err := r.e.Resume(context.Background())
	t.Fatalf("the resume ended: %v", err)
}

// TestUnitLinkRecordedNeverMade: another user, who may write the folder
// the unit's link goes in, plants a file at the link's name before the
// campaign starts: the link is recorded, never made, and start fails. The
// restore says once that it was never made and leaves the file; a later
// abort has nothing left to restore (no error forever).
func TestUnitLinkRecordedNeverMade(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	os.Chmod(filepath.Dir(r.m.root), 0o755)
	for _, d := range []string{"etc", "etc/systemd", "etc/systemd/system"} {
		os.MkdirAll(filepath.Join(r.m.root, d), 0o755)
		os.Chmod(filepath.Join(r.m.root, d), 0o755)
	}
	os.Chmod(r.m.root, 0o755)
	wants := filepath.Join(r.m.root, wantsDir)
	os.Mkdir(wants, 0o777)
	os.Chmod(wants, 0o777)
	link := r.e.Host.UnitLink("20261130T230000-c0ffe1")
	cmd := exec.Command("/bin/sh", "-c", "echo mine > '"+link+"'")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the other user: %v: %s", err, out)
	}
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1,
		Seed: 7, Label: "cmp", Options: Options{Request: plan.Request{Suite: "quick"}, Exe: "/usr/local/bin/sectax", DB: r.dbPath}})
	if err == nil || !strings.Contains(err.Error(), "cannot enable the resume unit") {
		t.Fatalf("start: %v", err)
	}
	never := func() int {
		n := 0
		for _, s := range r.said() {
			if strings.Contains(s, "recorded but never made") && strings.Contains(s, link) {
				n++
			}
		}
		return n
	}
	if never() != 1 {
		t.Fatalf("said %q", r.said())
	}
	c := r.load()
	if c.RestoreError != "" {
		t.Fatalf("restore error: %s", c.RestoreError)
	}
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil || never() != 1 {
		t.Fatalf("abort again: %v; said %q", err, r.said())
	}
	if b, _ := os.ReadFile(link); string(b) != "mine\n" {
		t.Fatalf("the other user's file: %q", b)
	}
	if _, err := os.Stat(r.e.Host.UnitPath(c.ID)); err == nil {
		t.Fatal("the unit sectax made was left")
	}
}

// TestRefusedPlansSaid: files in the plan folder that are not plans sectax
// wrote (another user's, a link, a FIFO, a folder, a damaged one) are each
// said in one line, at most maxPlanNotes and then a count, never a hang
// on the FIFO; this host's real plan is still found.
func TestRefusedPlansSaid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	r := newRig(t)
	c := r.start(1)
	dir := filepath.Dir(r.e.Host.PlanPath(c.ID))
	bad := func(i int) string { return filepath.Join(dir, fmt.Sprintf("20200101T00000%d-bad.json", i)) }
	os.WriteFile(bad(0), []byte("{}"), 0o600)
	os.Chown(bad(0), 65534, 65534)
	os.Symlink(r.e.Host.PlanPath(c.ID), bad(1))
	syscall.Mkfifo(bad(2), 0o600)
	os.Mkdir(bad(3), 0o700)
	os.WriteFile(bad(4), []byte("not json"), 0o600)
	os.WriteFile(bad(5), []byte("{}"), 0o644)
	os.WriteFile(bad(6), []byte("{}"), 0o600)
	got, notes, err := Find(context.Background(), r.db, r.m.root, r.ref, "")
	if err != nil || got.ID != c.ID {
		t.Fatalf("%+v %v", got, err)
	}
	if len(notes) != maxPlanNotes+1 || notes[maxPlanNotes] != "2 more plan files refused" {
		t.Fatalf("notes %q", notes)
	}
	for _, n := range notes[:maxPlanNotes] {
		if !strings.HasPrefix(n, "plan skipped: ") || strings.Contains(n, "\n") {
			t.Fatalf("note %q", n)
		}
	}
	r.forget()
	if _, err := r.e.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(r.said(), "\n"), "plan skipped: "); n != maxPlanNotes {
		t.Fatalf("resume said %d refused plans: %q", n, r.said())
	}
}

// TestDamagedCopyShownWithNote: the store's copy of another host's
// campaign (no plan here) with damaged steps is shown with one line
// saying it is damaged.
func TestDamagedCopyShownWithNote(t *testing.T) {
	r := newRig(t)
	c := r.start(1)
	r.rawSQL(`UPDATE campaign_steps SET from_boot_ids = '{nope'`)
	rec, err := r.db.Campaign(context.Background(), c.ID)
	if err != nil || len(rec.Damage) == 0 {
		t.Fatalf("%+v %v", rec, err)
	}
	other := newRigOn(t, r.dbPath)
	if n := CheckCopy(other.m.root, rec); !strings.Contains(n, "the store's copy shown here is damaged") || strings.Contains(n, "\n") {
		t.Fatalf("note %q", n)
	}
	if n := CheckCopy(r.m.root, rec); !strings.Contains(n, "disagrees with this host's plan") {
		t.Fatalf("note on the host %q", n)
	}
}
