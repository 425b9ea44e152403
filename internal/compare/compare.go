// Package compare builds the A/B model of `sectax compare`: it matches the
// workloads of two sides (runs, labels or published baselines) by id,
// parameters and engine, summarises each metric (median and 95% CI, or per-
// boot medians when a side spans several boots), tests each difference
// (Holm–Bonferroni over one primary metric per workload), computes the
// interval of each ratio, judges the negative controls, and diffs the two
// environments: kernel command-line tokens, vulnerability states, and
// confounders that are not the mitigations. It also draws the conclusions
// ("what this means", the one-line conclusion) as data. CompareSides is
// the one comparison: two or more sides against the first, one Report per
// side with one Holm family across them (comparison.go). Reports lay out the Comparison it returns and compute nothing;
// nothing here prints. The model is in model.go, the matching here, the
// notes in notes.go, and every warning kind with its wording in
// warnings.go.
package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
)

// group is the pooled samples of one workload key on one side.
type group struct {
	id, paramsKey, engine string
	params                map[string]any
	metrics               []run.Metric // declarations, in first-seen order
	// perRun[metric] holds, per run index, the run's samples.
	samples map[string]map[int][]float64
}

// bootLevels are the variance components of one metric of a side by
// boot (nil: fewer than two boots with samples, or no boot of two).
func bootLevels(s Side, g *group, metric string) *stats.Levels {
	if s.Published() {
		return nil
	}
	var order []string
	byBoot := map[string][]float64{}
	for ri := range s.Runs {
		k := s.bootKey(ri)
		if _, ok := byBoot[k]; !ok {
			order = append(order, k)
		}
		byBoot[k] = append(byBoot[k], g.samples[metric][ri]...)
	}
	groups := make([][]float64, 0, len(order))
	for _, k := range order {
		groups = append(groups, byBoot[k])
	}
	l, ok := stats.VarianceLevels(groups)
	if !ok {
		return nil
	}
	return &l
}

// setLevels sets the variance components of m on each side and its boot
// share.
func (m *Metric) setLevels(a Side, x *group, b Side, y *group) {
	m.LevelsA, m.LevelsB = bootLevels(a, x, m.Name), bootLevels(b, y, m.Name)
	if m.LevelsA == nil && m.LevelsB == nil {
		return
	}
	share := func(l *stats.Levels) *float64 {
		if l == nil {
			return nil
		}
		return finite(l.BootShare() * 100)
	}
	m.BootShare = &BootShare{A: share(m.LevelsA), B: share(m.LevelsB)}
}

func resultEngine(r *run.Run, res *run.Result) string {
	if res.Engine != "" {
		return res.Engine
	}
	return r.Engine
}

// groups pools a side's results by workload, parameters and engine.
func groups(s Side) []*group {
	var out []*group
	index := map[string]*group{}
	for ri, r := range s.Runs {
		for i := range r.Results {
			res := &r.Results[i]
			eng := resultEngine(r, res)
			if s.Published() {
				eng = "" // published figures match any engine
			}
			pk := run.ParamsKey(res.Params)
			key := res.Workload + "\x00" + pk + "\x00" + eng
			g := index[key]
			if g == nil {
				g = &group{id: res.Workload, paramsKey: pk, engine: eng, params: res.Params,
					samples: map[string]map[int][]float64{}}
				index[key] = g
				out = append(out, g)
			}
			for _, m := range res.Metrics {
				if g.samples[m.Name] == nil {
					g.samples[m.Name] = map[int][]float64{}
					g.metrics = append(g.metrics, run.Metric{Name: m.Name, Unit: m.Unit, Better: m.Better})
				}
				g.samples[m.Name][ri] = append(g.samples[m.Name][ri], m.Samples...)
			}
		}
	}
	return out
}

// sideSamples returns the samples of one metric: every repetition of every
// run, or, when the side spans two or more boots, one median per boot, or,
// when it spans two or more hosts, one median per host.
func sideSamples(s Side, g *group, metric string, unit string) []float64 {
	byRun := g.samples[metric]
	var out []float64
	key := s.bootKey
	if unit == "host" {
		key = s.hostKey
	}
	if unit != "boot" && unit != "host" {
		for ri := range s.Runs {
			out = append(out, byRun[ri]...)
		}
		return out
	}
	var order []string
	byBoot := map[string][]float64{}
	for ri := range s.Runs {
		if len(byRun[ri]) == 0 {
			continue
		}
		k := key(ri)
		if _, ok := byBoot[k]; !ok {
			order = append(order, k)
		}
		byBoot[k] = append(byBoot[k], byRun[ri]...)
	}
	for _, k := range order {
		out = append(out, stats.Summarize(byBoot[k]).Center)
	}
	return out
}

