package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/store"
)

// TestStartChecksBeforeStoring: options start's own checks refuse (a
// relative --wslconfig) are refused before anything is stored: no row, no
// plan, and the next start is not blocked.
func TestStartChecksBeforeStoring(t *testing.T) {
	r := newRig(t)
	_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1, Seed: 7,
		Options: Options{Request: plan.Request{Suite: "quick"}, WSLConfig: "rel/.wslconfig", DB: r.dbPath}})
	if err == nil || exit.Of(err) != exit.Usage || !strings.Contains(err.Error(), "absolute") {
		t.Fatalf("start with a relative .wslconfig: %v", err)
	}
	if _, err := r.db.FindCampaign(context.Background(), ""); !errors.Is(err, store.ErrNoCampaign) {
		t.Fatalf("a campaign was stored: %v", err)
	}
	if ids, _, _ := r.e.Host.plans(); len(ids) != 0 {
		t.Fatalf("a plan was written: %v", ids)
	}
	r.start(1)
}

// TestResumeCommandQuoted: the command printed to run after a boot is
// quoted for a shell (a PostgreSQL URL's '&').
func TestResumeCommandQuoted(t *testing.T) {
	got := ResumeCommand(Options{Exe: "/opt/my sectax/sectax", DB: "postgres://u@h/d?sslmode=disable&passfile=/etc/sectax/p"})
	want := `'/opt/my sectax/sectax' --db 'postgres://u@h/d?sslmode=disable&passfile=/etc/sectax/p' campaign resume`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The printed line never carries the password (dry runs, status, the
	// "after the boot, run" line): the user part keeps only its name.
	got = ResumeCommand(Options{Exe: "sectax", DB: "postgres://u:s3cretpw@h/d?password=s3cretpw2&sslmode=disable"})
	if strings.Contains(got, "s3cretpw") || !strings.Contains(got, "postgres://u@h/d") {
		t.Errorf("resume command %s", got)
	}
}

// TestWritesStayBelowRoot: a linked etc/systemd (or a linked plan folder)
// makes start refuse, writing nothing outside the root; an existing
// folder's mode is left as it was.
func TestWritesStayBelowRoot(t *testing.T) {
	for _, linked := range []string{"etc/systemd", "var/lib/sectax"} {
		t.Run(linked, func(t *testing.T) {
			r := newRig(t)
			r.m.write("proc/1/comm", "systemd")
			out := t.TempDir()
			os.MkdirAll(filepath.Dir(filepath.Join(r.m.root, linked)), 0o755)
			if err := os.Symlink(out, filepath.Join(r.m.root, linked)); err != nil {
				t.Fatal(err)
			}
			_, err := r.e.Start(context.Background(), StartRequest{Configs: []bootconfig.Config{bootconfig.On, bootconfig.Off}, Boots: 1, Seed: 7,
				Options: Options{Request: plan.Request{Suite: "quick"}, Exe: "/usr/local/bin/sectax", DB: r.dbPath}})
			if err == nil {
				t.Fatal("start wrote through a linked folder")
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Fatalf("written outside the root: %v", ents)
			}
		})
	}
	r := newRig(t)
	r.m.write("proc/1/comm", "systemd")
	os.MkdirAll(filepath.Join(r.m.root, "etc/systemd/system"), 0o755)
	os.Chmod(filepath.Join(r.m.root, "etc/systemd/system"), 0o755)
	c := r.start(1)
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(r.m.root, "etc/systemd/system")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("the unit folder's mode changed: %v", fi.Mode())
	}
	fi, err := os.Stat(r.e.Host.PlanPath(c.ID))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("plan: %v %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(r.e.Host.PlanPath(c.ID))); di.Mode().Perm() != 0o700 {
		t.Fatalf("plan folder: %v", di.Mode())
	}
}

// TestPlanSurvivesMachineChange: the plan below this host's root makes a
// campaign this host's, not the hostname or machine id it names: after a
// new /etc/machine-id, then a hostname change, resume and abort still
// follow it, each change said once.
func TestPlanSurvivesMachineChange(t *testing.T) {
	r := newRig(t)
	c := r.start(2)
	r.m.write("etc/machine-id", "0123456789abcdef0123456789abcdef")
	if _, err := r.e.Resume(context.Background()); err != nil || len(r.measured) != 1 {
		t.Fatalf("resume after a new machine id: %v; measured %d", err, len(r.measured))
	}
	said := func(want string) int {
		n := 0
		for _, s := range r.said() {
			if strings.Contains(s, "name or id changed") && strings.Contains(s, want) {
				n++
			}
		}
		return n
	}
	if said("/etc/machine-id changed") != 1 {
		t.Fatalf("said %q", r.said())
	}
	r.m.write("proc/sys/kernel/hostname", "renamed-by-dhcp")
	r.forget()
	if _, err := r.e.Abort(context.Background(), c.ID); err != nil {
		t.Fatalf("abort after a hostname change: %v", err)
	}
	if said(`its hostname changed (`) != 1 || said("renamed-by-dhcp") != 1 {
		t.Fatalf("said %q", r.said())
	}
	if got := r.load(); got.State != Aborted {
		t.Fatalf("state %s", got.State)
	}
	r.forget()
	r.e.Abort(context.Background(), c.ID)
	if said("changed") != 0 {
		t.Fatalf("said twice: %q", r.said())
	}
}
