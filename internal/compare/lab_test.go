package compare

import (
	"errors"
	"github.com/sectax/sectax/internal/exit"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

func TestAccelerators(t *testing.T) {
	bare := &run.Run{ID: "bare"}
	kvm := &run.Run{ID: "kvm", Lab: &run.Lab{Accel: "kvm"}}
	tcg := &run.Run{ID: "tcg", Lab: &run.Lab{Accel: "tcg"}}
	for _, tc := range []struct {
		name       string
		runs       []*run.Run
		accels     []string
		tcg, mixed bool
	}{
		{"bare only", []*run.Run{bare, bare}, []string{"none"}, false, false},
		{"kvm only", []*run.Run{kvm, kvm}, []string{"kvm"}, false, false},
		{"tcg only", []*run.Run{tcg, tcg}, []string{"tcg"}, true, false},
		{"tcg and kvm", []*run.Run{kvm, tcg}, []string{"kvm", "tcg"}, true, true},
		{"vm and bare", []*run.Run{bare, kvm}, []string{"kvm", "none"}, false, true},
		{"empty", nil, nil, false, false},
	} {
		accels, isTCG, mixed := Accelerators(tc.runs)
		if !slices.Equal(accels, tc.accels) || isTCG != tc.tcg || mixed != tc.mixed {
			t.Errorf("%s: got %v tcg=%v mixed=%v, want %v tcg=%v mixed=%v", tc.name, accels, isTCG, mixed, tc.accels, tc.tcg, tc.mixed)
		}
	}
}

// setAccel gives the i-th side's runs a lab block of accel ("" leaves
// them bare).
func setAccel(sides []Side, accels ...string) {
	for i, a := range accels {
		for _, r := range sides[i].Runs {
			r.Lab = nil
			if a != "" {
				r.Lab = &run.Lab{Accel: a, CPUModel: "Skylake-Client-v1"}
			}
		}
	}
}

// TestRefuseMixedAccelerators: no comparison, pairwise or multi-side,
// compares timings of different accelerators, and the refusal is a usage
// error that names each side's accelerator.
func TestRefuseMixedAccelerators(t *testing.T) {
	for _, tc := range []struct {
		name   string
		accels []string
		want   string
	}{
		{"kvm vs tcg", []string{"kvm", "tcg"}, "on kvm; off tcg"},
		{"lab vs bare", []string{"", "kvm"}, "on none; off kvm"},
		{"tcg vs bare", []string{"tcg", ""}, "on tcg; off none"},
		{"multi: third side differs", []string{"tcg", "tcg", "kvm"}, "on tcg; off tcg; half kvm"},
	} {
		sides := threeSides()
		setAccel(sides, tc.accels...)
		var err error
		if len(tc.accels) == 2 {
			_, err = pair(sides[0], sides[1], Options{})
		} else {
			_, err = CompareSides(sides, Options{})
		}
		var me *MixedAcceleratorsError
		if !errors.As(err, &me) || !errors.Is(err, ErrMixedAccelerators) {
			t.Fatalf("%s: err = %v, want a MixedAcceleratorsError", tc.name, err)
		}
		if exit.Of(err) != exit.Usage {
			t.Errorf("%s: not a usage error", tc.name)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "compare runs measured the same way") {
			t.Errorf("%s: message %q lacks %q or the fix", tc.name, msg, tc.want)
		}
	}
	// A side that mixes within itself is refused too.
	sides := threeSides()
	sides[0].Runs = append(sides[0].Runs, mkRun("r-on-2", "on", sides[0].Runs[0].Results...))
	sides[0].Envs = append(sides[0].Envs, envOn())
	setAccel(sides, "tcg", "tcg")
	sides[0].Runs[1].Lab = nil
	if _, err := pair(sides[0], sides[1], Options{}); !errors.Is(err, ErrMixedAccelerators) {
		t.Errorf("a side mixing tcg and bare runs: err = %v", err)
	}
}

// TestLabNotes: under TCG the headline and the emulated warning come
// first; under KVM a note says the figures are a guest's; bare runs carry
// neither.
func TestLabNotes(t *testing.T) {
	for _, accel := range []string{"tcg", "kvm", ""} {
		sides := threeSides()
		setAccel(sides, accel, accel, accel)
		rep, err := pair(sides[0], sides[1], Options{})
		if err != nil {
			t.Fatal(err)
		}
		mr, err := CompareSides(sides, Options{})
		if err != nil {
			t.Fatal(err)
		}
		emulated := accel == "tcg"
		if (rep.Conclusion.Headline == TCGHeadline) != emulated || (mr.Headline == TCGHeadline) != emulated ||
			rep.HasWarning(KindEmulated) != emulated || mr.Comparisons[1].HasWarning(KindEmulated) != emulated {
			t.Errorf("accel %q: headline %q, multi headline %q, warnings %v", accel, rep.Conclusion.Headline, mr.Headline, rep.Warnings)
		}
		if emulated && rep.Warnings[0].Kind != KindEmulated {
			t.Errorf("tcg: the emulated warning is not first: %v", rep.Warnings)
		}
		if kvm := slices.Contains(rep.Notes, KVMNote); kvm != (accel == "kvm") {
			t.Errorf("accel %q: KVM note %v, notes %v", accel, kvm, rep.Notes)
		}
		if (rep.Lab == nil) != (accel == "") || (mr.Lab == nil) != (accel == "") {
			t.Errorf("accel %q: lab %+v, multi lab %+v", accel, rep.Lab, mr.Lab)
		}
		if accel != "" && (rep.Lab.Accel != accel || !slices.Equal(rep.Lab.CPUModels, []string{"Skylake-Client-v1"})) {
			t.Errorf("accel %q: lab %+v", accel, rep.Lab)
		}
	}
}

// TestWidestIntervalPct: the widest half-width of the primary metrics'
// intervals, controls aside; +Inf while one has no interval.
func TestWidestIntervalPct(t *testing.T) {
	rep := &Report{Workloads: []Workload{
		{ID: "a", Metrics: []Metric{{RatioInterval: &Interval{Lo: 0.48, Hi: 0.52}}, {}}},
		{ID: "b", Metrics: []Metric{{RatioInterval: &Interval{Lo: 0.99, Hi: 1.01}}}},
		{ID: "ctl-user", Control: true, Metrics: []Metric{{}}},
	}}
	if w := rep.WidestIntervalPct(); math.Abs(w-2) > 1e-9 {
		t.Errorf("widest %v, want 2 (a: -52%%..-48%%)", w)
	}
	rep.Workloads[1].Metrics[0].RatioInterval = nil
	if w := rep.WidestIntervalPct(); !math.IsInf(w, 1) {
		t.Errorf("a workload without an interval: %v", w)
	}
	if w := (&Report{}).WidestIntervalPct(); !math.IsInf(w, 1) {
		t.Errorf("no workload: %v", w)
	}
}