func sideInfo(s Side) SideInfo {
	si := SideInfo{Ref: s.Ref, Kind: s.Kind, Published: s.Published(),
		MitigationMode: s.values("mitigation_mode"), Kernel: s.values("kernel.release"),
		Hosts: s.hosts()}
	boots := map[string]bool{}
	labels := map[string]bool{}
	for i, r := range s.Runs {
		si.Runs = append(si.Runs, r.ID)
		boots[s.bootKey(i)] = true
		if r.Label != "" && !labels[r.Label] {
			labels[r.Label] = true
			si.Labels = append(si.Labels, r.Label)
		}
	}
	si.Boots = len(boots)
	si.WSL = len(s.values("wsl.version")) > 0
	switch {
	case s.Published():
		si.Unit = "published figure"
		si.Title, si.Source, si.Environment = s.Dataset.Title, s.Dataset.Source, s.Dataset.Environment
		si.WSL = si.WSL || strings.Contains(s.Dataset.Environment, "WSL")
		si.Boots = 1
	case len(si.Hosts) >= 2:
		si.Unit = "host"
	case si.Boots >= 2:
		si.Unit = "boot"
	default:
		si.Unit = "repetition"
	}
	return si
}

// alphaOf is the significance level opt asks for (stats.DefaultAlpha
// when zero).
func alphaOf(opt Options) float64 {
	if opt.Alpha == 0 {
		return stats.DefaultAlpha
	}
	return opt.Alpha
}

// marginOf is the equivalence margin opt asks for, in percent
// (stats.DefaultMarginPct when zero).
func marginOf(opt Options) float64 {
	if opt.MarginPct == 0 {
		return stats.DefaultMarginPct
	}
	return opt.MarginPct
}

// match builds the report of A against B up to the tests: the matched
// workloads with their summaries, raw tests and ratio intervals. adjust
// then corrects the p-values over the family, and finish draws the rest.
func match(a, b Side, opt Options) (*Report, error) {
	alpha := alphaOf(opt)
	if len(a.Runs) == 0 || len(b.Runs) == 0 {
		return nil, fmt.Errorf("a side holds no runs")
	}
	rep := &Report{Schema: Schema, Alpha: alpha, Confidence: stats.Confidence, MarginPct: marginOf(opt), Multiplicity: Multiplicity,
		A: sideInfo(a), B: sideInfo(b), OnlyA: []Unmatched{}, OnlyB: []Unmatched{},
		Workloads: []Workload{}, Controls: []ControlFinding{}, Notes: []string{}, Warnings: []stats.Warning{}}
	// The ratio's interval needs samples of one unit on both sides:
	// repetitions, or per-boot medians (the boot as the unit).
	interval := rep.A.Unit == rep.B.Unit && (rep.A.Unit == "repetition" || rep.A.Unit == "boot")

	ga, gb := groups(a), groups(b)
	usedB := make([]bool, len(gb))
	var ratios []float64
	var primaries []primarySamples
	var noSamples []string
	for _, x := range ga {
		j := -1
		for k, y := range gb {
			if !usedB[k] && y.id == x.id && y.paramsKey == x.paramsKey &&
				(x.engine == y.engine || x.engine == "" || y.engine == "") {
				j = k
				break
			}
		}
		if j < 0 {
			rep.OnlyA = append(rep.OnlyA, Unmatched{x.id, x.paramsKey, x.engine})
			continue
		}
		usedB[j] = true
		y := gb[j]
		eng := x.engine
		if eng == "" {
			eng = y.engine
		}
		w := Workload{ID: x.id, Params: x.params, ParamsKey: x.paramsKey, Engine: eng,
			Control: IsControl(x.id)}
		if w.Params == nil {
			w.Params = map[string]any{}
		}
		common := 0
		inB := map[string]run.Metric{}
		for _, m := range y.metrics {
			inB[m.Name] = m
		}
		for _, ma := range x.metrics {
			mb, ok := inB[ma.Name]
			if !ok {
				w.MetricsOnlyA = append(w.MetricsOnlyA, ma.Name)
				continue
			}
			delete(inB, ma.Name)
			common++
			sa, sb := sideSamples(a, x, ma.Name, rep.A.Unit), sideSamples(b, y, ma.Name, rep.B.Unit)
			if len(sa) == 0 || len(sb) == 0 {
				// A run cut short before its first repetition of this
				// workload: nothing to compare.
				empty := []string{}
				if len(sa) == 0 {
					empty = append(empty, a.Ref)
				}
				if len(sb) == 0 {
					empty = append(empty, b.Ref)
				}
				noSamples = append(noSamples, fmt.Sprintf("%s %s (%s)", x.id, ma.Name, strings.Join(empty, ", ")))
				continue
			}
			// sa and sb are this comparison's own copies, and every statistic
			// below sorts its own copy of them: sorted once here, those sorts
			// meet sorted input, which pdqsort finishes in one linear pass.
			slices.Sort(sa)
			slices.Sort(sb)
			m := metric(ma, mb, sa, sb, alpha, a.Published(), b.Published())
			m.RawA, m.RawB = sideSamples(a, x, ma.Name, "repetition"), sideSamples(b, y, ma.Name, "repetition")
			if interval {
				m.RatioInterval = ratioInterval(sa, sb, stats.Confidence)
			}
			if m.Test != nil {
				m.Equivalence = &Equivalence{MarginPct: rep.MarginPct, Verdict: stats.EquivInconclusive}
				if interval {
					m.Equivalence.RatioInterval = ratioInterval(sa, sb, 1-2*alpha)
				}
			}
			m.setLevels(a, x, b, y)
			w.Metrics = append(w.Metrics, m)
		}
		for _, mb := range y.metrics {
			if _, left := inB[mb.Name]; left {
				w.MetricsOnlyB = append(w.MetricsOnlyB, mb.Name)
			}
		}
		if len(w.Metrics) == 0 {
			if common == 0 { // no metric in common: unmatched
				rep.OnlyA = append(rep.OnlyA, Unmatched{x.id, x.paramsKey, x.engine})
				rep.OnlyB = append(rep.OnlyB, Unmatched{y.id, y.paramsKey, y.engine})
			} // else: every common metric lacks samples, and the warning says so
			continue
		}
		if !w.Control && w.Metrics[0].Speedup > 0 && !math.IsInf(w.Metrics[0].Speedup, 0) {
			ratios = append(ratios, w.Metrics[0].Speedup)
			pm := w.Metrics[0]
			primaries = append(primaries, primarySamples{a: sideSamples(a, x, pm.Name, rep.A.Unit),
				b: sideSamples(b, y, pm.Name, rep.B.Unit), higher: pm.Better == run.Higher})
		}
		rep.Workloads = append(rep.Workloads, w)
	}
	for k, y := range gb {
		if !usedB[k] {
			rep.OnlyB = append(rep.OnlyB, Unmatched{y.id, y.paramsKey, y.engine})
		}
	}
	if len(rep.Workloads) == 0 {
		fix := "compare runs of the same workloads with the same parameters"
		if a.Published() || b.Published() {
			fix = "a baseline holds the study's parameters: measure with 'sectax run --suite study' to compare with it"
		}
		return nil, fmt.Errorf("%w (%s has %s; %s has %s): %s",
			ErrNothingInCommon, a.Ref, listUnmatched(rep.OnlyA), b.Ref, listUnmatched(rep.OnlyB), fix)
	}
	rep.ratios, rep.primaries = ratios, primaries
	if len(noSamples) > 0 {
		rep.Warnings = append(rep.Warnings, warnNoSamples(noSamples))
	}
	return rep, nil
}

