package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/stats"
)

//go:embed attribute.tmpl
var attributeTemplate string

var attributeTmpl = newPage(attributeTemplate, template.FuncMap{
	"t":     termSafe,
	"tax":   attrTax,
	"ci":    attrCI,
	"p":     probeP,
	"pct":   stats.FormatPct,
	"runs":  func(n int) string { return attrPlural(n, "run") },
	"boots": func(n int) string { return attrPlural(n, "boot") },
	"share": func(v *float64) string {
		if v == nil {
			return none
		}
		return fmt.Sprintf("%.0f%%", *v)
	},
	"ishare": func(wl attribute.WorkloadAttribution) string {
		if wl.Interaction == nil || wl.Total == nil || wl.Total.TaxPct == 0 {
			return none
		}
		return fmt.Sprintf("%.0f%%", 100**wl.Interaction/wl.Total.TaxPct)
	},
})

// AttributionHTML renders the attribution as one self-contained page: the
// same tables as the text, and each workload's cumulative waterfall as an
// inline SVG chart (the PNG of `--chart` drawn the same way).
func AttributionHTML(w io.Writer, a *attribute.Attribution) error {
	charts, err := WaterfallCharts(a)
	if err != nil {
		return err
	}
	svg := map[int]template.HTML{}
	ci := 0
	for i, wl := range attributedWorkloads(a) {
		if len(wl.Waterfall) < 2 {
			continue
		}
		doc, err := charts[ci].SVG()
		if err != nil {
			return err
		}
		svg[i] = inlineSVG(doc, charts[ci].Title)
		ci++
	}
	return attributeTmpl.ExecuteTemplate(w, "page", struct {
		*attribute.Attribution
		Title, Convention, Legend string
		Lead                      []string
		Attributed                []attribute.WorkloadAttribution
		SVG                       map[int]template.HTML
		CSS                       template.CSS
	}{a, Headlined(a.Headline, "attribution of the tax to mitigations"), capital(attrConvention), attrLegend(a),
		attributionLead(a), attributedWorkloads(a), svg, template.CSS(htmlCSS)})
}
