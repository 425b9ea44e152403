package campaign

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/url"
	"slices"

	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/pgtest"
)

// tamper rewrites the stored campaign's list of changes, as anyone who can
// write the store (a fleet host, the owner of the SQLite folder) could.
func (r *rig) tamper(edit func(c []map[string]any) []map[string]any) {
	r.t.Helper()
	rec := r.load()
	var cs []map[string]any
	if err := json.Unmarshal([]byte(rec.Changes), &cs); err != nil {
		r.t.Fatal(err)
	}
	b, _ := json.Marshal(edit(cs))
	rec.Changes = string(b)
	if err := r.db.SaveCampaign(context.Background(), rec); err != nil {
		r.t.Fatal(err)
	}
}

// tamperPlan edits this host's plan of campaign id (the campaign object
// of the file) as only root could: the checks on load still hold.
func (r *rig) tamperPlan(id string, edit func(c map[string]any)) {
	r.t.Helper()
	p := r.e.Host.PlanPath(id)
	b, err := os.ReadFile(p)
	if err != nil {
		r.t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		r.t.Fatal(err)
	}
	edit(f["campaign"].(map[string]any))
	b, _ = json.Marshal(f)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// TestAbortActsOnlyOnWhatSectaxMade: a store row edited to list other
// paths is not obeyed (abort acts on this host's plan only, and says the
// copy disagrees); a plan edited the same way (only root can) still makes
// abort neither delete nor overwrite them: they are refused, reported, and
// what sectax did make (the unit and its link) is still removed.
func TestAbortActsOnlyOnWhatSectaxMade(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	c := r.start(1)
	victim := filepath.Join(r.m.root, "etc/shadow")
	r.m.write("etc/shadow", "root:secret")
	other := filepath.Join(r.m.root, "etc/passwd")
	r.m.write("etc/passwd", "root:x:0:0")
	bad := []any{
		map[string]any{"kind": "created", "path": victim, "what": "systemd unit"},
		map[string]any{"kind": "file", "path": other, "what": ".wslconfig", "existed": true, "original": []byte("pwned\n")},
		map[string]any{"kind": "kexec", "path": "/boot/vmlinuz", "what": "kexec image loaded from"},
	}
	unloads := 0
	unloadKexec = func() error { unloads++; return nil }
	t.Cleanup(func() { unloadKexec = unloadKexecImage })
	r.tamper(func(cs []map[string]any) []map[string]any {
		for _, b := range bad {
			cs = append(cs, b.(map[string]any))
		}
		return cs
	})
	r.tamperPlan(c.ID, func(rec map[string]any) {
		var cs []any
		json.Unmarshal([]byte(rec["Changes"].(string)), &cs)
		b, _ := json.Marshal(append(cs, bad...))
		rec["Changes"] = string(b)
	})
	_, err := r.e.Abort(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), victim) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "refused") ||
		!strings.Contains(err.Error(), "does not reboot with kexec") {
		t.Fatalf("abort: %v; want the three recorded changes refused", err)
	}
	if unloads != 0 {
		t.Fatalf("abort of a campaign that does not kexec unloaded the kexec image %d times", unloads)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "root:secret\n" {
		t.Fatalf("%s after abort: %q %v", victim, b, err)
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "root:x:0:0\n" {
		t.Fatalf("%s after abort: %q %v", other, b, err)
	}
	for _, p := range []string{r.e.Host.UnitPath(c.ID), r.e.Host.UnitLink(c.ID)} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("%s left after abort: %v", p, err)
		}
	}
	if !slices.ContainsFunc(r.said(), func(s string) bool { return strings.Contains(s, "disagrees") && strings.Contains(s, "changes") }) {
		t.Fatalf("the store's changed copy was not reported: %q", r.said())
	}
	// The refused entries are not kept to be tried again.
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
		t.Fatalf("second abort: %v", err)
	}
}

