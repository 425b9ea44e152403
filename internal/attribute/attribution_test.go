package attribute

import (
	"fmt"

	"errors"
	"github.com/sectax/sectax/internal/sysinfo"
	"math"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
)

// jitter is the same relative spread for every configuration, so that
// medians are exact multiples of the centre.
var jitter = []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}

func armRun(id string, centre float64) *run.Run {
	xs := make([]float64, len(jitter))
	ops := make([]float64, len(jitter))
	for i, j := range jitter {
		xs[i] = centre * j
		ops[i] = 1e6 / xs[i]
	}
	return &run.Run{Schema: run.Schema, ID: id, Label: id, Results: []run.Result{{
		Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
		Metrics: []run.Metric{
			{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs},
			{Name: "ops_per_sec", Unit: "ops/s", Better: run.Higher, Samples: ops},
		}}}}
}

// CraftedArms have known answers: on 12, off 10 (tax 20%); no-pti 11
// (12/11: 9.0909%), no-verw 11.5 (4.3478%); their sum 13.4387%, so an
// interaction of 6.5613%; cum-2 (both) 10.5 (14.2857%).
func CraftedArms() []Arm {
	return []Arm{
		{Name: "on", Runs: []*run.Run{armRun("r-on", 12)}},
		{Name: "off", Runs: []*run.Run{armRun("r-off", 10)}},
		{Name: "no-meltdown", Runs: []*run.Run{armRun("r-nopti", 11)}},
		{Name: "no-verw", Runs: []*run.Run{armRun("r-noverw", 11.5)}},
		{Name: "cum-2", Runs: []*run.Run{armRun("r-cum2", 10.5)}},
		{Name: "rest-only", Runs: []*run.Run{armRun("r-rest", 12)}},
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6 {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func TestAttribute(t *testing.T) {
	att, err := Attribute(CraftedArms(), []string{"on", "no-meltdown", "cum-2", "off"}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if len(att.Workloads) != 1 {
		t.Fatalf("workloads %+v", att.Workloads)
	}
	w := att.Workloads[0]
	if w.Metric != "usecs_per_op" || w.Total == nil {
		t.Fatalf("%+v", w)
	}
	near(t, "total", w.Total.TaxPct, 20)
	if !w.Total.Significant || w.Total.TaxPctInterval == nil || !(w.Total.TaxPctInterval.Lo <= 20 && 20 <= w.Total.TaxPctInterval.Hi) || w.Total.TaxPctInterval.Hi-w.Total.TaxPctInterval.Lo > 1.5 {
		t.Errorf("total interval %v, p %v", w.Total.TaxPctInterval, w.Total.P)
	}
	if len(w.Parts) != 2 || w.Parts[0].Config != "no-meltdown" || w.Parts[1].Config != "no-verw" {
		t.Fatalf("parts %+v", w.Parts)
	}
	near(t, "no-meltdown", w.Parts[0].TaxPct, 100*(12.0/11-1))
	near(t, "no-verw", w.Parts[1].TaxPct, 100*(12.0/11.5-1))
	near(t, "share of no-meltdown", *w.Parts[0].SharePct, 100*(12.0/11-1)/20*100)
	near(t, "sum of parts", w.SumParts, 100*(12.0/11-1)+100*(12.0/11.5-1))
	near(t, "interaction", *w.Interaction, 20-100*(12.0/11-1)-100*(12.0/11.5-1))
	if *w.Interaction < 6 {
		t.Errorf("the interaction must be clearly non-zero: %v", *w.Interaction)
	}
	if len(w.Waterfall) != 4 {
		t.Fatalf("waterfall %+v", w.Waterfall)
	}
	near(t, "waterfall on", w.Waterfall[0].CumulativePct, 0)
	near(t, "waterfall step no-meltdown", w.Waterfall[1].StepPct, 100*(12.0/11-1))
	near(t, "waterfall step cum-2", w.Waterfall[2].StepPct, 100*(12/10.5-1)-100*(12.0/11-1))
	near(t, "waterfall off", w.Waterfall[3].CumulativePct, 20)
	near(t, "waterfall last step", w.Waterfall[3].StepPct, 20-100*(12/10.5-1))
	if len(w.Others) != 2 || w.Others[0].Config != "cum-2" || w.Others[1].Config != "rest-only" {
		t.Fatalf("others %+v", w.Others)
	}
	if r := w.Others[1]; r.Significant || math.Abs(r.TaxPct) > 1e-9 {
		t.Errorf("rest-only changes nothing: %+v", r)
	}
}

func TestAttributeWithoutOnOrOff(t *testing.T) {
	arms := CraftedArms()[1:]
	if _, err := Attribute(arms, nil, 0.05); !errors.Is(err, ErrNoOn) {
		t.Errorf("err = %v", err)
	}
	arms = append([]Arm{CraftedArms()[0]}, CraftedArms()[2:]...)
	att, err := Attribute(arms, nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	w := att.Workloads[0]
	if w.Total != nil || w.Interaction != nil || w.Parts[0].SharePct != nil || len(att.Notes) != 1 {
		t.Errorf("without off: %+v, notes %q", w, att.Notes)
	}
}

func TestCiteCosts(t *testing.T) {
	att, err := Attribute(CraftedArms(), nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		t.Fatal(err)
	}
	CiteCosts(att, kb)
	parts := att.Workloads[0].Parts
	if !strings.Contains(parts[0].Expected, "getppid() 120 → 520 cycles") || !strings.Contains(parts[1].Expected, "VERW") {
		t.Errorf("expected costs: %q, %q", parts[0].Expected, parts[1].Expected)
	}
}

// TestAttributeBootUnit: when every configuration spans several boots (a
// campaign or the lab), the boot is the unit and the tax still gets its
// interval: compare's ratio interval over per-boot medians, not none.
func TestAttributeBootUnit(t *testing.T) {
	arm := func(name string, centre float64) Arm {
		a := Arm{Name: name}
		for b := range 5 {
			r := armRun(fmt.Sprintf("r-%s-%d", name, b), centre*(1+0.002*float64(b-2)))
			r.Env = &sysinfo.Snapshot{BootID: fmt.Sprintf("boot-%s-%d", name, b)}
			a.Runs = append(a.Runs, r)
		}
		return a
	}
	att, err := Attribute([]Arm{arm("on", 12), arm("off", 10), arm("no-meltdown", 11)}, []string{"on", "no-meltdown", "off"}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	wl := att.Workloads[0]
	if wl.Total == nil || wl.Total.TaxPctInterval == nil {
		t.Fatalf("total over 5+5 boots has no interval: %+v", wl.Total)
	}
	if !(wl.Total.TaxPctInterval.Lo <= wl.Total.TaxPct && wl.Total.TaxPct <= wl.Total.TaxPctInterval.Hi) || wl.Total.TaxPctInterval.Lo < 15 || wl.Total.TaxPctInterval.Hi > 25 {
		t.Errorf("total %.2f%% in [%.2f, %.2f]", wl.Total.TaxPct, wl.Total.TaxPctInterval.Lo, wl.Total.TaxPctInterval.Hi)
	}
	if len(wl.Parts) != 1 || wl.Parts[0].TaxPctInterval == nil {
		t.Errorf("leave-one-out part has no interval: %+v", wl.Parts)
	}
}
