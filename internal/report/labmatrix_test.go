package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/lab"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// labSide is a label of a lab plan: boots runs of one kernel and
// configuration, each with its own boot id and samples scaled by factor.
func labSide(label, kernel, cmdline, spectre string, boots int, factor float64) compare.Side {
	var runs []*run.Run
	var envs []map[string]any
	for b := 0; b < boots; b++ {
		var s []float64
		for i := 0; i < 6; i++ {
			s = append(s, factor*(1+0.01*float64((i*7+b*3)%5)))
		}
		runs = append(runs, &run.Run{
			Schema: run.Schema, ID: fmt.Sprintf("%s-%d", label, b), Label: label, Status: run.StatusComplete,
			Started: time.Date(2026, 12, 1, 0, b, 0, 0, time.UTC), Lab: &run.Lab{Accel: "tcg"},
			Results: []run.Result{{Workload: "syscall-basic", Params: map[string]any{"loops": 2000},
				Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: s}}}},
		})
		envs = append(envs, map[string]any{
			"boot_id": fmt.Sprintf("%s-boot-%d", label, b),
			"kernel":  map[string]any{"release": kernel},
			"cmdline": map[string]any{"raw": cmdline},
			"vulnerabilities": []any{
				map[string]any{"name": "spectre_v2", "raw": spectre, "state": map[bool]string{true: "vulnerable", false: "mitigated"}[spectre == "Vulnerable"]},
			},
		})
	}
	return compare.RunsSide(label, compare.KindLabel, runs, envs)
}

func TestLabMatrixGolden(t *testing.T) {
	const base = "console=ttyS0 panic=-1 no_timer_check"
	k1on := labSide("lab-k1-on", "6.6", base, "Mitigation: Retpolines", 2, 50)
	k1off := labSide("lab-k1-off", "6.6", base+" mitigations=off", "Vulnerable", 2, 2)
	k2on := labSide("lab-k2-on", "6.18", base, "Mitigation: Retpolines", 2, 40)
	k2off := labSide("lab-k2-off", "6.18", base+" mitigations=off", "Vulnerable", 2, 2.1)
	named := func(s compare.Side, name string) compare.Side {
		s.Ref = name
		return s
	}
	var gs []lab.Group
	for _, g := range []struct {
		title string
		sides []compare.Side
	}{
		{"tax against on, kernel k1", []compare.Side{named(k1on, "on"), named(k1off, "off")}},
		{"tax against on, kernel k2", []compare.Side{named(k2on, "on"), named(k2off, "off")}},
		{"change between kernels, configuration on", []compare.Side{named(k1on, "k1"), named(k2on, "k2")}},
		{"change between kernels, configuration off", []compare.Side{named(k1off, "k1"), named(k2off, "k2")}},
	} {
		c, err := compare.CompareSides(g.sides, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, lab.Group{Title: g.title, Comparison: c})
	}
	var b strings.Builder
	m := &lab.Matrix{Headline: []string{compare.TCGHeadline, "lab matrix: 2 kernel(s) × 2 configurations, accelerator tcg"}, Groups: gs}
	if err := LabMatrix(&b, m); err != nil {
		t.Fatal(err)
	}
	fitsWidths(t, "lab matrix", func(w io.Writer) error { return LabMatrix(w, m) })
	out := b.String()
	testutil.Golden(t, filepath.Join("testdata", "lab-matrix.text"), []byte(out))
	if !strings.Contains(out, "B vs A: command line +mitigations=off; 1 vulnerability files changed") {
		t.Error("the command-line and vulnerability changes are missing")
	}
	if !strings.Contains(out, "B vs A: command line same; 0 vulnerability files changed; also differs: kernel release") {
		t.Error("the kernel change is not named")
	}
}
