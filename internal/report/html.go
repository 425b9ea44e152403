package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/sectax/sectax/internal/compare"
)

//go:embed page.tmpl
var pageTemplate string

//go:embed html.css
var htmlCSS string

//go:embed html.tmpl
var htmlTemplate string

// pageTmpl is the skeleton of every HTML page (comparison, attribution,
// fleet): head, the style sheet and a body; a page's template defines
// "title", "body" and, when it adds rules, "style".
var pageTmpl = template.Must(template.New("page").Parse(pageTemplate))

// newPage is the skeleton with a page's definitions, parsed with funcs.
func newPage(defs string, funcs template.FuncMap) *template.Template {
	return template.Must(template.Must(pageTmpl.Clone()).Funcs(funcs).Parse(defs))
}

var htmlTmpl = newPage(htmlTemplate, nil)

// htmlPage is the data of the comparison page: a Pair, or Sides (three
// or more).
type htmlPage struct {
	Title string
	CSS   template.CSS
	Pair  *htmlData
	Sides *htmlSidesData
}

type htmlEnvRow struct {
	Name, A, B string
	Differs    bool
	Code       bool
}

type htmlChart struct {
	Title, Alt string
	SVG        template.HTML
}

type htmlMetric struct {
	compare.Metric
	AText, BText, Change, Range, Speedup, P, PAdj, N string
	Class                                            string
}

type htmlWorkload struct {
	Title    string
	Control  bool
	Metrics  []htmlMetric
	Only     string
	Medians  *htmlChart
	Samples  *htmlChart
	Stresses string
}

type htmlVuln struct {
	Name, A, B, Explain, OneLiner string
}

type htmlVulnRow struct {
	Name, A, B, OneLiner string
	Differs              bool
}

type htmlData struct {
	AllVulns       []htmlVulnRow
	Where          string // where the figures were measured (measuredWhere)
	Title          string
	Conclusion     string
	A, B           compare.SideInfo
	ALine, BLine   string
	Legend         string
	Geomean        string
	GeomeanNote    string
	Headline       []htmlWorkload
	Meaning        []string
	Impact         *htmlChart
	Workloads      []htmlWorkload
	OnlyA, OnlyB   []string
	Env            []htmlEnvRow
	CmdlineKnown   bool
	Added, Removed []string
	Vulns          []htmlVuln
	Confounders    []compare.Confounder
	Notes          []string
	Warnings       []string
	Alpha          float64
	ConfidencePct  string
}

var (
	svgPrologRe = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)
)

// inlineSVG turns a standalone SVG document into markup to inline in HTML:
// no XML prolog, scalable to the page width.
func inlineSVG(doc []byte, alt string) template.HTML {
	s := svgPrologRe.ReplaceAllString(string(doc), "")
	// Liberation Sans is metric-compatible with Arial and Helvetica: name
	// them, and a generic family, for machines without it.
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(alt)+`" `, 1)
	// gonum's SVG is generated markup whose text is HTML-escaped by vgsvg.
	return template.HTML(s)
}

func verdictClass(m compare.Metric) string {
	switch m.Verdict {
	case compare.VerdictBetter:
		return "better"
	case compare.VerdictWorse:
		return "worse"
	case compare.VerdictUntested:
		return "untested"
	}
	return "same"
}

