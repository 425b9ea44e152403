package lab

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sectax/sectax/internal/bootconfig"
)

// Kernel is one kernel of a plan: the name its labels use, its image, and
// the modules its initramfs carries.
type Kernel struct {
	Name       string
	Image      KernelImage
	ModulesDir string
	Modules    []Module
}

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

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// KernelNames names the kernels of a plan for their labels: the release of
// each image (6.1.0-57-amd64), else its file name without "vmlinuz-";
// when two would get the same name, the position is added (k1, k2).
func KernelNames(images []KernelImage) []string {
	names := make([]string, len(images))
	count := map[string]int{}
	for i, k := range images {
		n := k.Release
		if n == "" {
			n = strings.TrimPrefix(filepath.Base(k.Path), "vmlinuz-")
		}
		n = strings.Trim(unsafeName.ReplaceAllString(n, "_"), "_")
		if n == "" {
			n = "kernel"
		}
		names[i] = n
		count[n]++
	}
	for i := range names {
		if count[names[i]] > 1 {
			names[i] = fmt.Sprintf("k%d-%s", i+1, names[i])
		}
	}
	return names
}

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
