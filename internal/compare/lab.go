package compare

import (
	"sort"

	"github.com/sectax/sectax/internal/run"
)

// TCGHeadline is what every output showing a run measured under QEMU's
// TCG emulator says first.
const TCGHeadline = "emulated (TCG): timings are not hardware costs"

// Accelerators says how a set of runs was measured: the distinct lab
// accelerators among them, sorted ("none" stands for runs measured on a
// machine itself, without `sectax lab`), whether any ran under TCG, and
// whether they mix accelerators (TCG with KVM, or a VM with bare runs),
// which makes their timings incomparable.
func Accelerators(runs []*run.Run) (accels []string, tcg, mixed bool) {
	seen := map[string]bool{}
	for _, r := range runs {
		if r == nil {
			continue
		}
		a := "none"
		if r.Lab != nil && r.Lab.Accel != "" {
			a = r.Lab.Accel
		}
		if !seen[a] {
			seen[a] = true
			accels = append(accels, a)
		}
		if a == "tcg" {
			tcg = true
		}
	}
	sort.Strings(accels)
	return accels, tcg, len(accels) > 1
}
