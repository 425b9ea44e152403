package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/sectax/sectax/internal/compare"
)

//go:embed html_multi.tmpl
var htmlMultiTemplate string

var htmlMultiTmpl = template.Must(template.New("multi").Parse(htmlMultiTemplate))

type htmlMultiSide struct {
	Letter, Ref, Line string
	Base              bool
}

type htmlMultiCell struct {
	Value, Change, Range, P, Class string
}

type htmlMultiRow struct {
	Title, Metric, Base string
	Control             bool
	Cells               []htmlMultiCell
}

type htmlMultiDetail struct {
	Letter, Ref, Base, Conclusion, Hint string
	OnlyA, OnlyB                        []string
	CmdlineKnown                        bool
	Added, Removed                      []string
	Vulns                               []htmlVuln
	Confounders                         []compare.Confounder
	Notes, Warnings                     []string
}

type htmlMultiData struct {
	Title, Conclusion, Legend string
	Sides                     []htmlMultiSide
	Rows                      []htmlMultiRow
	Geomeans                  []string
	Impact                    *htmlChart
	Details                   []htmlMultiDetail
	CSS                       template.CSS
	Alpha                     float64
	Family                    int
	ConfidencePct             string
}

// HTMLMulti writes a comparison of three or more sides as one
// self-contained HTML page: the headline table with a column per side, the
// impact chart with one bar per side, and each side's differences from
// the baseline. Every string from the machine or the user is escaped by
// html/template.
func HTMLMulti(w io.Writer, mr *compare.MultiReport) error {
	charts, err := ChartsMulti(mr)
	if err != nil {
		return err
	}
	d := htmlMultiData{Conclusion: Headlined(mr.Headline, capital(MultiConclusion(mr))+"."),
		Legend: multiLegend(mr), CSS: template.CSS(htmlCSS), Alpha: mr.Alpha, Family: mr.Family,
		ConfidencePct: fmt.Sprintf("%.0f%%", mr.Confidence*100)}
	d.Sides = append(d.Sides, htmlMultiSide{Letter: "A", Ref: mr.Baseline.Ref, Line: sideLine(mr.Baseline), Base: true})
	hasGeo := false
	for i, rep := range mr.Comparisons {
		l := compare.SideLetter(i + 1)
		d.Sides = append(d.Sides, htmlMultiSide{Letter: l, Ref: rep.B.Ref, Line: sideLine(rep.B)})
		g := geomeanCell(rep)
		hasGeo = hasGeo || g != ""
		d.Geomeans = append(d.Geomeans, g)
		dt := htmlMultiDetail{Letter: l, Ref: rep.B.Ref, Base: rep.A.Ref, Conclusion: capital(sideConclusion(l, rep.Conclusion)),
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
		hr := htmlMultiRow{Title: title, Metric: r.Name, Control: r.Workload.Control,
			Base: Value(r.Baseline, r.Unit, mr.Baseline.Published)}
		for i, m := range r.Sides {
			c := htmlMultiCell{Value: valueCell(m, mr.Comparisons[i].B.Published), Change: "–"}
			if m != nil {
				c.Change, c.Range, c.Class = m.Delta, changeInterval(*m), verdictClass(*m)
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
			return err
		}
		d.Impact = &htmlChart{Title: c.Title, Alt: c.Alt, SVG: inlineSVG(svg, c.Alt)}
	}
	var buf bytes.Buffer
	if err := htmlMultiTmpl.Execute(&buf, d); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err = io.WriteString(w, escapeControls(buf.String(), true))
	return err
}
