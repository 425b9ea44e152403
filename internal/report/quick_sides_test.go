package report

import (
	"time"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// quickSides are two runs of the whole quick suite with the parameters and
// medians of the README's real run (B is A with the mitigations' cost
// taken away, workload by workload), labelled as a user labels them: the
// widest report a first run gives.
func quickSides() (compare.Side, compare.Side) {
	t0 := time.Date(2026, 12, 1, 21, 41, 44, 0, time.UTC)
	type m struct {
		name, unit string
		better     run.Better
		median     float64
	}
	type w struct {
		id     string
		params map[string]any
		ms     []m
		off    float64 // B's median / A's, primary metric
	}
	wls := []w{
		{"syscall-basic", map[string]any{"loops": int64(1000000)}, []m{{"usecs_per_op", "µs/op", run.Lower, 1.085}, {"ops_per_sec", "ops/s", run.Higher, 922095}}, 0.398},
		{"sched-pipe", map[string]any{"loops": int64(50000), "mode": "process", "spawn": "fork", "style": "pingpong"}, []m{{"usecs_per_op", "µs/op", run.Lower, 19.72}, {"ops_per_sec", "ops/s", run.Higher, 50810}}, 0.62},
		{"sched-messaging", map[string]any{"groups": int64(5), "ipc": "socket", "loops": int64(100), "mode": "process", "spawn": "fork"}, []m{{"total_s", "s", run.Lower, 0.6514}, {"work_s", "s", run.Lower, 0.6477}}, 0.81},
		{"go-build", map[string]any{"dir": "", "target": "math math/cmplx unicode image/color/palette container/list"}, []m{{"wall_s", "s", run.Lower, 1.502}, {"user_s", "s", run.Lower, 1.077}, {"sys_s", "s", run.Lower, 0.7569}, {"cpu_pct", "%", run.Higher, 122.1}, {"nvcsw", "switches", run.Lower, 3132}, {"nivcsw", "switches", run.Lower, 2572}, {"max_rss_kb", "KiB", run.Lower, 59882}}, 0.9},
		{"spawn", map[string]any{"loops": int64(200), "program": "tiny"}, []m{{"usecs_per_spawn", "µs/spawn", run.Lower, 1373}, {"spawns_per_sec", "spawns/s", run.Higher, 728.3}}, 0.7},
		{"file-churn", map[string]any{"dir": "$TMPDIR", "files": int64(500), "fsync": "no", "size": int64(4096)}, []m{{"usecs_per_file", "µs/file", run.Lower, 274.7}, {"files_per_sec", "files/s", run.Higher, 3662}}, 0.75},
		{"ctl-user", map[string]any{"loops": int64(50000000)}, []m{{"nsecs_per_op", "ns/op", run.Lower, 1.877}}, 1},
		{"ctl-vdso", map[string]any{"loops": int64(5000000)}, []m{{"nsecs_per_op", "ns/op", run.Lower, 33}}, 1},
	}
	spread := []float64{0.97, 0.99, 1, 1.01, 1.03, 1.06} // drifting up, as a warming machine does
	mk := func(id, label string, off bool) *run.Run {
		r := &run.Run{Schema: run.Schema, ID: id, Label: label, Started: t0, Status: run.StatusComplete, Suite: "quick",
			Engine: "native", ToolVersion: "0.1.0", Repetitions: 6, Warmup: 1}
		for _, wl := range wls {
			res := run.Result{Workload: wl.id, Params: wl.params}
			for _, mm := range wl.ms {
				f := 1.0
				if off {
					f = wl.off
					if mm.better == run.Higher {
						f = 1 / wl.off
					}
				}
				xs := make([]float64, len(spread))
				for i, s := range spread {
					xs[i] = mm.median * f * s
				}
				res.Metrics = append(res.Metrics, metric(mm.name, mm.unit, mm.better, xs...))
			}
			r.Results = append(r.Results, res)
		}
		return r
	}
	env := func(mode, boot, cmd string) map[string]any {
		return map[string]any{"kernel": map[string]any{"release": "6.18.44-fc-v1045"}, "cmdline": map[string]any{"raw": cmd},
			"mitigation_mode": mode, "boot_id": boot, "hostname": "dev",
			"cpu": map[string]any{"model_name": "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "microcode": "0xd0003b9"}}
	}
	a := compare.RunsSide("mitigations-default", compare.KindLabel, []*run.Run{mk("20261201T214144-b61ccf", "mitigations-default", false)},
		[]map[string]any{env("auto", "b1", "console=ttyS0 reboot=k panic=1")})
	b := compare.RunsSide("mitigations-off", compare.KindLabel, []*run.Run{mk("20261201T220101-c0ffee", "mitigations-off", true)},
		[]map[string]any{env("off", "b2", "console=ttyS0 reboot=k panic=1 mitigations=off")})
	return a, b
}
