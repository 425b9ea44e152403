package report

import (
	"fmt"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

// MultiConclusion words the conclusion of every side against the baseline,
// in one line (the first line of every format), each side's part as its
// section words it (sideConclusion).
func MultiConclusion(c *compare.Comparison) string {
	var parts []string
	for i, sc := range c.Conclusions {
		parts = append(parts, sideConclusion(compare.SideLetter(i+1), sc.Conclusion, c.Alpha))
	}
	return strings.Join(parts, "; ")
}

// sideConclusion words one side's conclusion against the baseline A, the
// one wording for any number of sides (a pair has one side): no mitigation
// changed, no significant difference, or how many times better the side
// is overall; it starts with the side's letter.
func sideConclusion(letter string, c compare.Conclusion, alpha float64) string {
	line := sideVerdict(letter, c, alpha)
	if len(c.SpecControls) > 0 {
		var cs []string
		for _, x := range c.SpecControls {
			cs = append(cs, x.String())
		}
		line += fmt.Sprintf(" — a mitigation change: per-process controls (prctl) %s", strings.Join(cs, ", "))
	}
	return line
}

// sideVerdict is sideConclusion's verdict, before the per-process
// controls that changed.
func sideVerdict(letter string, c compare.Conclusion, alpha float64) string {
	const holm = " after Holm's correction"
	switch c.Kind {
	case compare.ConclusionSameMitigations:
		if c.Speedup > 0 {
			return fmt.Sprintf("%s: no mitigation changed against A, so its %s is no mitigation tax (noise or another difference: see its warnings)", letter, speedupWithInterval(c))
		}
		return letter + ": no mitigation changed against A: this is noise, not a tax"
	case compare.ConclusionNoDifference:
		return fmt.Sprintf("%s: no significant difference from A (no workload's primary metric differs at α = %v%s)", letter, alpha, holm) +
			overallPart(c) + equivalencePart(c.Equivalence)
	case compare.ConclusionUntested:
		switch {
		case c.Speedup <= 0:
			return letter + ": published figures, untested (no significance test is possible)"
		case c.Workloads > 1:
			return fmt.Sprintf("%s is %s as fast as A overall, as published (geometric mean of %d workloads; untested)", letter, Speedup(c.Speedup), c.Workloads)
		}
		return fmt.Sprintf("%s is %s as fast as A, as published (untested)", letter, Speedup(c.Speedup))
	}
	eq := equivalencePart(c.Equivalence)
	switch {
	case c.Speedup <= 0:
		return fmt.Sprintf("%s differs significantly from A in %d workload%s%s", letter, c.Significant, plural(c.Significant), holm) + eq
	case c.Workloads == 1:
		return fmt.Sprintf("%s is %s as fast as A (one workload, significant%s)", letter, speedupWithInterval(c), holm) + eq
	}
	return fmt.Sprintf("%s is %s as fast as A overall (geometric mean of the primary metrics; %d of %d workloads differ significantly%s)",
		letter, speedupWithInterval(c), c.Significant, c.Workloads, holm) + eq
}

// speedupWithInterval is a conclusion's speedup with its 95% interval
// ("1.25× [1.20×, 1.31×]").
func speedupWithInterval(c compare.Conclusion) string {
	s := Speedup(c.Speedup)
	if iv := speedupInterval(c.SpeedupInterval); iv != "" {
		s += " " + iv
	}
	return s
}

// overallPart is where a conclusion without a significant difference
// says how precisely it is "no difference": its overall speedup with its
// 95% interval ("; overall 1.00× [0.99×, 1.01×]"), "" without one.
func overallPart(c compare.Conclusion) string {
	if c.Speedup <= 0 || c.SpeedupInterval == nil {
		return ""
	}
	return "; overall " + speedupWithInterval(c)
}

// equivalencePart is what a conclusion says of the margin: on how many
// workloads the change is within ±M% (the "no tax beyond ±M%" a decision
// needs), beyond it, or inconclusive.
func equivalencePart(e *compare.EquivalenceCount) string {
	if e == nil {
		return ""
	}
	n := e.Within + e.Beyond + e.Inconclusive
	m := marginText(e.MarginPct)
	if e.Within == n {
		return fmt.Sprintf("; within %s on every workload (%d)", m, n)
	}
	var parts []string
	for _, p := range []struct {
		k    int
		what string
	}{{e.Within, "within " + m}, {e.Beyond, "beyond " + m}, {e.Inconclusive, "inconclusive at " + m}} {
		if p.k > 0 {
			parts = append(parts, fmt.Sprintf("%s on %d of %d workload%s", p.what, p.k, n, plural(n)))
		}
	}
	return "; " + strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Headlined puts a report's headline (compare.TCGHeadline for emulated
// runs) before its conclusion line; without one the line is as given.
func Headlined(headline, line string) string {
	if headline == "" {
		return line
	}
	return headline + " — " + line
}

// capital returns s with its first letter in upper case.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Meaning words what the comparison means, a few plain sentences laid out
// from rep.Meaning and the controls: which work gains most, what is
// unchanged, what the controls say, which protections are given up, and
// what holds inside a VM guest; l is the side's letter (B, C, …). It
// computes nothing.
func Meaning(rep *compare.Report, l string) []string {
	mn := rep.Meaning
	var out []string
	same := rep.Conclusion.Kind == compare.ConclusionSameMitigations
	if same {
		out = append(out, "Both sides ran with the same mitigation settings, so what follows is not a mitigation tax: "+
			"any difference is noise, load or another change between the runs (see the warnings).")
	}
	published := rep.A.Published || rep.B.Published
	qual := "significantly"
	if published {
		qual = "as published (no significance test is possible on single figures)"
	}
	if len(mn.Moved) > 0 {
		top := mn.Moved[0]
		verb := "gains most"
		if top.ImpactPct < 0 {
			verb = "loses most"
		}
		if same {
			verb, qual = "differs most between the runs", "a difference between the runs (another kernel or build, drift, load), not a mitigation's"
		}
		path := ""
		if top.Stresses != "" {
			path = ", which stresses " + top.Stresses + ","
		}
		out = append(out, fmt.Sprintf("%s%s %s: %s is %s as fast as A (%s %s), %s.",
			top.Workload, path, verb, l, Speedup(top.Speedup), top.Metric, delta(top.Verdict == compare.VerdictSame, top.ChangePct), qual))
		if len(mn.Moved) > 1 {
			var rest []string
			for _, r := range mn.Moved[1:] {
				s := r.Workload + " " + Speedup(r.Speedup)
				if r.Stresses != "" {
					s += " (" + r.Stresses + ")"
				}
				rest = append(rest, s)
			}
			then := "Then: " + strings.Join(rest, ", ") + "."
			if !same {
				then += " Work that enters the kernel or switches tasks often pays the mitigations on every entry and switch; work that stays in user space pays little."
			}
			out = append(out, then)
		}
	}
	if len(mn.Still) > 0 {
		var ids []string
		for _, r := range mn.Still {
			ids = append(ids, r.Workload)
		}
		out = append(out, fmt.Sprintf("No significant difference for %s: at α = %v (Holm-corrected over the workloads) the data cannot tell the sides apart there.",
			strings.Join(ids, ", "), rep.Alpha))
	}
	// One verdict on the controls (compare's findings): a control that
	// moved is the Warnings' and the caution below; one that did not move
	// says so without vouching when another moved.
	moved := rep.ControlsMoved()
	for _, c := range rep.Controls {
		switch c.Status {
		case compare.ControlVouches, compare.ControlInconclusive:
			out = append(out, capital(c.Message)+".")
		}
	}
	if g := rep.Geomean; g != nil {
		if g.Tested && !g.Significant {
			out = append(out, fmt.Sprintf("Over all %d workloads the geometric mean of the primary metrics is %s, but no workload differs significantly: the data show no overall difference.",
				g.N, Speedup(g.Speedup)))
		} else {
			out = append(out, fmt.Sprintf("Over all %d workloads (geometric mean of the primary metrics) %s is %s as good as A: %s.",
				g.N, l, Speedup(g.Speedup), overall(l, g.Speedup)))
		}
	}
	protections := func(ps []compare.Protection) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.CommonName+": "+p.Threat)
		}
		return strings.Join(s, "; and ")
	}
	if len(mn.GaveUp) > 0 {
		out = append(out, l+" gives up these protections: "+protections(mn.GaveUp)+".")
	}
	if len(mn.Gained) > 0 {
		out = append(out, l+" gains these protections: "+protections(mn.Gained)+".")
	}
	if len(mn.GaveUp)+len(mn.Gained) == 0 {
		for _, c := range mn.Cmdline {
			if len(c.Affects) == 0 {
				continue
			}
			verb := "changes"
			switch {
			case c.Off && c.Direction == compare.DirAdds:
				verb = "gives up"
			case c.Off:
				verb = "restores"
			}
			vectors := ""
			if len(c.Vectors) > 0 {
				vectors = fmt.Sprintf(" (it turns off the attack vectors %s only", strings.Join(c.Vectors, ", "))
				if len(c.Narrowed) > 0 {
					vectors += "; " + strings.Join(c.Narrowed, ", ") + " stay protected on the others"
				}
				vectors += ")"
			}
			out = append(out, fmt.Sprintf("%s's command line %s %s, which %s the kernel's protections against %s%s, "+
				"as far as this CPU needs them (a side that records its vulnerability files shows which ones it did).",
				l, c.Direction, strings.Join(c.Tokens, " "), verb, strings.Join(c.Affects, ", "), vectors))
		}
	}
	if len(mn.OtherParams) > 0 {
		why := ""
		for _, t := range mn.OtherParams {
			if t == "audit=0" {
				why = " (audit=0 spares every syscall the audit hooks)"
			}
		}
		out = append(out, fmt.Sprintf("%s also adds %s: not CPU mitigations, but they can move the numbers too%s, so part of the difference may be theirs.",
			l, strings.Join(mn.OtherParams, " "), why))
	}
	if mn.VMGuest && mn.VMGuestNote != "" {
		who := "This is a WSL 2 guest. "
		if len(mn.VMGuestSides) == 1 {
			who = "Side " + sideName(mn.VMGuestSides[0], l) + " ran in a WSL 2 guest. "
		}
		out = append(out, who+mn.VMGuestNote)
	}
	switch {
	case same:
	case len(rep.Env.Confounders) > 0:
		out = append(out, "Caution: something besides the mitigations differs between the sides (see Confounders and Warnings), so not all of the difference is the mitigations' doing.")
	case moved:
		out = append(out, "Caution: the control workloads moved too (see Warnings), so not all of the difference is the mitigations' doing.")
	}
	if published {
		out = append(out, "These are published single figures: they show the size of the effect the source saw, not its uncertainty. Measure your own machine with sectax run to get intervals and p-values.")
	}
	return out
}

// sideName is the letter of a side the model names A or B, B being the
// side l.
func sideName(ab, l string) string {
	if ab == "B" {
		return l
	}
	return ab
}

// overall words a geometric mean of speedups g of side l against A.
func overall(l string, g float64) string {
	switch {
	case g >= 1.005:
		return fmt.Sprintf("A costs %.0f%% more time or resources than %s on this mix", (g-1)*100, l)
	case g <= 0.995:
		return fmt.Sprintf("%s costs %.0f%% more time or resources than A on this mix", l, (1/g-1)*100)
	}
	return "no overall difference on this mix"
}
