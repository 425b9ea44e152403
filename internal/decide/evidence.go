package decide

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/bootconfig"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/mitigation"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/safetext"
	"github.com/sectax/sectax/internal/sysinfo"
)

// evidence keeps, of the arm of each option, the runs whose recorded state
// is the option's: a label is no evidence. A run counts for an option when
// the environment it recorded holds the option's command line and its
// vulnerability files are off where that line turns them off, the check a
// lab or campaign boot passes before it is measured
// (bootconfig.VerifyReported: the stored state is read again from its raw
// text, never trusted). The on arm and arms no option reads are kept as
// they are (compare then says whether anything changed between on and an
// option: sameState). The runs left out are said in a note, by option.
func evidence(opts []Option, arms []attribute.Arm, kb *mitigation.Knowledge) ([]attribute.Arm, []string) {
	var out []attribute.Arm
	var notes []string
	for _, a := range arms {
		i := slices.IndexFunc(opts, func(o Option) bool { return o.Config == a.Name && o.Name != KeepAll && o.Cmdline != "" })
		if a.Name == "on" || i < 0 {
			out = append(out, a)
			continue
		}
		o := opts[i]
		c := bootconfig.Config{Name: o.Config, Params: mitigation.ParseCmdline(o.Cmdline).Params}
		kept := attribute.Arm{Name: a.Name}
		var why []string
		for j, r := range a.Runs {
			var env map[string]any
			if j < len(a.Envs) {
				env = a.Envs[j]
			}
			v := bootconfig.VerifyReported(snapshotOf(r, env), c, nil, nil, kb)
			if !v.OK {
				why = append(why, fmt.Sprintf("%s: %s", safetext.Line(runID(r)), safetext.Line(v.Reasons[0])))
				continue
			}
			kept.Runs = append(kept.Runs, r)
			kept.Envs = append(kept.Envs, env)
		}
		if len(why) > 0 {
			notes = append(notes, fmt.Sprintf("%d of the %d runs labelled %s do not record %s's state (%s), so they are no evidence of its saving and are left out: %s",
				len(why), len(a.Runs), safetext.Line(a.Name), o.Name, o.Cmdline, strings.Join(why, "; ")))
		}
		if len(kept.Runs) > 0 {
			out = append(out, kept)
		}
	}
	return out, notes
}

// snapshotOf is the environment a stored run recorded: its own, or the
// stored environment document beside it; nil when it recorded none.
func snapshotOf(r *run.Run, env map[string]any) *sysinfo.Snapshot {
	if r != nil && r.Env != nil {
		return r.Env
	}
	if env == nil {
		return nil
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil
	}
	var s sysinfo.Snapshot
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

func runID(r *run.Run) string {
	if r == nil {
		return "a run"
	}
	return "run " + r.ID
}

// sameState is compare's conclusion of an option's configuration against
// on: true when no mitigation differs between their runs as recorded
// (command line, vulnerability files, per-process controls), the
// comparison `sectax compare on CONFIG` draws of the same runs.
func sameState(att *attribute.Attribution, config string) bool {
	return slices.ContainsFunc(att.Conclusions, func(sc compare.SideConclusion) bool {
		return sc.Side == config && sc.Conclusion.Kind == compare.ConclusionSameMitigations
	})
}
