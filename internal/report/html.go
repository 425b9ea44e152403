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

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

var htmlTmpl = template.Must(template.New("report").Parse(htmlTemplate))

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
	CSS            template.CSS
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

// HTML writes the comparison as one self-contained HTML page: inline CSS
// and SVG charts, nothing fetched from anywhere, printable. Every string
// from the machine or the user is escaped by html/template.
func HTML(w io.Writer, rep *compare.Report) error {
	charts, err := Charts(rep)
	if err != nil {
		return err
	}
	d := htmlData{
		Title: fmt.Sprintf("sectax: %s vs %s", rep.A.Ref, rep.B.Ref), Conclusion: Headlined(rep.Conclusion.Headline, capital(Conclusion(rep))+"."),
		A: rep.A, B: rep.B, ALine: sideLine(rep.A), BLine: sideLine(rep.B),
		Legend: legend(rep), Meaning: Meaning(rep), CSS: template.CSS(htmlCSS),
		Alpha: rep.Alpha, ConfidencePct: fmt.Sprintf("%.0f%%", rep.Confidence*100),
		CmdlineKnown: rep.Env.CmdlineKnown, Added: rep.Env.CmdlineAdded, Removed: rep.Env.CmdlineRemoved,
		Confounders: rep.Env.Confounders, Notes: rep.Notes,
	}
	if g := rep.Geomean; g != nil {
		d.Geomean = Speedup(g.Speedup)
		what := overall(g.Speedup)
		if g.Tested && !g.Significant {
			what = "not a significant difference"
		}
		d.GeomeanNote = fmt.Sprintf("geometric mean of the primary metrics' speedups over %d workloads (negative controls excluded): %s %s",
			g.N, d.Geomean, what)
	}
	byWorkload := map[int][]Chart{}
	for _, c := range charts {
		if c.Kind == ChartImpact {
			svg, err := c.SVG()
			if err != nil {
				return err
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
				Change: m.Delta, Range: changeInterval(m), Speedup: Speedup(m.Speedup), P: P(m), PAdj: PAdj(m), N: N(m),
				Class: verdictClass(m)})
		}
		for _, c := range byWorkload[i] {
			svg, err := c.SVG()
			if err != nil {
				return err
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
	var buf bytes.Buffer
	if err := htmlTmpl.Execute(&buf, d); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	// html/template escapes markup but passes control characters through;
	// the page's own text has none but line breaks and tabs.
	_, err = io.WriteString(w, escapeControls(buf.String(), true))
	return err
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
