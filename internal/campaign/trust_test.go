package campaign

import (
	"context"
	"encoding/json"
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
