package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
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

// ErrMixedAccelerators is a comparison whose runs were measured under
// different accelerators; the error is a *MixedAcceleratorsError.
var ErrMixedAccelerators = exit.New(exit.Usage, "the sides were measured under different accelerators")

// MixedAcceleratorsError refuses a comparison whose runs mix accelerators
// (TCG with KVM, or a VM with the machine itself): their timings measure
// different machines, so no difference between them is a tax. It is a
// usage error (exit status 2).
type MixedAcceleratorsError struct {
	// Sides are the sides' references and, per side, its accelerators
	// ("none": measured on a machine itself).
	Sides  []string
	Accels [][]string
}

func (e *MixedAcceleratorsError) Error() string {
	var parts []string
	for i, s := range e.Sides {
		parts = append(parts, s+" "+strings.Join(e.Accels[i], "+"))
	}
	return fmt.Sprintf("%v (%s; none = on the machine itself): timings of an emulator, a VM and a bare machine are not comparable; "+
		"compare runs measured the same way (lab runs of one --accel with each other, bare runs with bare runs)",
		ErrMixedAccelerators, strings.Join(parts, "; "))
}

// Unwrap makes errors.Is(err, ErrMixedAccelerators) hold.
func (e *MixedAcceleratorsError) Unwrap() error { return ErrMixedAccelerators }

// ExitKind makes it a usage error: the sides chosen cannot be compared.
func (e *MixedAcceleratorsError) ExitKind() exit.Kind { return exit.Usage }

// LabNote is how the runs of a comparison were measured when `sectax lab`
// measured them in QEMU guests (nil in a Report measured on a machine
// itself).
type LabNote struct {
	// Accel is the accelerator every run ran under (kvm or tcg); Emulated
	// is set under tcg, where timings are emulator artefacts.
	Accel    string `json:"accel"`
	Emulated bool   `json:"emulated"`
	// CPUModels are the QEMU CPU models of the runs (-cpu).
	CPUModels []string `json:"cpu_models"`
}

// KVMNote is the note of a comparison of runs measured in KVM guests.
const KVMNote = "measured in KVM guests: the guest kernel chose its mitigations for the CPU QEMU presented, " +
	"and the figures estimate what those mitigations cost in a guest, not on the bare machine"

// checkAccelerators refuses sides whose runs mix accelerators and returns
// how they were measured (nil: on a machine itself).
func checkAccelerators(sides []Side) (*LabNote, error) {
	var all []*run.Run
	e := &MixedAcceleratorsError{}
	for _, s := range sides {
		all = append(all, s.Runs...)
		accels, _, _ := Accelerators(s.Runs)
		e.Sides = append(e.Sides, s.Ref)
		e.Accels = append(e.Accels, accels)
	}
	accels, tcg, mixed := Accelerators(all)
	if mixed {
		return nil, e
	}
	if len(accels) != 1 || accels[0] == "none" {
		return nil, nil
	}
	note := &LabNote{Accel: accels[0], Emulated: tcg, CPUModels: []string{}}
	seen := map[string]bool{}
	for _, r := range all {
		if m := r.Lab.CPUModel; m != "" && !seen[m] {
			seen[m] = true
			note.CPUModels = append(note.CPUModels, m)
		}
	}
	sort.Strings(note.CPUModels)
	return note, nil
}

// addLab records how the runs were measured: under TCG the headline of
// the conclusion and the first warning, under KVM a note.
func (rep *Report) addLab(note *LabNote) {
	if note == nil {
		return
	}
	rep.Lab = note
	if !note.Emulated {
		rep.Notes = append([]string{KVMNote}, rep.Notes...)
		return
	}
	rep.Conclusion.Headline = TCGHeadline
	rep.Warnings = append([]stats.Warning{warnEmulated()}, rep.Warnings...)
}

// WidestIntervalPct is how precisely the report knows its differences:
// the largest half-width, in percentage points of the change, of the
// ratio intervals of the primary metrics of its workloads (negative
// controls aside); +Inf when one has no interval yet (too few samples, or
// sides of different units). Adaptive repetition boots until it is small.
func (rep *Report) WidestIntervalPct() float64 {
	widest, any := 0.0, false
	for _, w := range rep.Workloads {
		if w.Control || len(w.Metrics) == 0 {
			continue
		}
		any = true
		iv := w.Metrics[0].RatioInterval
		if iv == nil {
			return math.Inf(1)
		}
		lo, hi := iv.ChangePct()
		widest = math.Max(widest, (hi-lo)/2)
	}
	if !any {
		return math.Inf(1)
	}
	return widest
}