// finish draws what depends on the corrected verdicts: the geomean, the
// environment diff, the controls, notes, meaning and conclusion.
func (rep *Report) finish(a, b Side) {
	ratios := rep.ratios
	rep.speedupIv = rep.speedupInterval(a, b)
	if g, ok := stats.GeoMean(ratios); ok && len(ratios) >= 2 {
		rep.Geomean = &Geomean{Speedup: g, N: len(ratios), Tested: !a.Published() && !b.Published(),
			Significant: rep.significantPrimaries() > 0, Interval: rep.speedupIv}
	}
	rep.Env = envDiff(a, b)
	rep.Env.addVulnerabilityText()
	rep.Environment = environment(a, b)
	rep.Vulnerabilities = allVulns(a, b)
	rep.addControls()
	rep.addNotes(a, b)
	rep.runsDifferOnly()
	rep.addMeaning(a, b)
	rep.addConclusion()
}

func listUnmatched(us []Unmatched) string {
	if len(us) == 0 {
		return "nothing"
	}
	var s []string
	for _, u := range us {
		s = append(s, u.String())
	}
	return strings.Join(s, ", ")
}

func metric(ma, mb run.Metric, sa, sb []float64, alpha float64, pubA, pubB bool) Metric {
	m := Metric{Name: ma.Name, Unit: ma.Unit, Better: ma.Better, A: stats.Summarize(sa), B: stats.Summarize(sb)}
	m.ChangePct = stats.ChangePct(m.A.Center, m.B.Center)
	m.Speedup = stats.Speedup(m.A.Center, m.B.Center, ma.Better == run.Higher)
	if pubA || pubB {
		// Single published figures: there is nothing to test, and their
		// "too few samples" warnings would only repeat that. A measured
		// side keeps its own warnings.
		if pubA {
			m.A.Warnings = nil
		}
		if pubB {
			m.B.Warnings = nil
		}
		m.Verdict = VerdictUntested
		return m
	}
	c := stats.Compare(sa, sb, alpha)
	m.Test = &c
	m.setVerdict(c.Significant) // final after adjust
	if mb.Unit != ma.Unit {
		m.Warnings = append(m.Warnings, warnUnitMismatch(ma.Name, ma.Unit, mb.Unit))
	}
	return m
}

// setVerdict sets Significant and Verdict.
func (m *Metric) setVerdict(significant bool) {
	m.Significant = significant
	switch {
	case !significant:
		m.Verdict = VerdictSame
	case m.Speedup > 1:
		m.Verdict = VerdictBetter
	default:
		m.Verdict = VerdictWorse
	}
}
