package report

import (
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

// largeSides are two runs of 10^5 repetitions each (syscall-basic with two
// metrics, a negative control), as `sectax import` would bring them.
func largeSides(n int) (compare.Side, compare.Side) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(id, label string, scale float64) *run.Run {
		us, ops, ctl := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range us {
			us[i] = 0.2 * scale * math.Exp(rng.NormFloat64()*0.05)
			ops[i] = 1e6 / us[i]
			ctl[i] = math.Exp(rng.NormFloat64() * 0.05)
		}
		return &run.Run{Schema: run.Schema, ID: id, Label: label, Status: run.StatusComplete, Engine: "native",
			Results: []run.Result{
				{Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)}, Metrics: []run.Metric{
					metric("usecs_per_op", "µs/op", run.Lower, us...), metric("ops_per_sec", "ops/s", run.Higher, ops...)}},
				{Workload: "ctl-user", Params: map[string]any{"loops": int64(1000)}, Metrics: []run.Metric{
					metric("usecs_per_op", "µs/op", run.Lower, ctl...)}}}}
	}
	env := func(mode, boot, cmd string) map[string]any {
		return map[string]any{"kernel": map[string]any{"release": "6.18.0"}, "cmdline": map[string]any{"raw": cmd},
			"mitigation_mode": mode, "boot_id": boot, "hostname": "bench"}
	}
	return compare.RunsSide("on", compare.KindLabel, []*run.Run{mk("on-1", "on", 1)}, []map[string]any{env("on", "b1", "root=/dev/vda")}),
		compare.RunsSide("off", compare.KindLabel, []*run.Run{mk("off-1", "off", 0.4)}, []map[string]any{env("off", "b2", "root=/dev/vda mitigations=off")})
}

// BenchmarkCompareLarge times the model (compare.CompareSides) and each format
// at 10^5 samples a side, without the store:
//
//	go test -run '^$' -bench CompareLarge -benchtime 3x ./internal/report
func BenchmarkCompareLarge(b *testing.B) {
	a, c := largeSides(100000)
	b.Run("model", func(b *testing.B) {
		for b.Loop() {
			if _, err := compare.CompareSides([]compare.Side{a, c}, compare.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	cmp := comparison(b, a, c)
	for _, f := range ComparisonFormats.Names() {
		b.Run(f, func(b *testing.B) {
			for b.Loop() {
				if err := ComparisonFormats.Render(io.Discard, f, cmp, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
