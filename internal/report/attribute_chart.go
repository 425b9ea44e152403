package report

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/sectax/sectax/internal/attribute"
)

// ChartWaterfall is the kind of an attribution's cumulative waterfall.
const ChartWaterfall = "waterfall"

// WaterfallCharts draws, as comparison charts are drawn, one cumulative
// waterfall per workload that has one (two steps or more besides on): a
// floating bar per step of the plan's cumulative order, from the tax
// removed before the step to the tax removed after it, green where a step
// removes tax and orange where it adds some back.
func WaterfallCharts(a *attribute.Attribution) ([]Chart, error) {
	var out []Chart
	for i, wl := range attributedWorkloads(a) {
		if len(wl.Waterfall) < 2 {
			continue
		}
		title := fmt.Sprintf("%s %s: tax removed step by step (%s)", wl.Workload, wl.Params, wl.Metric)
		p := newPlot(title)
		p.Y.Label.Text = "tax removed against on (%)"
		var names []string
		for _, s := range wl.Waterfall {
			names = append(names, s.Config)
		}
		p.NominalX(names...)
		p.X.Tick.Label.Rotation = 0.5
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		p.Add(plotter.NewGrid(), waterfallBars(wl.Waterfall))
		out = append(out, Chart{Name: fmt.Sprintf("%02d-%s-waterfall", i+1, slug(wl.Workload)), Kind: ChartWaterfall,
			Workload: i, Title: title, Alt: title, w: 16 * vg.Centimeter, h: 10 * vg.Centimeter, plot: p})
	}
	return out, nil
}

// waterfallBars is a plotter of floating bars, one per step.
type waterfallBars []attribute.Step

// Plot implements plot.Plotter.
func (w waterfallBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	prev := 0.0
	for i, s := range w {
		lo, hi := prev, s.CumulativePct
		col := color.Color(colorB)
		if hi < lo {
			lo, hi, col = hi, lo, colorA
		}
		if i == 0 || hi == lo {
			// on: the origin, a thin mark at zero.
			hi = lo + 0.0001
		}
		x0, x1 := trX(float64(i)-0.35), trX(float64(i)+0.35)
		rect := vg.Rectangle{Min: vg.Point{X: x0, Y: trY(lo)}, Max: vg.Point{X: x1, Y: trY(hi)}}
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{rect.Min, {X: rect.Max.X, Y: rect.Min.Y}, rect.Max, {X: rect.Min.X, Y: rect.Max.Y}}))
		prev = s.CumulativePct
	}
}

// DataRange implements plot.DataRanger.
func (w waterfallBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(w))-0.5
	for _, s := range w {
		ymin, ymax = min(ymin, s.CumulativePct), max(ymax, s.CumulativePct)
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	return xmin, xmax, ymin, ymax
}
