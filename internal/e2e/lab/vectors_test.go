package labe2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/cli"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/decide"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/store"
	"github.com/sectax/sectax/internal/store/storetest"
	"github.com/sectax/sectax/internal/testutil"
	"github.com/sectax/sectax/internal/vm"
)

// TestVectors is issue 28 end to end, real: `sectax lab --plan vectors` on
// the installed kernel under TCG (the package's shared lab, labRun), then
// `sectax attribute report --by vector` and `sectax decide` on the stored
// runs. The guest kernel (Debian's 6.1) has no attack-vector controls, so
// the vector configurations are per-bug parameters. It checks:
//   - every configuration's boot was verified before it was measured, and
//     each run is stored with its configuration;
//   - attribute report --by vector gives each single-vector configuration
//     a share of the total with an interval;
//   - decide's saving of every measured option is non-null and is what
//     compare gives for the same runs (on against the option's
//     configuration).
func TestVectors(t *testing.T) {
	lr := sharedLab(t)
	k, db := lr.k, lr.db
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sectax := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := cli.Main(ctx, args, &stdout, &stderr)
		t.Logf("sectax %s: exit %d in %s\nstderr:\n%s", args[0], code, time.Since(start).Round(time.Second), stderr.String())
		if code != 0 {
			t.Fatalf("sectax %s: exit %d\nstdout:\n%s", strings.Join(args, " "), code, stdout.String())
		}
		return stdout.String(), stderr.String()
	}

	s, err := storetest.Ref(t, db).Open(ctx, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	arms, err := attribute.StoredArms(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	var names, singles []string
	for _, a := range arms {
		names = append(names, a.Name)
		if len(a.Runs) != 1 {
			t.Errorf("%s: %d runs, want one boot's", a.Name, len(a.Runs))
		}
		for _, r := range a.Runs {
			if r.Config == nil || r.Config.Name != a.Name || r.Config.Verification == nil || !r.Config.Verification.OK {
				t.Errorf("%s: run %s not stored with a verified boot of its configuration: %+v", a.Name, r.ID, r.Config)
				continue
			}
			if r.Lab == nil || r.Lab.Accel != vm.AccelTCG || r.Label != lab.Label("e2e", k.Release, a.Name) {
				t.Errorf("%s: run %s label %q lab %+v", a.Name, r.ID, r.Label, r.Lab)
			}
			// A per-bug spelling on a kernel before 6.17: never the
			// kernel's vector syntax, which 6.1 does not parse.
			if strings.Contains(r.Config.Verification.Cmdline, "no_") && strings.Contains(r.Config.Verification.Cmdline, "mitigations=auto,") {
				t.Errorf("%s: vector syntax on kernel %s: %q", a.Name, k.Release, r.Config.Verification.Cmdline)
			}
		}
		if strings.HasPrefix(a.Name, "no-") && !strings.Contains(strings.TrimPrefix(a.Name, "no-"), "-") {
			singles = append(singles, a.Name)
		}
	}
	t.Logf("configurations measured: %v", names)
	// A vector set appears only where it changes more than the single
	// vectors: on this guest (TCG, no SMT siblings, STIBP already
	// disabled, no IBPB) spectre_v2_user=off changes nothing, which the
	// corpus of real boots taught the model, so the plan may hold none.
	if !slices.Contains(names, "on") || !slices.Contains(names, "off") || len(singles) == 0 {
		t.Fatalf("configurations %v: want on, off and a single-vector one", names)
	}

	// attribute report --by vector: each vector configuration is a part
	// with its share and an interval.
	out, _ := sectax("attribute", "report", "--db", db, "--by", "vector", "--format", "json")
	var att attribute.Attribution
	if err := json.Unmarshal([]byte(out), &att); err != nil {
		t.Fatalf("attribute report JSON: %v\n%s", err, out)
	}
	if len(att.Workloads) != 2 {
		t.Fatalf("attribute report: %d workloads, want the lab's two", len(att.Workloads))
	}
	for _, wa := range att.Workloads {
		for _, name := range singles {
			i := slices.IndexFunc(wa.Parts, func(p attribute.Part) bool { return p.Config == name })
			if i < 0 {
				t.Errorf("--by vector: %s: no part %s in %+v", wa.Workload, name, wa.Parts)
				continue
			}
			if p := wa.Parts[i]; p.SharePct == nil || p.TaxPctInterval == nil {
				t.Errorf("--by vector: %s: %s has no share or no interval: %+v", wa.Workload, name, p)
			}
		}
	}

	// decide on a 6.18 host's files with these runs: they were measured
	// on the guest's kernel under TCG, not on that machine, so by default
	// no option has a saving and a note says why; with --any-machine every
	// option whose configuration was measured has the saving compare
	// gives, and a note says where it was measured.
	root := testutil.AttributeRoot(t, "host-6.18")
	var d decide.Decision
	out, _ = sectax("decide", "--db", db, "--root", root, "--protect", "user_kernel", "--format", "json")
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("decide JSON: %v\n%s", err, out)
	}
	for _, o := range d.Options {
		if o.Saving != nil && o.Name != decide.KeepAll {
			t.Errorf("decide %s: a saving %+v from another machine's runs", o.Name, o.Saving)
		}
	}
	stored := 0
	for _, a := range arms {
		stored += len(a.Runs)
	}
	if left := fmt.Sprintf("left out of the savings: %d: ", stored); !slices.ContainsFunc(d.Facts.Notes, func(n string) bool { return strings.Contains(n, left) }) {
		t.Errorf("decide notes %q: want the guest's %d runs said as left out (%q)", d.Facts.Notes, stored, left)
	}
	d = decide.Decision{}
	out, _ = sectax("decide", "--db", db, "--root", root, "--protect", "user_kernel", "--any-machine", "--format", "json")
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("decide JSON: %v\n%s", err, out)
	}
	side := func(name string) compare.Side {
		a := arms[slices.IndexFunc(arms, func(a attribute.Arm) bool { return a.Name == name })]
		return compare.RunsSide(name, compare.KindLabel, a.Runs, a.Envs)
	}
	measured := 0
	for _, o := range d.Options {
		if o.Name == decide.KeepAll || !slices.Contains(names, o.Config) {
			continue
		}
		measured++
		rep, err := pairOf(compare.CompareSides([]compare.Side{side("on"), side(o.Config)}, compare.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Saving) != len(rep.Workloads) {
			t.Errorf("decide %s: saving %+v, want one per workload of %d", o.Name, o.Saving, len(rep.Workloads))
			continue
		}
		for _, w := range rep.Workloads {
			i := slices.IndexFunc(o.Saving, func(sv decide.Saving) bool { return sv.Workload == w.ID })
			if i < 0 || o.Saving[i].Interval == nil {
				t.Errorf("decide %s: no saving with an interval for %s: %+v", o.Name, w.ID, o.Saving)
				continue
			}
			sv := o.Saving[i]
			j := slices.IndexFunc(w.Metrics, func(m compare.Metric) bool { return m.Name == sv.Metric })
			if j < 0 {
				t.Errorf("decide %s %s: saving of metric %q, which compare does not have", o.Name, w.ID, sv.Metric)
				continue
			}
			m := w.Metrics[j]
			lo, hi := m.RatioInterval.ImpactPct(m.Better)
			if math.Abs(sv.Pct-(m.Speedup-1)*100) > 1e-9 || math.Abs(sv.Interval.Lo-lo) > 1e-9 || math.Abs(sv.Interval.Hi-hi) > 1e-9 {
				t.Errorf("decide %s %s: saving %+v, compare %.4f%% [%.4f, %.4f]", o.Name, w.ID, sv, (m.Speedup-1)*100, lo, hi)
			}
		}
	}
	if measured < 1 {
		t.Errorf("decide: %d options measured by the stored runs %v, want at least off", measured, names)
	}
}