// HTML writes a comparison as one self-contained HTML page: inline CSS
// and SVG charts, nothing fetched from anywhere, printable. A pair's page
// has a section per workload with its charts, what it means and both
// environments side by side; three or more sides get the headline table
// with a column per side, the impact chart with one bar per side, and each
// side's differences from the baseline. Every string from the machine or
// the user is escaped by html/template.
func HTML(w io.Writer, c *compare.Comparison) error {
	charts, err := Charts(c)
	if err != nil {
		return err
	}
	page := htmlPage{CSS: template.CSS(htmlCSS)}
	if alone(c) {
		page.Pair, err = htmlPair(c.Comparisons[0], charts)
		page.Title = page.Pair.Title
	} else {
		page.Sides, err = htmlSides(c, charts)
		page.Title = page.Sides.Title
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := htmlTmpl.ExecuteTemplate(&buf, "page", page); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	// html/template escapes markup but passes control characters through;
	// the page's own text has none but line breaks and tabs.
	_, err = io.WriteString(w, escapeControls(buf.String(), true))
	return err
}

// measuredWhere is where the figures of a pair whose sides are published
// (or not) were measured: "on this machine" only when neither side is a
// published baseline, which was measured elsewhere.
func measuredWhere(aPublished, bPublished bool) string {
	switch {
	case aPublished && bPublished:
		return "on the machine the published figures were measured on (not this one)"
	case aPublished || bPublished:
		return "on this machine against published figures measured elsewhere"
	}
	return "on this machine"
}

// htmlPair is the page data of a pair.
func htmlPair(rep *compare.Report, charts []Chart) (*htmlData, error) {
	d := htmlData{
		Title: fmt.Sprintf("sectax: %s vs %s", rep.A.Ref, rep.B.Ref), Conclusion: Headlined(rep.Conclusion.Headline, capital(Conclusion(rep))+"."),
		A: rep.A, B: rep.B, ALine: sideLine(rep.A), BLine: sideLine(rep.B),
		Legend: legend(rep), Meaning: Meaning(rep),
		Alpha: rep.Alpha, ConfidencePct: fmt.Sprintf("%.0f%%", rep.Confidence*100),
		CmdlineKnown: rep.Env.CmdlineKnown, Added: rep.Env.CmdlineAdded, Removed: rep.Env.CmdlineRemoved,
		Confounders: rep.Env.Confounders, Notes: rep.Notes, Where: measuredWhere(rep.A.Published, rep.B.Published),
	}
	if g := rep.Geomean; g != nil {
		d.Geomean = Speedup(g.Speedup)
		what := overall(g.Speedup)
		if g.Tested && !g.Significant {
			what = "not a significant difference"
		}
		d.GeomeanNote = fmt.Sprintf("geometric mean of the primary metrics' speedups over %d workloads (negative controls excluded): %s; %s",
			g.N, d.Geomean, what)
	}
	byWorkload := map[int][]Chart{}
	for _, c := range charts {
		if c.Kind == ChartImpact {
			svg, err := c.SVG()
			if err != nil {
				return nil, err
			}
			d.Impact = &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
			continue
		}
		byWorkload[c.Workload] = append(byWorkload[c.Workload], c)
	}
	for i, wl := range rep.Workloads {
		hw := htmlWorkload{Title: wl.Title(), Control: wl.Control, Stresses: wl.StressesDetail}
		if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
			hw.Only = onlyMetrics(wl)
		}
		for _, m := range wl.Metrics {
			hw.Metrics = append(hw.Metrics, htmlMetric{Metric: m,
				AText: Value(m.A, m.Unit, rep.A.Published), BText: Value(m.B, m.Unit, rep.B.Published),
				Change: metricDelta(m), Range: changeInterval(m), Speedup: Speedup(m.Speedup), P: P(m), PAdj: PAdj(m), N: N(m),
				Class: verdictClass(m)})
		}
		for _, c := range byWorkload[i] {
			svg, err := c.SVG()
			if err != nil {
				return nil, err
			}
			hc := &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
			if c.Kind == ChartMedians {
				hw.Medians = hc
			} else {
				hw.Samples = hc
			}
		}
		head := hw
		if len(head.Metrics) > 0 {
			head.Metrics = head.Metrics[:1]
		}
		d.Headline = append(d.Headline, head)
		d.Workloads = append(d.Workloads, hw)
	}
	for _, u := range rep.OnlyA {
		d.OnlyA = append(d.OnlyA, u.String())
	}
	for _, u := range rep.OnlyB {
		d.OnlyB = append(d.OnlyB, u.String())
	}
	for _, r := range rep.Environment {
		d.Env = append(d.Env, htmlEnvRow{Name: r.Name, A: orDash(r.A), B: orDash(r.B), Differs: r.Differs, Code: r.Path == "cmdline.raw"})
	}
	if rep.A.Published || rep.B.Published {
		d.Env = append([]htmlEnvRow{{Name: "published as", A: orDash(rep.A.Environment), B: orDash(rep.B.Environment)},
			{Name: "source", A: orDash(rep.A.Source), B: orDash(rep.B.Source)}}, d.Env...)
	}
	for _, v := range rep.Env.Vulnerabilities {
		d.Vulns = append(d.Vulns, htmlVuln{Name: v.Name, A: v.A, B: v.B, Explain: v.Explain, OneLiner: v.OneLiner})
	}
	for _, v := range rep.Vulnerabilities {
		r := htmlVulnRow{Name: v.Name, A: orDash(v.A), B: orDash(v.B), Differs: v.Differs, OneLiner: v.OneLiner}
		if !v.RecordedA {
			r.A = "(not recorded)"
		}
		if !v.RecordedB {
			r.B = "(not recorded)"
		}
		d.AllVulns = append(d.AllVulns, r)
	}
	for _, x := range rep.Warnings {
		d.Warnings = append(d.Warnings, x.Message)
	}
	return &d, nil
}

