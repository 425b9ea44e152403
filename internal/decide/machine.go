package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
)

// measuredOn is where a stored run was measured, as far as a saving is
// concerned: the kernel release and the CPU model of its environment.
type measuredOn struct{ kernel, cpu string }

// String is one line whatever the store or the root holds (a stored
// environment is foreign text: safetext.Line).
func (w measuredOn) String() string {
	k, c := safetext.Line(w.kernel), safetext.Line(w.cpu)
	if k == "" {
		k = "an unknown kernel"
	}
	if c == "" {
		c = "an unknown CPU"
	}
	return k + " on " + c
}

// machineArms keeps, of the stored arms, the runs measured on this
// machine: the same kernel release and CPU model as the snapshot. A saving
// is what an option saves here; a run of another kernel (a lab guest's
// Debian kernel, another host of a shared store) or of an emulated CPU
// (QEMU under TCG) would be another machine's saving under this machine's
// name. The runs left out are said in a note; anyMachine (--any-machine)
// keeps every run and says where they were measured.
func machineArms(in Input) ([]attribute.Arm, []string) {
	here := measuredOn{in.Snap.Kernel.Release, in.Snap.CPU.ModelName}
	var kept []attribute.Arm
	others := map[string]int{}
	used := map[string]bool{}
	for _, a := range in.Arms {
		var runs []*run.Run
		var envs []map[string]any
		for i, r := range a.Runs {
			var env map[string]any
			if i < len(a.Envs) {
				env = a.Envs[i]
			}
			k, _ := compare.Lookup(env, "kernel.release")
			c, _ := compare.Lookup(env, "cpu.model_name")
			at := measuredOn{k, c}
			if at != here && !in.AnyMachine {
				others[at.String()]++
				continue
			}
			used[at.String()] = true
			runs = append(runs, r)
			envs = append(envs, env)
		}
		if len(runs) > 0 {
			kept = append(kept, attribute.Arm{Name: a.Name, Runs: runs, Envs: envs})
		}
	}
	var notes []string
	if len(others) > 0 {
		var where []string
		n := 0
		for w, c := range others {
			where = append(where, w)
			n += c
		}
		slices.Sort(where)
		notes = append(notes, fmt.Sprintf("stored runs left out of the savings: %d, measured on %s, not on this machine (%s); --any-machine uses them, and says so", n, strings.Join(where, "; "), here))
	}
	if in.AnyMachine && len(used) > 0 {
		var where []string
		for w := range used {
			where = append(where, w)
		}
		slices.Sort(where)
		if len(where) > 1 || where[0] != here.String() {
			notes = append(notes, fmt.Sprintf("--any-machine: the savings come from runs measured on %s; this machine is %s", strings.Join(where, "; "), here))
		}
	}
	return kept, notes
}
