package campaign

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// host makes r's machine another host: its own machine id and hostname.
func (r *rig) host(name, machineID string) *rig {
	r.m.write("etc/machine-id", machineID)
	r.m.write("proc/sys/kernel/hostname", name)
	return r
}

// TestTwoHostsOneStore: two hosts (two fake roots, other machine ids and
// hostnames) run campaigns at once on one store, SQLite and PostgreSQL;
// each resume continues only its own host's campaign, each status shows
// its own, and a running campaign put in the store by a third party with
// an older start and a command is resumed by neither.
func TestTwoHostsOneStore(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			a := b.rig(t).host("host-a", "0123456789abcdef0123456789abcdef")
			bb := newRigOn(t, a.dbPath).host("host-b", "fedcba9876543210fedcba9876543210")
			bb.ids = 50
			ca := a.start(2)
			cb := bb.start(2)
			if ca.ID == cb.ID {
				t.Fatal("one id for two campaigns")
			}
			// A forged running campaign, older than both, with a command.
			forged := *storeCopy(ca)
			forged.ID, forged.Created = "20200101T000000-aaaaaa", ca.Created.Add(-24*time.Hour*365)
			forged.Options = `{"suite":"quick","only":["cmd"],"params":["cmd.cmd=touch /owned"],"db":"` + a.dbPath + `"}`
			if err := a.db.SaveCampaign(context.Background(), &forged); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 10; i++ {
				for _, r := range []*rig{a, bb} {
					if c, err := r.e.Resume(context.Background()); err != nil && (c == nil || c.State == Running) {
						t.Fatalf("resume %d: %v", i, err)
					}
				}
			}
			for _, r := range []*rig{a, bb} {
				for _, m := range r.measured {
					if m.Campaign.ID == forged.ID || len(m.Options.Only) != 0 {
						t.Fatalf("measured the forged campaign: %+v", m)
					}
				}
			}
			for r, c := range map[*rig]string{a: ca.ID, bb: cb.ID} {
				if len(r.measured) != 4 {
					t.Fatalf("%d runs measured on a host, want its 4", len(r.measured))
				}
				for _, m := range r.measured {
					if m.Campaign.ID != c {
						t.Fatalf("host of %s measured %s", c, m.Campaign.ID)
					}
				}
				got, _, err := Find(context.Background(), r.db, r.m.root, r.ref, "")
				if err != nil || got.ID != c || got.State != Finished {
					t.Fatalf("status of the host of %s: %v %v", c, got, err)
				}
			}
			if got, _ := a.db.Campaign(context.Background(), forged.ID); got.State != Running {
				t.Fatalf("the forged campaign was driven: %s", got.State)
			}
		})
	}
}

// TestHostileStore tampers every column of both campaign tables (hostile
// text, hostile numbers, instructions of the writer's choosing) under a
// running campaign, SQLite and PostgreSQL, and shows: no command of the
// store measured, no file outside what sectax made touched, no kexec
// image unloaded, no panic and no hang in resume, status or abort.
func TestHostileStore(t *testing.T) {
	unloads := 0
	unloadKexec = func() error { unloads++; return nil }
	t.Cleanup(func() { unloadKexec = unloadKexecImage })
	for _, b := range backends {
		for _, wave := range hostileWaves {
			t.Run(b.name+"/"+wave.name, func(t *testing.T) {
				r := b.rig(t)
				r.m.write("proc/1/comm", "systemd")
				victims := t.TempDir()
				victim := filepath.Join(victims, "victim")
				os.WriteFile(victim, []byte("[wsl2]\nmemory=1GB\n"), 0o644)
				os.Symlink(victim, filepath.Join(victims, ".wslconfig"))
				c := r.start(1)
				before := tree(t, r.m.root, victims)
				for _, q := range wave.sql(victims, r.m.root) {
					r.tryRawSQL(q)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				r.reopen()
				r.e.Resume(ctx)
				if rec, _, err := Find(ctx, r.db, r.m.root, r.ref, ""); err == nil {
					StatusOf(rec)
				}
				r.e.Abort(ctx, c.ID)
				r.e.Abort(ctx, "")
				if ctx.Err() != nil {
					t.Fatal("resume, status and abort did not end within a minute")
				}
				for _, m := range r.measured {
					if m.Options.Suite != "quick" || len(m.Options.Only)+len(m.Options.Params) != 0 || m.Campaign.ID != c.ID {
						t.Fatalf("measured what the store said: %+v", m)
					}
				}
				if unloads != 0 {
					t.Fatalf("the kexec image was unloaded %d times", unloads)
				}
				after := tree(t, r.m.root, victims)
				for p, v := range before {
					if after[p] != v && !strings.Contains(p, "sectax") && !strings.HasPrefix(p, filepath.Join(r.m.root, "proc")) && !strings.HasPrefix(p, filepath.Join(r.m.root, "sys")) {
						t.Errorf("%s changed: %q → %q", p, v, after[p])
					}
				}
			})
		}
	}
}

// tree maps every file below dirs to its bytes (a link to its target).
func tree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			switch {
			case err != nil:
			case fi.Mode()&os.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				out[p] = "-> " + l
			case fi.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			}
			return nil
		})
	}
	return out
}