// TestStoredWSLConfigNotObeyed: a store row that names a link to a victim
// as the campaign's .wslconfig, with a change whose hash matches the
// victim, makes abort neither delete nor rewrite the victim, nor write a
// backup beside it: the plan on this host is what abort acts on.
func TestStoredWSLConfigNotObeyed(t *testing.T) {
	r := newRig(t)
	c := r.start(1)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("[wsl2]\nmemory=1GB\n"), 0o644)
	link := filepath.Join(dir, ".wslconfig")
	os.Symlink(victim, link)
	h := sha256.Sum256([]byte("[wsl2]\nmemory=1GB\n"))
	r.rawSQL(`UPDATE campaigns SET via='wsl', options='{"suite":"quick","warmup":1,"wslconfig":"` + link + `"}', changes='[{"kind":"file","path":"` + victim +
		`","what":".wslconfig","existed":true,"original":"W3dzbDJdCg==","sha256":"` + hex.EncodeToString(h[:]) + `"},{"kind":"file","path":"` + victim +
		`","what":".wslconfig","sha256":"` + hex.EncodeToString(h[:]) + `"}]'`)
	r.reopen()
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
		t.Fatalf("abort: %v", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "[wsl2]\nmemory=1GB\n" {
		t.Fatalf("victim after abort: %q %v", b, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("abort wrote beside the victim: %v", ents)
	}
}

// TestAbortLeavesAReplacedUnit: a unit path that now holds another file
// (not the bytes sectax wrote) is left alone and reported.
func TestAbortLeavesAReplacedUnit(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	c := r.start(1)
	unit := r.e.Host.UnitPath(c.ID)
	if err := os.WriteFile(unit, []byte("[Service]\nExecStart=/bin/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.e.Abort(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), unit) || !strings.Contains(err.Error(), "not the file sectax wrote") {
		t.Fatalf("abort: %v", err)
	}
	if b, _ := os.ReadFile(unit); !strings.Contains(string(b), "/bin/other") {
		t.Fatalf("unit was touched: %q", b)
	}
}

// TestUnitPerCampaign: two campaigns in two stores on one host each get
// their own unit; aborting one leaves the other's.
func TestUnitPerCampaign(t *testing.T) {
	r1 := newRig(t)
	r1.m.write("proc/1/comm", "systemd")
	c1 := r1.start(1)
	r2 := newRig(t)
	r2.m = r1.m
	r2.e.Mech, r2.e.Host.Root = r1.m, r1.m.root
	r2.ids = 5
	c2 := r2.start(1)
	if r1.e.Host.UnitPath(c1.ID) == r2.e.Host.UnitPath(c2.ID) {
		t.Fatalf("one unit for two campaigns: %s", r1.e.Host.UnitPath(c1.ID))
	}
	if _, err := r1.e.Abort(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r2.e.Host.UnitPath(c2.ID))
	if err != nil || !strings.Contains(string(b), r2.dbPath) {
		t.Fatalf("the other campaign's unit: %q %v", b, err)
	}
	if _, err := os.Lstat(r2.e.Host.UnitLink(c2.ID)); err != nil {
		t.Fatal(err)
	}
}

// pg is the throw-away PostgreSQL cluster of this test binary.
var pg pgtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	pg.Stop()
	os.Exit(code)
}

// backends are the two stores the tampering tests run against.
var backends = []struct {
	name string
	rig  func(t *testing.T) *rig
}{
	{"sqlite", newRig},
	{"postgres", func(t *testing.T) *rig { return newRigOn(t, pg.Get(t).NewDatabase(t)) }},
}

// rawSQL runs q on the rig's store behind sectax's back.
func (r *rig) rawSQL(q string) {
	r.t.Helper()
	driver, dsn := "sqlite", "file:"+r.dbPath
	if r.ref.IsURL() {
		driver, dsn = "pgx", r.dbPath
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		r.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		r.t.Fatalf("%s: %v", q, err)
	}
}

// TestTamperedCampaign: a campaign row or its steps edited into nonsense
// in the store are not obeyed: resume follows this host's plan, says in
// one line that the store's copy disagrees, and writes the copy again; no
// panic, and abort still removes the unit sectax made.
func TestTamperedCampaign(t *testing.T) {
	cases := []struct {
		name, sql string
	}{
		{"next beyond the plan", `UPDATE campaigns SET next_step = 99`},
		{"negative next", `UPDATE campaigns SET next_step = -1`},
		{"steps deleted", `DELETE FROM campaign_steps`},
		{"no configurations", `UPDATE campaigns SET configs = '[]'`},
		{"corrupt verification", `UPDATE campaign_steps SET verification = '{"ok":tru', status = 'verified'`},
		{"corrupt options", `UPDATE campaigns SET options = '{"runs":'`},
		{"step index gap", `UPDATE campaign_steps SET idx = idx + 5`},
		{"unknown step configuration", `UPDATE campaign_steps SET config = 'nope'`},
		{"huge warmup", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1000000000}'`},
		{"flag-like distro", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"distro":"-x"}'`},
		{"relative exe", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"exe":"sh"}'`},
		{"flag-like param", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"params":["-x"]}'`},
		{"a command", `UPDATE campaigns SET options = '{"suite":"quick","only":["cmd"],"params":["cmd.cmd=touch /owned"]}'`},
		{"password in options", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"db":"postgres://u:pw@h/d"}'`},
		{"row deleted", `DELETE FROM campaigns`},
	}
	for _, b := range backends {
		for _, tc := range cases {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				r := b.rig(t)
				r.m.write("proc/1/comm", "systemd")
				c := r.start(1)
				r.rawSQL(tc.sql)
				r.reopen()
				if _, err := r.e.Resume(context.Background()); err != nil {
					t.Fatalf("resume: %v", err)
				}
				if !slices.ContainsFunc(r.said(), func(s string) bool {
					return strings.Contains(s, c.ID) && (strings.Contains(s, "disagrees") || strings.Contains(s, "no readable copy")) && !strings.Contains(s, "\n")
				}) {
					t.Fatalf("the disagreement was not said: %q", r.said())
				}
				if len(r.measured) != 1 || r.measured[0].Options.Suite != "quick" || len(r.measured[0].Options.Only) != 0 {
					t.Fatalf("measured %+v, not the plan's options", r.measured)
				}
				// The copy is the plan's again.
				n := len(r.said())
				r.e.reconcile(context.Background(), r.plan(c.ID))
				if len(r.said()) != n {
					t.Fatalf("the copy still disagrees after resume: %q", r.said()[n:])
				}
				if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
					t.Fatalf("abort: %v", err)
				}
				if _, err := os.Lstat(r.e.Host.UnitPath(c.ID)); !os.IsNotExist(err) {
					t.Fatalf("unit left after abort: %v", err)
				}
				if got, err := r.db.Campaign(context.Background(), c.ID); err != nil || got.State != Aborted {
					t.Fatalf("after abort: %+v %v", got, err)
				}
			})
		}
	}
}

