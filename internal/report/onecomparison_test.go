package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
)

// armOf is a side as an attribution's configuration.
func armOf(s compare.Side) attribute.Arm {
	return attribute.Arm{Name: s.Ref, Runs: s.Runs, Envs: s.Envs}
}

// TestSameAdjustedP: the same runs give the same adjusted p-value in
// compare (on off off2), in attribute report over those configurations
// and in the lab matrix's block of that kernel (issue 38).
func TestSameAdjustedP(t *testing.T) {
	on, off := holmSides()
	_, off2 := holmSides()
	off2.Ref = "no-meltdown"
	for _, r := range off2.Runs {
		r.ID += "-2"
	}
	c := comparison(t, on, off, off2)
	att, err := attribute.Attribute([]attribute.Arm{armOf(on), armOf(off), armOf(off2)}, nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := LabMatrix(&b, &lab.Matrix{Groups: []lab.Group{{Title: "tax against on, kernel k", Comparison: c}}}); err != nil {
		t.Fatal(err)
	}
	if att.Family != c.Family {
		t.Errorf("attribution family %d, compare's %d", att.Family, c.Family)
	}
	for _, wl := range att.Workloads {
		for si, rep := range c.Comparisons {
			for _, w := range rep.Workloads {
				if w.ID != wl.Workload {
					continue
				}
				want := *w.Metrics[0].PAdjusted
				var got float64
				if si == 0 {
					got = wl.Total.PAdjusted
				} else {
					got = wl.Parts[0].PAdjusted
				}
				if got != want {
					t.Errorf("%s, %s: attribute p adj %v, compare's %v", wl.Workload, rep.B.Ref, got, want)
				}
				if cell := changeCell(&w.Metrics[0]); !showsChange(b.String(), &w.Metrics[0]) {
					t.Errorf("%s, %s: the lab matrix lacks compare's cell %q", wl.Workload, rep.B.Ref, cell)
				}
			}
		}
	}
	var text bytes.Buffer
	if err := Text(&text, c, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		for _, m := range r.Sides {
			if m != nil && !showsChange(text.String(), m) {
				t.Errorf("compare's text lacks %q", changeCell(m))
			}
		}
	}
}

// TestAttributeNothingToAttribute: attribute report on an on and an off
// run whose mitigations are identical says there is nothing to attribute,
// with compare's headline, and draws no share or interaction.
func TestAttributeNothingToAttribute(t *testing.T) {
	on, off := holmSides()
	off.Envs[0] = map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": "root=/dev/vda"},
		"mitigation_mode": "on", "boot_id": "b2", "hostname": "box"}
	att, err := attribute.Attribute([]attribute.Arm{armOf(on), armOf(off)}, nil, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !att.NothingToAttribute {
		t.Fatalf("identical mitigations attributed: %+v", att.Conclusions)
	}
	for _, f := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return AttributionText(b, att) },
		func(b *bytes.Buffer) error { return AttributionMarkdown(b, att) },
		func(b *bytes.Buffer) error { return AttributionHTML(b, att) },
	} {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "nothing to attribute") || !strings.Contains(out, "no mitigation changed against A") {
			t.Errorf("no 'nothing to attribute' with compare's headline:\n%s", out)
		}
		if strings.Contains(out, "share of total") || strings.Contains(out, "interaction</td>") {
			t.Errorf("shares of noise drawn:\n%s", out)
		}
	}
}

// TestControlsOneVerdict: when one negative control moves and another does
// not, "What this means" never says the controls show no sign of a clock
// or load change while the warnings say a control moved.
func TestControlsOneVerdict(t *testing.T) {
	steady := []float64{5, 5.01, 4.99, 5.02, 4.98, 5, 5.01, 4.99}
	moved := make([]float64, len(steady))
	for i, x := range steady {
		moved[i] = x * 1.05
	}
	ctl := func(id string, xs []float64) run.Result {
		return run.Result{Workload: id, Params: map[string]any{"loops": int64(10)}, Metrics: []run.Metric{metric("usecs_per_op", "µs/op", run.Lower, xs...)}}
	}
	on, _ := holmSides(ctl("ctl-user", steady), ctl("ctl-vdso", steady))
	_, off := holmSides(ctl("ctl-user", steady), ctl("ctl-vdso", moved))
	rep := comparison(t, on, off).Comparisons[0]
	if !rep.ControlsMoved() || !rep.HasWarning(compare.KindControlMoved) {
		t.Fatalf("ctl-vdso did not move: %+v", rep.Controls)
	}
	meaning := strings.Join(Meaning(rep, "B"), "\n")
	if !slices.ContainsFunc(rep.Controls, func(c compare.ControlFinding) bool {
		return c.Workload == "ctl-user" && c.Status == compare.ControlVouches
	}) {
		t.Fatalf("ctl-user does not vouch, the case is not tested: %+v", rep.Controls)
	}
	if strings.Contains(meaning, "no sign that clock speed or load changed") {
		t.Errorf("meaning vouches while a control moved:\n%s", meaning)
	}
	if !strings.Contains(meaning, "ctl-vdso moved") && !strings.Contains(meaning, "control workloads moved") {
		t.Errorf("meaning does not say a control moved:\n%s", meaning)
	}
}

// showsChange reports whether text shows m's change cell: whole, or with
// its interval on the line below (a table wider than TextWidth).
func showsChange(text string, m *compare.Metric) bool {
	cell := changeCell(m)
	if strings.Contains(text, cell) {
		return true
	}
	iv := changeInterval(*m)
	return iv != "" && strings.Contains(text, strings.Replace(cell, " "+iv, "", 1)) && strings.Contains(text, iv)
}