// tryRawSQL is rawSQL for a statement the schema may refuse (a key
// changed under a reference).
func (r *rig) tryRawSQL(q string) {
	driver, dsn := "sqlite", "file:"+r.dbPath
	if r.ref.IsURL() {
		driver, dsn = "pgx", r.dbPath
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		r.t.Fatal(err)
	}
	defer db.Close()
	db.Exec(q)
}

var campaignColumns = []string{"id", "created", "updated", "label", "via", "configs", "options", "base_cmdline",
	"start_boot_id", "state", "message", "changes", "restore_error"}
var stepColumns = []string{"campaign_id", "config", "status", "from_boot_ids", "boot_id", "verification", "quiet", "run_id"}

// hostileWaves are the tamperings TestHostileStore applies, each to every
// column it fits.
var hostileWaves = []struct {
	name string
	sql  func(victims, root string) []string
}{
	{"hostile text", func(victims, root string) []string {
		var qs []string
		for _, v := range []string{"'; touch /owned #", "\x1b]52;c;cHduZWQ=\x07\x1b[2J", victims + "/.wslconfig", "../../../../etc/shadow"} {
			v = strings.ReplaceAll(v, "'", "''")
			for _, c := range campaignColumns[1:] {
				qs = append(qs, "UPDATE campaigns SET "+c+" = '"+v+"'")
			}
			for _, c := range stepColumns[1:] {
				qs = append(qs, "UPDATE campaign_steps SET "+c+" = '"+v+"'")
			}
		}
		return append(qs, "UPDATE campaigns SET id = 'x'", "UPDATE campaign_steps SET campaign_id = 'x'")
	}},
	{"hostile numbers", func(victims, root string) []string {
		var qs []string
		for _, v := range []string{"-1", "-9223372036854775808", "9223372036854775807", "2147483648"} {
			for _, c := range []string{"seed", "next_step"} {
				qs = append(qs, "UPDATE campaigns SET "+c+" = "+v)
			}
			for _, c := range []string{"idx", "boot", "attempts", "quiet_ms"} {
				qs = append(qs, "UPDATE campaign_steps SET "+c+" = "+v)
			}
		}
		return qs
	}},
	{"instructions", func(victims, root string) []string {
		sum := hashOf([]byte("[wsl2]\nmemory=1GB\n"))
		changes := `[{"kind":"file","path":"` + victims + `/victim","what":".wslconfig","existed":true,"original":"W3dzbDJdCg==","sha256":"` + sum + `"},` +
			`{"kind":"created","path":"` + victims + `/victim","what":"systemd unit","sha256":"` + sum + `"},` +
			`{"kind":"created","path":"` + root + `/etc/os-release","what":"systemd unit"},{"kind":"kexec","path":"/boot/x","what":"kexec"}]`
		return []string{
			`UPDATE campaigns SET via = 'kexec', options = '{"suite":"quick","only":["cmd"],"params":["cmd.cmd=touch /owned"],"wslconfig":"` + victims +
				`/.wslconfig","kernel":"/boot/evil","exe":"/tmp/evil","resume":"by hand"}', changes = '` + changes + `'`,
			`UPDATE campaign_steps SET status = 'verified', verification = '{"ok":true}', run_id = 'evil'`,
			`INSERT INTO campaigns(id, created, updated, label, via, seed, configs, options, state, changes) VALUES ('19700101T000000-000000',
				'1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', 'x', 'kexec', 1, '[{"name":"on","params":""},{"name":"off","params":"mitigations=off"}]',
				'{"suite":"quick","only":["cmd"],"params":["cmd.cmd=touch /owned"]}', 'running', '` + changes + `')`,
		}
	}},
}