// plan is this host's plan of campaign id.
func (r *rig) plan(id string) *store.Campaign {
	r.t.Helper()
	p, err := r.e.Host.readPlan(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return p.Campaign
}

// TestDamagedPlan: a plan edited into nonsense (only root can) makes
// resume fail with one line naming the campaign and what is wrong, never
// panic, and abort still removes the unit sectax made.
func TestDamagedPlan(t *testing.T) {
	cases := []struct {
		name string
		edit func(c map[string]any)
		want string
	}{
		{"next beyond the plan", func(c map[string]any) { c["Next"] = 99 }, "step 100"},
		{"negative next", func(c map[string]any) { c["Next"] = -1 }, "step 0"},
		{"steps deleted", func(c map[string]any) { c["Steps"] = nil }, "no steps"},
		{"no configurations", func(c map[string]any) { c["Configs"] = "[]" }, "configurations"},
		{"huge warmup", func(c map[string]any) { c["Options"] = `{"suite":"quick","warmup":1000000000}` }, "at most 1000"},
		{"relative exe", func(c map[string]any) { c["Options"] = `{"suite":"quick","warmup":1,"exe":"sh"}` }, "absolute"},
		{"flag-like param", func(c map[string]any) { c["Options"] = `{"suite":"quick","warmup":1,"params":["-x"]}` }, "'-'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			r.m.write("proc/1/comm", "systemd")
			c := r.start(1)
			r.tamperPlan(c.ID, tc.edit)
			_, err := r.e.Resume(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.ID) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("resume: %v; want one line naming %s and %q", err, c.ID, tc.want)
			}
			if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
				t.Fatalf("abort: %v", err)
			}
			if _, err := os.Lstat(r.e.Host.UnitPath(c.ID)); !os.IsNotExist(err) {
				t.Fatalf("unit left after abort: %v", err)
			}
		})
	}
}

// TestPostgresPasswordStaysSecret: a campaign on a PostgreSQL store whose
// URL holds a password keeps it out of the options column, the unit and
// every message; the unit reaches the store through a root-only password
// file that pgx reads, and resume through the unit's URL works.
func TestPostgresPasswordStaysSecret(t *testing.T) {
	u := pg.Get(t).NewDatabase(t)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	pu.User = url.UserPassword(pu.User.Username(), "s3cr:et")
	pu.Scheme = "POSTGRES" // any case is PostgreSQL
	secretURL := pu.String()
	r := newRigOn(t, secretURL)
	r.m.write("proc/1/comm", "systemd")
	c, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1,
		Seed: 7, Label: "cmp", Options: Options{Request: plan.Request{Suite: "quick"}, Exe: "/usr/local/bin/sectax", DB: secretURL}})
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile(r.e.Host.UnitPath(c.ID))
	if err != nil {
		t.Fatal(err)
	}
	rec := r.load()
	for what, text := range map[string]string{"unit": string(unit), "options": rec.Options, "messages": strings.Join(r.said(), "\n"), "changes": rec.Changes} {
		if strings.Contains(text, "s3cr") {
			t.Fatalf("the password is in the %s:\n%s", what, text)
		}
	}
	opts, _ := StoredOptions(rec)
	if !strings.HasPrefix(opts.DB, "postgres://") || !strings.Contains(string(unit), "--db "+systemdQuote(opts.DB)) {
		t.Fatalf("unit %s\noptions db %q", unit, opts.DB)
	}
	pass := r.e.Host.PassfilePath(c.ID)
	fi, err := os.Stat(pass)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("password file %s: %v %v", pass, fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(pass)); di.Mode().Perm() != 0o700 {
		t.Fatalf("password folder mode %v", di.Mode())
	}
	cfg, err := pgx.ParseConfig(opts.DB)
	if err != nil || cfg.Password != "s3cr:et" || cfg.Database != pu.Path[1:] {
		t.Fatalf("pgx from the unit's URL: password %q database %q %v", cfg.Password, cfg.Database, err)
	}
	// Resume as the unit would: with the URL it names.
	r.dbPath = opts.DB
	r.reopen()
	if err := r.drive(5); err != nil {
		t.Fatal(err)
	}
	if got := r.load(); got.State != Finished {
		t.Fatalf("campaign %s: %s", got.State, got.Message)
	}
	if _, err := os.Stat(pass); !os.IsNotExist(err) {
		t.Fatalf("password file left after the campaign: %v", err)
	}
}
