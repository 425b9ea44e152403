package compare

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/run"
)

// TestBootShare: a side of several boots says how much of its spread is
// boot-to-boot; a side of one boot has no share (null).
func TestBootShare(t *testing.T) {
	p := map[string]any{"loops": int64(1)}
	mk := func(id, label string, xs ...float64) *run.Run {
		return mkRun(id, label, res("sched-pipe", p, lower("usecs_per_op", xs...)))
	}
	// A: boots {1,3}, {5,7}, {9,11} (a3 and a4 share a boot): σ²_within
	// 2, σ²_between 15 (stats.TestVarianceLevels), share 15/17 = 88.2%.
	a := []*run.Run{mk("a1", "on", 1, 3), mk("a2", "on", 5, 7), mk("a3", "on", 9), mk("a4", "on", 11)}
	ea := []map[string]any{envOn(), envOn(), envOn(), envOn()}
	ea[1]["boot_id"], ea[2]["boot_id"], ea[3]["boot_id"] = "on-2", "on-3", "on-3"
	b := []*run.Run{mk("b1", "off", 4, 5, 6)}
	rep, err := pair(side("on", a, ea...), side("off", b, envOff()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := findMetric(t, rep, "sched-pipe", "usecs_per_op")
	if m.BootShare == nil || m.BootShare.A == nil || !near(*m.BootShare.A, 1500.0/17) || m.BootShare.B != nil {
		t.Fatalf("boot share %+v", m.BootShare)
	}
	if m.LevelsA == nil || !near(m.LevelsA.Between, 15) || !near(m.LevelsA.Within, 2) || m.LevelsB != nil {
		t.Errorf("levels %+v %+v", m.LevelsA, m.LevelsB)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"boot_share":{"a_pct":88.23529411764706,"b_pct":null}`) {
		t.Errorf("JSON %s", js)
	}

	// One boot a side: no share at all.
	rep, err = pair(side("on", a[:1], envOn()), side("off", b, envOff()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m := findMetric(t, rep, "sched-pipe", "usecs_per_op"); m.BootShare != nil || m.LevelsA != nil {
		t.Errorf("one boot a side: share %+v", m.BootShare)
	}
}
