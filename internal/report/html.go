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

// htmlEnvRow is a property of the environments, or a vulnerability file
// (Explain: what it protects), on every side.
type htmlEnvRow struct {
	Name, Explain string
	Values        []string // per side, A first
	Differs       bool
	Code          bool
}

type htmlChart struct {
	Title, Alt string
	SVG        template.HTML
}

type htmlVuln struct {
	Name, A, B, Explain, OneLiner string
}

// htmlSide is one side in the page's header and tables.
type htmlSide struct {
	Letter, Ref, Line string
	Base              bool
}

// htmlCell is a side's cell in the headline table.
type htmlCell struct {
	Value, Change, Range, P, Class, Equiv string
}

// htmlRow is a row of the headline table: a workload's metric.
type htmlRow struct {
	Title, Metric, Base string
	Control             bool
	Cells               []htmlCell
}

// htmlTest is one side's test of a metric in a workload's table.
type htmlTest struct {
	compare.Metric
	Letter, AText, BText, Change, Range, Speedup, P, PAdj, N, Class, Equiv string
}

// htmlWorkload is a workload's section: its charts and every test.
type htmlWorkload struct {
	Title    string
	Control  bool
	Tests    []htmlTest
	Medians  *htmlChart
	Samples  *htmlChart
	Stresses string
}

// htmlDetail is a side's section: what it means and what differs from A.
type htmlDetail struct {
	Letter, Ref, Base, Conclusion string
	Meaning                       []string
	OnlyA, OnlyB, OnlyMetrics     []string
	CmdlineKnown                  bool
	Added, Removed                []string
	Vulns                         []htmlVuln
	Confounders                   []compare.Confounder
	Notes, Warnings               []string
}

// htmlData is the data of the comparison page, the same for any number of
// sides.
type htmlData struct {
	Title, Conclusion, Legend, Where string
	CSS                              template.CSS
	Sides                            []htmlSide
	Rows                             []htmlRow
	Geomeans                         []string
	Impact                           *htmlChart
	Workloads                        []htmlWorkload
	Details                          []htmlDetail
	Env, AllVulns                    []htmlEnvRow
	Alpha                            float64
	Family                           int
	ConfidencePct                    string
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
	case compare.VerdictDiffers:
		return "changed" // significant, but neither better nor worse ("differs" marks the environment's rows)
	}
	return "same"
}

