package attribute

import (
	"fmt"
	"slices"

	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/sysinfo"
)

// AddRuns adds runs to the arm named name, a new arm at the end when
// there is none yet.
func AddRuns(arms []Arm, name string, runs ...*run.Run) []Arm {
	return addRuns(arms, name, runs, nil)
}

// addRuns adds runs with their stored environments envs (parallel to
// runs, or nil) to the arm named name, keeping the arm's Envs parallel to
// its Runs.
func addRuns(arms []Arm, name string, runs []*run.Run, envs []map[string]any) []Arm {
	if envs == nil {
		envs = make([]map[string]any, len(runs))
	}
	for i := range arms {
		if arms[i].Name == name {
			arms[i].Runs = append(arms[i].Runs, runs...)
			arms[i].Envs = append(arms[i].Envs, envs...)
			return arms
		}
	}
	return append(arms, Arm{Name: name, Runs: runs, Envs: envs})
}

// Arms groups stored runs into arms: a run belongs to the configuration
// named in its config block (lab, campaign) or, without one, to its label
// when the label is a plan name; other runs are left out. envs are the
// runs' stored environments (parallel to runs, or nil).
func Arms(runs []*run.Run, envs []map[string]any) []Arm {
	var arms []Arm
	for i, r := range runs {
		name := r.Label
		if r.Config != nil {
			name = r.Config.Name
		} else if KindOf(name) == "extra" {
			continue
		}
		var env []map[string]any
		if i < len(envs) {
			env = envs[i : i+1]
		}
		arms = addRuns(arms, name, []*run.Run{r}, env)
	}
	return arms
}

// WaterfallOrder is the plan's cumulative order for the kernel the on runs
// measured, or, without their environment, on, the cumulative steps by
// number, then off.
func WaterfallOrder(arms []Arm, kb *mitigation.Knowledge) []string {
	for _, a := range arms {
		if kb == nil || a.Name != "on" || len(a.Runs) == 0 || a.Runs[0].Env == nil {
			continue
		}
		if p, err := MakeDesign(a.Runs[0].Env, kb); err == nil {
			return p.Cumulative
		}
	}
	order := []string{"on"}
	for n := 1; n < 100; n++ {
		if slices.ContainsFunc(arms, func(a Arm) bool { return a.Name == fmt.Sprintf("cum-%d", n) }) {
			order = append(order, fmt.Sprintf("cum-%d", n))
		}
	}
	return append(order, "off")
}

// CheckSelection refuses a --plan value that is not a plan kind.
func CheckSelection(kind string) error {
	return exit.Choose("--plan", kind, Selections...)
}

// SelectFor is the selection of kind from the attribution plan of the
// kernel of snap (MakeDesign, then Design.Select); the plan's kernel is
// returned with it for the notice that names it.
func SelectFor(snap *sysinfo.Snapshot, kind string) (*Selection, string, error) {
	kb, err := mitigation.KnowledgeBase()
	if err != nil {
		return nil, "", err
	}
	p, err := MakeDesign(snap, kb)
	if err != nil {
		return nil, "", err
	}
	sel, err := p.Select(kind)
	if err != nil {
		return nil, "", exit.Wrap(exit.Usage, err)
	}
	return sel, p.Kernel, nil
}
