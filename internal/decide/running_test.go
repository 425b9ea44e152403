package decide

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/testutil"
)

// fakeRoot copies the host-6.18 root and writes files over it (paths
// relative to the root).
func fakeRoot(t *testing.T, files map[string]string) Input {
	t.Helper()
	dir := testutil.AttributeRoot(t, "host-6.18")
	for p, text := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return inputAt(t, dir)
}

const vulnDir = "sys/devices/system/cpu/vulnerabilities/"

// TestRunningDrops: on a 6.18 host booted with
// mitigations=auto,no_guest_host,no_guest_guest the options stay relative
// to the kernel's defaults: keep-all drops nothing and turns the guest
// vectors back on, no-guest is the running command line (current, nothing
// to apply), and the facts say what the running line already drops.
func TestRunningDrops(t *testing.T) {
	booted := map[string]string{
		"proc/cmdline":         "BOOT_IMAGE=/boot/vmlinuz-6.18.7-arch1-1 root=UUID=5c1d7e0a-9b2f-4f3e-8a6d-1e2f3a4b5c6d ro quiet mitigations=auto,no_guest_host,no_guest_guest",
		vulnDir + "vmscape":    "Vulnerable",
		vulnDir + "spectre_v2": "Mitigation: IBRS; IBPB: conditional; STIBP: conditional; RSB filling; PBRSB-eIBRS: Not affected; BHI: Vulnerable",
		vulnDir + "l1tf":       "Mitigation: PTE Inversion; VMX: vulnerable",
	}
	in := fakeRoot(t, booted)
	in.Protect = []string{"user_kernel", "user_user"}
	d, err := Decide(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Facts.RunningDrops, []string{"guest_host", "guest_guest"}) ||
		!slices.ContainsFunc(d.Facts.Notes, func(n string) bool { return strings.Contains(n, "already drops guest_host, guest_guest") }) {
		t.Errorf("facts %+v: want the running drops said", d.Facts)
	}
	keep := option(d, KeepAll)
	if len(keep.Drops) != 0 || keep.Current || !slices.Equal(keep.Restores, []string{"guest_host", "guest_guest"}) || keep.Cmdline != "mitigations=auto" {
		t.Errorf("keep-all: %+v: want no drops, the guest vectors turned back on by mitigations=auto", keep)
	}
	ng := option(d, "no-guest")
	if !ng.Current || len(ng.Restores) != 0 || ng.SameAs != "" || ng.Cmdline != "mitigations=auto,no_guest_host,no_guest_guest" || len(ng.GivesUp) != 0 || ng.Measure != "" {
		t.Errorf("no-guest: %+v: want the current option, giving up nothing more", ng)
	}
	for _, o := range d.Options[1:] {
		if o.Name != "no-guest" && o.Current {
			t.Errorf("%s is current too", o.Name)
		}
		if o.Name != KeepAll && len(o.Restores) != 0 {
			t.Errorf("%s restores %v: every vector set drops the guest vectors", o.Name, o.Restores)
		}
	}
	if d.Recommended == nil || *d.Recommended != "no-guest" || len(d.Steps) != 0 || d.Verify != "" || !strings.Contains(d.Why, "already is this option") {
		t.Errorf("recommended %v why %q steps %v verify %q: want no-guest, nothing to change", d.Recommended, d.Why, d.Steps, d.Verify)
	}
	// Keeping guest_host recommends keep-all, which must undo the
	// running line's drops: its steps set mitigations=auto.
	in.Protect = []string{"guest_host"}
	if d, err = Decide(in); err != nil {
		t.Fatal(err)
	}
	if d.Recommended == nil || *d.Recommended != KeepAll || d.Verify != "sectax verify --expect mitigations=auto" || len(d.Steps) == 0 {
		t.Errorf("--protect guest_host: recommended %v verify %q steps %v", d.Recommended, d.Verify, d.Steps)
	}
}

// TestSMTOff: with SMT off cross_thread is moot: the facts say so, keeping
// user_user no longer keeps cross_thread, and the recommendation may drop
// it; with SMT on the same --protect keeps it.
func TestSMTOff(t *testing.T) {
	for _, c := range []struct {
		control, active string
		off             bool
		want            string
	}{
		{"on", "1", false, "no-guest"},
		{"off", "0", true, "no-guest-cross_thread"},
		{"forceoff", "0", true, "no-guest-cross_thread"},
	} {
		in := fakeRoot(t, map[string]string{"sys/devices/system/cpu/smt/control": c.control, "sys/devices/system/cpu/smt/active": c.active})
		in.Protect = []string{"user_kernel", "user_user"}
		d, err := Decide(in)
		if err != nil {
			t.Fatal(err)
		}
		moot := slices.ContainsFunc(d.Facts.Notes, func(n string) bool { return strings.Contains(n, "cross_thread is moot") })
		if d.Facts.SMTOff != c.off || moot != c.off || slices.Contains(d.Protect, "cross_thread") == c.off {
			t.Errorf("SMT %s: facts %+v protect %v", c.control, d.Facts, d.Protect)
		}
		if d.Recommended == nil || *d.Recommended != c.want {
			t.Errorf("SMT %s: recommended %v, want %s", c.control, d.Recommended, c.want)
		}
	}
}