type htmlSidesSide struct {
	Letter, Ref, Line string
	Base              bool
}

type htmlSidesCell struct {
	Value, Change, Range, P, Class string
}

type htmlSidesRow struct {
	Title, Metric, Base string
	Control             bool
	Cells               []htmlSidesCell
}

type htmlSidesDetail struct {
	Letter, Ref, Base, Conclusion, Hint string
	OnlyA, OnlyB                        []string
	CmdlineKnown                        bool
	Added, Removed                      []string
	Vulns                               []htmlVuln
	Confounders                         []compare.Confounder
	Notes, Warnings                     []string
}

type htmlSidesData struct {
	Title, Conclusion, Legend string
	Sides                     []htmlSidesSide
	Rows                      []htmlSidesRow
	Geomeans                  []string
	Impact                    *htmlChart
	Details                   []htmlSidesDetail
	Alpha                     float64
	Family                    int
	ConfidencePct             string
}

// htmlSides is the page data of three or more sides.
func htmlSides(mr *compare.Comparison, charts []Chart) (*htmlSidesData, error) {
	d := htmlSidesData{Conclusion: Headlined(mr.Headline, capital(MultiConclusion(mr))+"."),
		Legend: multiLegend(mr), Alpha: mr.Alpha, Family: mr.Family,
		ConfidencePct: fmt.Sprintf("%.0f%%", mr.Confidence*100)}
	d.Sides = append(d.Sides, htmlSidesSide{Letter: "A", Ref: mr.Baseline.Ref, Line: sideLine(mr.Baseline), Base: true})
	hasGeo := false
	for i, rep := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		d.Sides = append(d.Sides, htmlSidesSide{Letter: l, Ref: rep.B.Ref, Line: sideLine(rep.B)})
		g := geomeanCell(rep)
		hasGeo = hasGeo || g != ""
		d.Geomeans = append(d.Geomeans, g)
		dt := htmlSidesDetail{Letter: l, Ref: rep.B.Ref, Base: rep.A.Ref, Conclusion: capital(sideConclusion(l, rep.Conclusion, rep.Alpha, false)),
			Hint: detailHint(rep), CmdlineKnown: rep.Env.CmdlineKnown, Added: rep.Env.CmdlineAdded, Removed: rep.Env.CmdlineRemoved,
			Confounders: rep.Env.Confounders, Notes: rep.Notes}
		for _, u := range rep.OnlyA {
			dt.OnlyA = append(dt.OnlyA, u.String())
		}
		for _, u := range rep.OnlyB {
			dt.OnlyB = append(dt.OnlyB, u.String())
		}
		for _, v := range rep.Env.Vulnerabilities {
			dt.Vulns = append(dt.Vulns, htmlVuln{Name: v.Name, A: v.A, B: v.B, Explain: v.Explain, OneLiner: v.OneLiner})
		}
		for _, x := range rep.Warnings {
			dt.Warnings = append(dt.Warnings, x.Message)
		}
		d.Details = append(d.Details, dt)
	}
	if !hasGeo {
		d.Geomeans = nil
	}
	d.Title = "sectax:"
	for i, s := range d.Sides {
		if i > 0 {
			d.Title += " vs"
		}
		d.Title += " " + s.Ref
	}
	last := ""
	for _, r := range mr.Rows {
		title := r.Workload.Title()
		hr := htmlSidesRow{Title: title, Metric: r.Name, Control: r.Workload.Control,
			Base: Value(r.Baseline, r.Unit, mr.Baseline.Published)}
		for i, m := range r.Sides {
			c := htmlSidesCell{Value: valueCell(m, mr.Comparisons[i].B.Published), Change: none}
			if m != nil {
				c.Change, c.Range, c.Class = metricDelta(*m), changeInterval(*m), verdictClass(*m)
				if m.PAdjusted != nil {
					c.P = "p adj " + pValue(*m.PAdjusted)
				}
			}
			hr.Cells = append(hr.Cells, c)
		}
		if title == last { // the workload's further metrics
			hr.Title, hr.Control = "", false
		}
		last = title
		d.Rows = append(d.Rows, hr)
	}
	for _, c := range charts {
		svg, err := c.SVG()
		if err != nil {
			return nil, err
		}
		d.Impact = &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
	}
	return &d, nil
}
