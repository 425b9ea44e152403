package campaign

import (
	"database/sql"
	"net/url"

	"context"
	"encoding/json"
	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/sectax/sectax/internal/config"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/pgtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestAbortActsOnlyOnWhatSectaxMade: a row edited to list other paths
// makes abort neither delete nor overwrite them; they are reported, and
// what sectax did make (the unit and its link) is still removed.
func TestAbortActsOnlyOnWhatSectaxMade(t *testing.T) {
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	c := r.start(1)
	victim := filepath.Join(r.m.root, "etc/shadow")
	r.m.write("etc/shadow", "root:secret")
	other := filepath.Join(r.m.root, "etc/passwd")
	r.m.write("etc/passwd", "root:x:0:0")
	r.tamper(func(cs []map[string]any) []map[string]any {
		return append(cs,
			map[string]any{"kind": "created", "path": victim, "what": "systemd unit"},
			map[string]any{"kind": "file", "path": other, "what": ".wslconfig", "existed": true, "original": []byte("pwned\n")})
	})
	_, err := r.e.Abort(context.Background(), "")
	if err == nil || !strings.Contains(err.Error(), victim) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("abort: %v; want the two stored paths refused", err)
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
	// The refused entries are not kept to be tried again.
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
		t.Fatalf("second abort: %v", err)
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
	if store.IsURL(r.dbPath) {
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
// make resume fail with one line naming the campaign and what is wrong,
// never panic, and abort still removes the unit sectax made.
func TestTamperedCampaign(t *testing.T) {
	cases := []struct {
		name, sql, want string
	}{
		{"next beyond the plan", `UPDATE campaigns SET next_step = 99`, "step 100"},
		{"negative next", `UPDATE campaigns SET next_step = -1`, "step 0"},
		{"steps deleted", `DELETE FROM campaign_steps`, "no steps"},
		{"no configurations", `UPDATE campaigns SET configs = '[]'`, "configurations"},
		{"corrupt verification", `UPDATE campaign_steps SET verification = '{"ok":tru', status = 'verified'`, "verification"},
		{"corrupt options", `UPDATE campaigns SET options = '{"runs":'`, "options"},
		{"step index gap", `UPDATE campaign_steps SET idx = idx + 5`, "step"},
		{"unknown step configuration", `UPDATE campaign_steps SET config = 'nope'`, "nope"},
		{"huge warmup", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1000000000}'`, "at most 1000"},
		{"flag-like distro", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"distro":"-x"}'`, "distro"},
		{"relative exe", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"exe":"sh"}'`, "absolute"},
		{"flag-like param", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"params":["-x"]}'`, "'-'"},
		{"password in options", `UPDATE campaigns SET options = '{"suite":"quick","warmup":1,"db":"postgres://u:pw@h/d"}'`, "password"},
	}
	for _, b := range backends {
		for _, tc := range cases {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				r := b.rig(t)
				r.m.write("proc/1/comm", "systemd")
				c := r.start(1)
				r.rawSQL(tc.sql)
				r.reopen()
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
				if got, err := r.db.Campaign(context.Background(), c.ID); err != nil || got.State != Aborted {
					t.Fatalf("after abort: %+v %v", got, err)
				}
			})
		}
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
	c, err := r.e.Start(context.Background(), StartRequest{Configs: []config.Config{config.On, config.Off}, Boots: 1,
		Seed: 7, Label: "cmp", Options: Options{Suite: "quick", Exe: "/usr/local/bin/sectax", DB: secretURL}})
	if err != nil {
		t.Fatal(err)
	}
	unit, err := os.ReadFile(r.e.Host.UnitPath(c.ID))
	if err != nil {
		t.Fatal(err)
	}
	rec := r.load()
	for what, text := range map[string]string{"unit": string(unit), "options": rec.Options, "messages": strings.Join(r.said, "\n"), "changes": rec.Changes} {
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
