package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// Warning kinds of a comparison, beside those of package stats (which
// words its own: too few samples for an interval or a test, high variance,
// a failed test, no samples), as hyperfine keeps one enum of warnings.
// Every warning a comparison carries is of a kind in Kinds, and each kind
// is worded once: by stats, or by one function of this file.
const (
	KindUnitMismatch        stats.Kind = "unit-mismatch"
	KindControlMoved        stats.Kind = "control-moved"
	KindControlInconclusive stats.Kind = "control-inconclusive"
	KindOneBoot             stats.Kind = "one-boot"
	KindIncompleteRun       stats.Kind = "incomplete-run"
	KindConfounded          stats.Kind = "confounded"
	KindSameMitigations     stats.Kind = "same-mitigations"
	KindMixedSide           stats.Kind = "mixed-side"
	// KindEmulated is the warning of a comparison of runs measured under
	// TCG.
	KindEmulated stats.Kind = "emulated"
)

// Kinds are every kind of warning a comparison can carry, in the order of
// the JSON documentation.
var Kinds = []stats.Kind{
	stats.KindFewSamplesCI, stats.KindFewSamplesTest, stats.KindHighVariance, stats.KindTestFailed, stats.KindNoSamples,
	KindUnitMismatch, KindControlMoved, KindControlInconclusive, KindOneBoot, KindIncompleteRun,
	KindConfounded, KindSameMitigations, KindMixedSide, KindEmulated,
}

// HasWarning reports whether the report carries a warning of this kind.
func (rep *Report) HasWarning(k stats.Kind) bool {
	for _, w := range rep.Warnings {
		if w.Kind == k {
			return true
		}
	}
	return false
}

// warnNoSamples: workloads not compared because a side has no samples.
func warnNoSamples(workloads []string) stats.Warning {
	return stats.NewWarning(stats.KindNoSamples,
		"not compared, no samples on a side (a run cut short?): "+strings.Join(workloads, "; "), "")
}

func warnUnitMismatch(name, unitA, unitB string) stats.Warning {
	return stats.NewWarning(KindUnitMismatch, fmt.Sprintf("A measures %s in %q but B in %q", name, unitA, unitB), "")
}

// warnOneBoot: the sides named (of sides) hold one boot each.
func warnOneBoot(names []string, sides []Side) stats.Warning {
	return stats.NewWarning(KindOneBoot, fmt.Sprintf(
		"one boot per side (%s): boot-to-boot variation is not in the intervals; %s, so that the boot becomes the unit",
		strings.Join(names, ", "), moreBoots(sides)), "")
}

// warnIncompleteRun: run r of side ref did not complete.
func warnIncompleteRun(r *run.Run, ref string) stats.Warning {
	return stats.NewWarning(KindIncompleteRun, fmt.Sprintf(
		"run %s (%s) is %s: the samples it finished are used", r.ID, ref, r.Status), "")
}

// warnConfounded: the names of what differs besides the mitigations.
func warnConfounded(names []string) stats.Warning {
	verb := "differs"
	if len(names) > 1 {
		verb = "differ"
	}
	return stats.NewWarning(KindConfounded, fmt.Sprintf(
		"besides the mitigations, %s %s: the tax measured here may not be the mitigations' alone", strings.Join(names, ", "), verb), "")
}

func warnSameMitigations(mode string) stats.Warning {
	return stats.NewWarning(KindSameMitigations, fmt.Sprintf(
		"both sides ran with mitigations %s and no vulnerability changed state: this comparison does not measure a mitigation change", mode), "")
}

func warnMixedSide(s SideInfo) stats.Warning {
	return stats.NewWarning(KindMixedSide, fmt.Sprintf(
		"%s mixes runs with mitigations %s: give each side runs of one setting", s.Ref, strings.Join(s.MitigationMode, " and ")), "")
}

// warnControlMoved: negative control id moved significantly in m; the
// message is also its ControlFinding's.
func warnControlMoved(id string, m Metric) stats.Warning {
	return stats.NewWarning(KindControlMoved, fmt.Sprintf("negative control %s moved %s in %s (p=%.3f) although it does not depend on the mitigations: "+
		"the comparison is confounded (CPU frequency, host load or different hardware), so changes of about %.1f%% elsewhere may not be the mitigations' doing",
		id, stats.FormatPct(m.ChangePct), m.Name, m.Test.P, math.Abs(m.ChangePct)), "")
}

