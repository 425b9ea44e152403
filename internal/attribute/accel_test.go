package attribute

import (
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
)

// TestReportNamesTheRunsOfEachWay: bare runs beside a lab's (issue 47)
// are refused as a usage error that names the runs of each way by
// configuration and the --config that takes one way's.
func TestReportNamesTheRunsOfEachWay(t *testing.T) {
	mk := func(id string, lab bool) *run.Run {
		r := &run.Run{Schema: run.Schema, ID: id, Status: run.StatusComplete, Results: []run.Result{{Workload: "syscall-basic",
			Metrics: []run.Metric{{Name: "usecs_per_op", Better: run.Lower, Samples: []float64{1, 1.01, 0.99, 1, 1.02}}}}}}
		if lab {
			r.Lab, r.Config = &run.Lab{Accel: "kvm"}, &run.Config{Name: "x"}
		}
		return r
	}
	arms := []Arm{
		{Name: "on", Runs: []*run.Run{mk("20261207T100000-aaaaaa", false), mk("20261207T110000-cccccc", true)}},
		{Name: "off", Runs: []*run.Run{mk("20261207T100100-bbbbbb", false), mk("20261207T110100-dddddd", true)}},
	}
	_, err := Report(arms, compare.Options{})
	if err == nil || exit.Of(err) != exit.Usage {
		t.Fatalf("Report: %v, want a usage error", err)
	}
	for _, want := range []string{
		"lab runs under kvm (on: 20261207T110000-cccccc; off: 20261207T110100-dddddd)",
		"runs on the machine itself (on: 20261207T100000-aaaaaa; off: 20261207T100100-bbbbbb)",
		"e.g. sectax attribute report --config on=20261207T110000-cccccc --config off=20261207T110100-dddddd",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
