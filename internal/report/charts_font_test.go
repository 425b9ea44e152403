package report

import (
	"regexp"
	"testing"
)

var svgFontRe = regexp.MustCompile(`font-family:([^;"]*);font-variant:([^;"]*);font-weight:([^;"]*);font-style:([^;"]*);`)

// TestChartsOneFace: every text of every chart (a pair's, three or more
// sides', the attribution's waterfall) is Liberation Sans Regular, the one
// face third_party/liberation carries; another face would be drawn with
// its shapes and metrics.
func TestChartsOneFace(t *testing.T) {
	ra, rb := runSides()
	charts, err := Charts(comparison(t, ra, rb))
	if err != nil {
		t.Fatal(err)
	}
	multi, err := Charts(comparison(t, runSidesMulti()...))
	if err != nil {
		t.Fatal(err)
	}
	waterfalls, err := WaterfallCharts(attributionReport(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(append(charts, multi...), waterfalls...) {
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		fonts := svgFontRe.FindAllSubmatch(svg, -1)
		if len(fonts) == 0 {
			t.Errorf("%s: no text", c.Name)
		}
		for _, f := range fonts {
			if string(f[1]) != "Liberation Sans" || string(f[2]) != "normal" || string(f[3]) != "normal" || string(f[4]) != "normal" {
				t.Errorf("%s: text in %s", c.Name, f[0])
				break
			}
		}
	}
}