// HTML writes a comparison as one self-contained HTML page: inline CSS
// and SVG charts, nothing fetched from anywhere, printable. One layout for
// any number of sides: the headline table with a column per side, the
// impact chart, a section per workload with its charts and every test,
// a section per side with what it means and its differences from A, and
// the environments side by side. Every string from the machine or the
// user is escaped by html/template.
func HTML(w io.Writer, c *compare.Comparison) error {
	charts, err := Charts(c)
	if err != nil {
		return err
	}
	d, err := htmlPage(c, charts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := htmlTmpl.ExecuteTemplate(&buf, "page", d); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	// html/template escapes markup but passes control characters through;
	// the page's own text has none but line breaks and tabs.
	_, err = io.WriteString(w, escapeControls(buf.String(), true))
	return err
}

// measuredWhere is where the figures of sides whose figures are published
// (or not) were measured: "on this machine" only when no side is a
// published baseline, which was measured elsewhere.
func measuredWhere(published ...bool) string {
	some, all := false, true
	for _, p := range published {
		some, all = some || p, all && p
	}
	switch {
	case all:
		return "on the machine the published figures were measured on (not this one)"
	case some:
		return "on this machine against published figures measured elsewhere"
	}
	return "on this machine"
}

// htmlPage is the page data of a comparison.
func htmlPage(c *compare.Comparison, charts []Chart) (*htmlData, error) {
	d := htmlData{CSS: template.CSS(htmlCSS), Conclusion: Headlined(c.Headline, capital(conclusionOf(c))+"."),
		Legend: legendOf(c, true), Alpha: c.Alpha, Family: c.Family, Where: measuredWhere(sidePublished(c)...),
		ConfidencePct: fmt.Sprintf("%.0f%%", c.Confidence*100)}
	d.Sides = append(d.Sides, htmlSide{Letter: "A", Ref: c.Baseline.Ref, Line: sideLine(c.Baseline), Base: true})
	d.Title = "sectax: " + c.Baseline.Ref
	hasGeo := false
	for i, rep := range c.Comparisons {
		l := compare.SideLetter(i + 1)
		d.Title += " vs " + rep.B.Ref
		d.Sides = append(d.Sides, htmlSide{Letter: l, Ref: rep.B.Ref, Line: sideLine(rep.B)})
		g := geomeanCell(rep)
		hasGeo = hasGeo || g != ""
		d.Geomeans = append(d.Geomeans, g)
		d.Details = append(d.Details, htmlSideDetail(rep, l))
	}
	if !hasGeo {
		d.Geomeans = nil
	}
	last := ""
	for _, r := range c.Rows {
		title := r.Workload.Title()
		hr := htmlRow{Title: title, Metric: r.Name, Control: r.Workload.Control,
			Base: Value(r.Baseline, r.Unit, c.Baseline.Published)}
		for i, m := range r.Sides {
			cl := htmlCell{Value: valueCell(m, c.Comparisons[i].B.Published), Change: none, Equiv: equivalenceCell(m)}
			if m != nil {
				cl.Change, cl.Range, cl.Class = metricDelta(*m), changeInterval(*m), verdictClass(*m)
				if m.PAdjusted != nil {
					cl.P = "p adj " + pValue(*m.PAdjusted)
				}
			}
			hr.Cells = append(hr.Cells, cl)
		}
		if title == last { // the workload's further metrics
			hr.Title, hr.Control = "", false
		}
		last = title
		d.Rows = append(d.Rows, hr)
	}
	if err := htmlWorkloads(&d, c, charts); err != nil {
		return nil, err
	}
	d.Env, d.AllVulns = htmlEnvironment(c)
	return &d, nil
}

// htmlWorkloads fills the impact chart and each workload's section: its
// charts, and every side's test of every metric.
func htmlWorkloads(d *htmlData, c *compare.Comparison, charts []Chart) error {
	lines := primaryLines(c)
	d.Workloads = make([]htmlWorkload, len(lines))
	index := map[string]int{}
	for i, pl := range lines {
		d.Workloads[i] = htmlWorkload{Title: pl.w.Title(), Control: pl.w.Control, Stresses: pl.w.StressesDetail}
		index[pl.w.ID+"\x00"+pl.w.ParamsKey+"\x00"+pl.w.Engine] = i
	}
	for _, r := range c.Rows {
		hw := &d.Workloads[index[r.Workload.ID+"\x00"+r.Workload.ParamsKey+"\x00"+r.Workload.Engine]]
		for s, m := range r.Sides {
			if m == nil {
				continue
			}
			rep := c.Comparisons[s]
			hw.Tests = append(hw.Tests, htmlTest{Metric: *m, Letter: compare.SideLetter(s + 1),
				AText: Value(m.A, m.Unit, rep.A.Published), BText: Value(m.B, m.Unit, rep.B.Published),
				Change: metricDelta(*m), Range: changeInterval(*m), Speedup: Speedup(m.Speedup), P: P(*m), PAdj: PAdj(*m), N: N(*m),
				Class: verdictClass(*m), Equiv: equivalenceCell(m)})
		}
	}
	for _, ch := range charts {
		svg, err := ch.SVG()
		if err != nil {
			return err
		}
		hc := &htmlChart{Title: ch.Title, Alt: ch.Alt, SVG: inlineSVG(svg, ch.Alt)}
		switch ch.Kind {
		case ChartImpact:
			d.Impact = hc
		case ChartMedians:
			d.Workloads[ch.Workload].Medians = hc
		default:
			d.Workloads[ch.Workload].Samples = hc
		}
	}
	return nil
}

// htmlSideDetail is the section of side l against A: its conclusion, what
// it means and what differs.
func htmlSideDetail(rep *compare.Report, l string) htmlDetail {
	dt := htmlDetail{Letter: l, Ref: rep.B.Ref, Base: rep.A.Ref, Conclusion: capital(sideConclusion(l, rep.Conclusion, rep.Alpha)),
		Meaning: Meaning(rep, l), CmdlineKnown: rep.Env.CmdlineKnown, Added: rep.Env.CmdlineAdded, Removed: rep.Env.CmdlineRemoved,
		Confounders: rep.Env.Confounders, Notes: rep.Notes}
	for _, u := range rep.OnlyA {
		dt.OnlyA = append(dt.OnlyA, u.String())
	}
	for _, u := range rep.OnlyB {
		dt.OnlyB = append(dt.OnlyB, u.String())
	}
	for _, wl := range rep.Workloads {
		if len(wl.MetricsOnlyA)+len(wl.MetricsOnlyB) > 0 {
			dt.OnlyMetrics = append(dt.OnlyMetrics, wl.Title()+": "+onlyMetrics(wl, l))
		}
	}
	for _, v := range rep.Env.Vulnerabilities {
		dt.Vulns = append(dt.Vulns, htmlVuln{Name: v.Name, A: v.A, B: v.B, Explain: v.Explain, OneLiner: v.OneLiner})
	}
	for _, x := range rep.Warnings {
		dt.Warnings = append(dt.Warnings, x.Message)
	}
	return dt
}
