package attribute

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/exit"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sides"
	"github.com/sectax/sectax/internal/store"
)

// ConfigArms are the arms of 'sectax attribute report --config NAME=REF':
// each configuration's runs from its reference (a run id, prefix or
// label), loaded by load. A malformed NAME=REF or a published baseline (no
// samples) is a usage error.
func ConfigArms(ctx context.Context, load *sides.Loader, configs []string) ([]Arm, error) {
	var arms []Arm
	for _, c := range configs {
		name, ref, ok := strings.Cut(c, "=")
		if !ok || name == "" || ref == "" {
			return nil, exit.Usagef("--config %q: give NAME=REF, e.g. on=label-on", c)
		}
		side, err := load.Side(ctx, ref)
		if err != nil {
			return nil, err
		}
		if side.Published() {
			return nil, exit.Usagef("--config %s: a published baseline has no samples to attribute", c)
		}
		arms = addRuns(arms, name, side.Runs, side.Envs)
	}
	return arms, nil
}

// StoredArms are the arms of every run stored in db, each in the
// configuration of its config block or its label (Arms).
func StoredArms(ctx context.Context, db *store.DB) ([]Arm, error) {
	ids, err := db.RunIDs(ctx)
	if err != nil {
		return nil, err
	}
	runs, envs, err := sides.Load(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	return Arms(runs, envs), nil
}

// Report attributes the arms' taxes (Attribute in the plan's waterfall
// order) and cites the knowledge base's published costs; without an on
// arm the error names the fix.
func Report(arms []Arm, opt compare.Options) (*Attribution, error) {
	if err := oneAccelerator(arms); err != nil {
		return nil, err
	}
	kb, _ := mitigation.KnowledgeBase()
	att, err := AttributeWith(arms, WaterfallOrder(arms, kb), opt)
	if errors.Is(err, ErrNoOn) {
		return nil, fmt.Errorf("%w: label a run of the default command line on, or give --config on=REF", err)
	}
	if err != nil {
		return nil, err
	}
	if kb != nil {
		CiteCosts(att, kb)
	}
	return att, nil
}

// oneAccelerator refuses arms whose runs were measured in different ways
// (bare runs beside lab runs, KVM beside TCG: compare.Accelerators), whose
// timings no comparison takes together, naming the runs of each way by
// configuration so that the user can give one way's with --config.
func oneAccelerator(arms []Arm) error {
	var all []*run.Run
	for _, a := range arms {
		all = append(all, a.Runs...)
	}
	accels, _, mixed := compare.Accelerators(all)
	if !mixed {
		return nil
	}
	var parts []string
	var hint []string
	for _, accel := range accels {
		var byArm []string
		for _, a := range arms {
			var ids []string
			for _, r := range a.Runs {
				if got, _, _ := compare.Accelerators([]*run.Run{r}); len(got) == 1 && got[0] == accel {
					ids = append(ids, r.ID)
				}
			}
			if len(ids) > 0 {
				byArm = append(byArm, fmt.Sprintf("%s: %s", safetext.Line(a.Name), safetext.Line(strings.Join(ids, ", "))))
				if accel == accels[0] {
					hint = append(hint, fmt.Sprintf("--config %s=%s", safetext.Line(a.Name), safetext.Line(ids[0])))
				}
			}
		}
		way := "lab runs under " + accel
		if accel == "none" {
			way = "runs on the machine itself"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", way, strings.Join(byArm, "; ")))
	}
	return exit.Usagef("the stored runs were measured in different ways, whose timings are not comparable: %s; "+
		"attribute one way's runs with --config NAME=REF for each configuration (a run id or a label), e.g. sectax attribute report %s",
		strings.Join(parts, "; "), strings.Join(hint, " "))
}