// warnControlInconclusive: negative control id did not move, but its
// half-width hw is too wide to vouch for what; the message is also its
// ControlFinding's.
func warnControlInconclusive(id string, p, detectable float64, what string) stats.Warning {
	noisy := fmt.Sprintf("it could not have seen less than %s (80%% power at its spread)", pctText(detectable))
	if math.IsInf(detectable, 0) {
		noisy = "it has no interval of its change (too few samples, or sides of different units)"
	}
	return stats.NewWarning(KindControlInconclusive, fmt.Sprintf("negative control %s did not move significantly (p=%.3f), but %s, so it cannot vouch for %s: "+
		"it cannot show whether clock speed or load changed between the sides", id, p, noisy, what),
		"quiet the machine (no other load, fixed CPU frequency) or run more repetitions")
}

// warnEmulated: the runs were measured under QEMU's TCG.
func warnEmulated() stats.Warning {
	return stats.NewWarning(KindEmulated, TCGHeadline+": QEMU's TCG emulated the CPU, so only the kernel's mitigation decisions "+
		"(command line, vulnerability files) are real; emulated syscalls, context switches and TLB flushes cost nothing like the hardware's",
		"measure the costs under KVM (sectax lab --accel kvm) or on the machine itself (sectax campaign)")
}

// fixMoreBoots replaces stats.FixMoreRepetitions when a sample is a boot.
const fixMoreBoots = "measure in more boots (reboot, run again with the same label)"

// addMetricWarnings adds the statistical warnings of the metrics, once per
// message, naming where (at most four places, then how many more); where a
// sample is a boot, the fix of too few samples is more boots.
func (rep *Report) addMetricWarnings(a, b Side) {
	type place struct {
		msg  string
		kind stats.Kind
	}
	where := map[place][]string{}
	var order []place
	for _, w := range rep.Workloads {
		for _, m := range w.Metrics {
			add := func(side string, ws []stats.Warning) {
				for _, x := range ws {
					if x.Fix == stats.FixMoreRepetitions && (side == " (A)" && rep.A.Unit == "boot" || side == " (B)" && rep.B.Unit == "boot" ||
						side == "" && (rep.A.Unit == "boot" || rep.B.Unit == "boot")) {
						// A sample is a boot here: more repetitions do not help.
						x = x.WithFix(moreBootsFix([]Side{a, b}))
					}
					p := place{x.Message, x.Kind}
					if _, ok := where[p]; !ok {
						order = append(order, p)
					}
					where[p] = append(where[p], w.ID+" "+m.Name+side)
				}
			}
			add(" (A)", m.A.Warnings)
			add(" (B)", m.B.Warnings)
			if m.Test != nil {
				add("", m.Test.Warnings)
			}
			add("", m.Warnings)
		}
	}
	for _, p := range order {
		places := where[p]
		sort.Strings(places)
		if len(places) > 4 {
			places = append(places[:4], fmt.Sprintf("and %d more", len(places)-4))
		}
		rep.Warnings = append(rep.Warnings, stats.Warning{Kind: p.kind, Message: p.msg + " [" + strings.Join(places, ", ") + "]"})
	}
}

// moreBootsFix is the fix for too few samples when a sample is a boot, in
// the words of the command that measured the sides (as moreBoots): a lab
// and a campaign get more boots with --boots, anything else by rebooting.
func moreBootsFix(sides []Side) string {
	switch moreBoots(sides) {
	case moreBootsLab:
		return "measure in more boots (run sectax lab again with a larger --boots)"
	case moreBootsCampaign:
		return "measure in more boots (sectax campaign start with a larger --boots)"
	}
	return fixMoreBoots
}

// moreBoots is the fix for sides of one boot, in the words of the command
// that measured them: a lab boots again with --boots, a campaign with
// campaign start --boots, anything else after a reboot of this machine.
const (
	moreBootsLab      = "run sectax lab again with --boots 2 or more"
	moreBootsCampaign = "run the campaign with --boots 2 or more (sectax campaign start --boots N)"
)

func moreBoots(sides []Side) string {
	lab, campaign, all := true, true, 0
	for _, s := range sides {
		for _, r := range s.Runs {
			all++
			lab = lab && r.Lab != nil
			campaign = campaign && r.Campaign != nil && r.Lab == nil
		}
	}
	switch {
	case all > 0 && lab:
		return moreBootsLab
	case all > 0 && campaign:
		return moreBootsCampaign
	}
	return "repeat each side after another reboot with the same label"
}
