package decide

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/hostid"
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

// machineArms keeps, of the stored arms, the runs this host measured on
// this machine: runs whose host mark is this host's (hostid: a mark only
// this host's key makes, fitting only its run id) and whose kernel release
// and CPU model are the snapshot's. A saving is what an option saves here;
// a run of another host (a shared store; a row someone forged with this
// machine's kernel and CPU strings), of another kernel (a lab guest's
// Debian kernel, this host before an upgrade) or of an emulated CPU (QEMU
// under TCG) would be another machine's saving under this machine's name.
// The runs left out are counted in a note, by why; anyMachine
// (--any-machine) keeps every run and says where they were measured.
func machineArms(in Input) ([]attribute.Arm, []string) {
	here := measuredOn{in.Snap.Kernel.Release, in.Snap.CPU.ModelName}
	key, keyErr := hostid.Known(in.Root)
	var kept []attribute.Arm
	others := map[string]int{}
	var otherHost, unmarked, otherMachine, notOurs int
	used := map[string]bool{}
	// A run in two arms (a lab's on run is both its label's and its
	// configuration's) is counted once: the notes count stored runs.
	counted := map[string]bool{}
	first := func(r *run.Run) bool {
		if r == nil {
			return true
		}
		if counted[r.ID] {
			return false
		}
		counted[r.ID] = true
		return true
	}
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
			ours := r != nil && key.Recognises(r.ID, r.HostMark)
			once := first(r)
			if !ours && once {
				notOurs++
			}
			if !in.AnyMachine && (!ours || at != here) {
				if !once {
					continue
				}
				switch {
				case r == nil || r.HostMark == "":
					unmarked++
				case !ours:
					otherHost++
				default:
					otherMachine++
				}
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
	if keyErr != nil {
		notes = append(notes, fmt.Sprintf("this host's key cannot be read (%s): no stored run is recognised as measured here", safetext.Line(keyErr.Error())))
	}
	if len(others) > 0 {
		var where []string
		n := 0
		for w, c := range others {
			where = append(where, w)
			n += c
		}
		slices.Sort(where)
		var why []string
		if otherHost > 0 {
			why = append(why, fmt.Sprintf("%d by another host (its mark is not this host's key's: another host's, or made by a sectax before issue 45 from /etc/machine-id, which any user could compute, or under an earlier host.key)", otherHost))
		}
		if unmarked > 0 {
			why = append(why, fmt.Sprintf("%d without a host mark (a lab guest's, measured under another --root, or stored by a sectax before host marks)", unmarked))
		}
		if otherMachine > 0 {
			why = append(why, fmt.Sprintf("%d by this host on another kernel or CPU", otherMachine))
		}
		notes = append(notes, fmt.Sprintf("stored runs left out of the savings: %d: %s; measured on %s, not on this machine (%s); --any-machine uses them, and says so", n, strings.Join(why, ", "), strings.Join(where, "; "), here))
	}
	if in.AnyMachine && len(used) > 0 {
		var where []string
		for w := range used {
			where = append(where, w)
		}
		slices.Sort(where)
		if len(where) > 1 || where[0] != here.String() || notOurs > 0 {
			notes = append(notes, fmt.Sprintf("--any-machine: the savings come from runs measured on %s, %d of them not recognised as this host's; this machine is %s", strings.Join(where, "; "), notOurs, here))
		}
	}
	return kept, notes
}
