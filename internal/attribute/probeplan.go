package attribute

import (
	"fmt"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/plan"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/workload"
)

// ProbePlan is what 'sectax attribute probes' measures on a machine whose
// per-task controls are offers: every probe workload (reg.Probes(), sized by
// suite, checked by its preflight) once per state of States, as separate
// items of runs repetitions that the runner interleaves, and a note per
// control this kernel does not offer. cpus is the --cpus list ("": no
// pinning). With no state (no control offered) the plan has no items.
func ProbePlan(reg *workload.Registry, suite workload.Suite, offers []workload.SpecCtlOffer, runs int, cpus string) (*plan.Plan, error) {
	pl := &plan.Plan{Suite: suite}
	states := States(offers)
	if len(states) == 0 {
		return pl, nil // nothing to measure, so nothing to pin either
	}
	if cpus != "" {
		var err error
		if pl.CPUs, err = plan.CPUs(cpus); err != nil {
			return nil, exit.Usagef("--cpus: %v", err)
		}
	}
	for _, off := range offers {
		if !off.Available {
			pl.Notes = append(pl.Notes, fmt.Sprintf("%s unavailable here: %s", off.Control, off.Reason))
		}
	}
	for _, pr := range reg.Probes() {
		w, err := reg.Lookup(pr.ID)
		if err != nil {
			return nil, err
		}
		p, err := workload.Resolve(w.Info(), suite, pr.Overrides)
		if err != nil {
			return nil, err
		}
		if pf, ok := w.(workload.Preflighter); ok {
			if err := pf.Preflight(p); err != nil {
				return nil, err
			}
		}
		for _, st := range states {
			pl.Items = append(pl.Items, plan.Item{Workload: workload.WithSpecCtl(w, st.Settings, offers),
				Params: p, Engine: "native", Repetitions: runs})
		}
	}
	return pl, nil
}

// ApplySpec applies the per-task controls of 'sectax run --spec' (args,
// CONTROL=STATE) to every item of pl, on the machine env describes: a
// control its kernel does not offer is a usage error with the kernel's
// reason.
func ApplySpec(args []string, env *sysinfo.Snapshot, pl *plan.Plan) error {
	settings, err := workload.ParseSpecCtl(args)
	if err != nil {
		return err
	}
	offers := workload.SpecCtlOffers(env)
	if err := workload.CheckSpecCtl(settings, offers); err != nil {
		return err
	}
	for i := range pl.Items {
		pl.Items[i].Workload = workload.WithSpecCtl(pl.Items[i].Workload, settings, offers)
	}
	return nil
}
