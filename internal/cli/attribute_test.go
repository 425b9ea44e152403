package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/attribute"
)

// TestAttributeProbesLive runs the probes against the running kernel at
// tiny sizes: every control is either measured on every probe workload or
// listed as unavailable with the kernel's own answer.
func TestAttributeProbesLive(t *testing.T) {
	out, errs, code := sectax(t, fixedDeps(nil), "attribute", "probes", "--format", "json", "--no-store", "-q",
		"--runs", "2", "--warmup", "0", "--suite", "quick")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep attribute.ProbeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Controls) != 3 {
		t.Fatalf("controls %+v", rep.Controls)
	}
	for _, c := range rep.Controls {
		rows := 0
		for _, r := range rep.Rows {
			if r.Control == c.Control {
				rows++
				if !strings.Contains(r.Verified, "runner-thread 1 task") {
					t.Errorf("%s on %s %s: verified %q", c.Control, r.Workload, r.ParamsKey, r.Verified)
				}
			}
		}
		switch {
		case c.Available && rows != len(attribute.Probes):
			t.Errorf("%s is available but measured on %d workloads", c.Control, rows)
		case !c.Available && (rows != 0 || !strings.HasPrefix(c.Reason, "PR_GET_SPECULATION_CTRL")):
			t.Errorf("%s is unavailable (%q) but has %d rows", c.Control, c.Reason, rows)
		}
	}
}

func TestRunSpecRefused(t *testing.T) {
	// A fake tree: the kernel's mode cannot be asked, so nothing is offered.
	_, errs, code := sectax(t, fixedDeps(nil), "--root", "../sysinfo/testdata/intel-baremetal", "run", "--no-store",
		"--only", "syscall-basic", "--spec", "ssbd=force")
	if code != 2 || !strings.Contains(errs, "--spec ssbd=force: this kernel does not offer ssbd per task: the kernel's mode is unknown") {
		t.Errorf("exit %d: %s", code, errs)
	}
	_, errs, code = sectax(t, fixedDeps(nil), "run", "--no-store", "--only", "syscall-basic", "--spec", "ssbd=sometimes")
	if code != 2 || !strings.Contains(errs, "ssbd takes force, on, off") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
