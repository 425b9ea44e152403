package lab

import (
	"math/rand/v2"

	"github.com/sectax/sectax/internal/bootconfig"
)

// Step is one VM boot of a plan.
type Step struct {
	// Index is the boot's place in the plan, 1-based.
	Index  int
	Kernel int
	Config bootconfig.Config
	// Round is the repetition (1-based): every kernel and configuration
	// boots once per round.
	Round int
	Label string
}

// Label is the label of a lab run: PREFIX-KERNEL-CONFIG.
func Label(prefix, kernel, cfg string) string { return prefix + "-" + kernel + "-" + cfg }

// Schedule is the order of the boots: rounds 1..boots, each booting every
// kernel under every configuration once, in an order shuffled per round
// with seed, so that drift on the host hits every configuration alike and
// the boot, not the repetition, is the unit of the comparison.
func Schedule(prefix string, kernels []string, configs []bootconfig.Config, boots int, seed int64) []Step {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5ec7a7))
	var out []Step
	for r := 1; r <= boots; r++ {
		var round []Step
		for k := range kernels {
			for _, c := range configs {
				round = append(round, Step{Kernel: k, Config: c, Round: r, Label: Label(prefix, kernels[k], c.Name)})
			}
		}
		rng.Shuffle(len(round), func(i, j int) { round[i], round[j] = round[j], round[i] })
		// Successive rounds must not put the same boot back to back: it
		// would measure one configuration twice in a row at the seam.
		if n := len(out); n > 0 && len(round) > 1 && round[0].Label == out[n-1].Label {
			round[0], round[len(round)-1] = round[len(round)-1], round[0]
		}
		out = append(out, round...)
	}
	for i := range out {
		out[i].Index = i + 1
	}
	return out
}
