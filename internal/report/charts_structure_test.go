package report

import (
	"bytes"
	"errors"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/compare"
)

// The charts are tested by their structure here (titles, labels, bars,
// colours, axis range); the HTML goldens hold a placeholder for each
// (withoutCharts), since gonum's markup moves with font metrics.

var (
	svgTextRe = regexp.MustCompile(`(?s)<text[^>]*>(.*?)</text>`)
	svgRectRe = regexp.MustCompile(`<path d="M([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)L([-\d.]+),([-\d.]+)Z"\s*(?:style="fill:(#[0-9A-F]{6})")?\s*/>`)
)

// svgBar is a filled rectangle of a chart: its fill ("" for gonum's
// default black) and its extent.
type svgBar struct {
	fill           string
	x0, x1, y0, y1 float64
}

// chartShape returns the texts and filled rectangles of a chart's SVG, in
// drawing order, without the white background.
func chartShape(t *testing.T, c Chart) (texts []string, bars []svgBar) {
	t.Helper()
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range svgTextRe.FindAllSubmatch(svg, -1) {
		texts = append(texts, strings.TrimSpace(string(m[1])))
	}
	for _, m := range svgRectRe.FindAllSubmatch(svg, -1) {
		if string(m[9]) == "#FFFFFF" {
			continue
		}
		f := func(i int) float64 { v, _ := strconv.ParseFloat(string(m[i]), 64); return v }
		xs := []float64{f(1), f(3), f(5), f(7)}
		ys := []float64{f(2), f(4), f(6), f(8)}
		bars = append(bars, svgBar{fill: string(m[9]), x0: xs[0], x1: xs[2], y0: ys[0], y1: ys[2]})
	}
	return texts, bars
}

// hex is a colour as vgsvg writes it ("#1B9E77").
func hex(c interface{ RGBA() (r, g, b, a uint32) }) string {
	r, g, b, _ := c.RGBA()
	return strings.ToUpper("#" + twoHex(r>>8) + twoHex(g>>8) + twoHex(b>>8))
}

func twoHex(v uint32) string {
	s := strconv.FormatUint(uint64(v), 16)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

// TestImpactChartStructure: the pair's impact chart of the study has a bar
// per workload in the report's order and one for the geomean, each as long
// as the change the table prints (the median's change from A to B in
// percent; the geomean as a change of cost, 1/speedup − 1), published
// figures in the published colour and the geomean in black, labelled by
// workload and primary metric, its axis reaching the longest bar.
func TestImpactChartStructure(t *testing.T) {
	ba, bb := baselineSides(t)
	c := comparison(t, ba, bb)
	charts, err := Charts(c)
	if err != nil {
		t.Fatal(err)
	}
	if charts[0].Kind != ChartImpact {
		t.Fatalf("first chart is %s, want the impact", charts[0].Kind)
	}
	texts, bars := chartShape(t, charts[0])
	rep := c.Comparisons[0]
	var want []float64
	for _, wl := range rep.Workloads {
		v, _ := change(wl.Metrics[0])
		want = append(want, v)
		if label := wl.ID + " " + wl.Metrics[0].Name; !slices.Contains(texts, label) { // one side: no "B: "
			t.Errorf("no label %q in %q", label, texts)
		}
	}
	want = append(want, (1/rep.Geomean.Speedup-1)*100)
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d (a workload each and the geomean): %+v", len(bars), len(want), bars)
	}
	if !strings.HasPrefix(texts[0], "Impact: B (baseline:study-wsl3-off) against A (baseline:study-wsl3-on)") || !slices.Contains(texts, "geomean (of cost)") {
		t.Errorf("title or geomean label missing: %q", texts)
	}
	zero := bars[0].x0 // every bar starts at 0
	scale := (bars[0].x1 - zero) / want[0]
	longest := 0.0
	for i, b := range bars {
		if b.x0 != zero {
			t.Errorf("bar %d starts at %v, not at 0 (%v)", i, b.x0, zero)
		}
		if got := (b.x1 - zero) / scale; math.Abs(got-want[i]) > 0.01*math.Abs(want[0]) {
			t.Errorf("bar %d is %.1f%% long, want %.1f%%", i, got, want[i])
		}
		fill := hex(colorPub)
		if i == len(bars)-1 {
			fill = "" // the geomean: black
		}
		if b.fill != fill {
			t.Errorf("bar %d is %q, want %q", i, b.fill, fill)
		}
		if math.Abs(want[i]) > math.Abs(longest) {
			longest = want[i]
		}
	}
	// The axis reaches past the longest bar: its last tick is within a
	// tick step of it.
	var ticks []float64
	for _, s := range texts {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			ticks = append(ticks, v)
		}
	}
	slices.Sort(ticks)
	far := ticks[len(ticks)-1] // the tick farthest from 0 towards the longest bar
	if longest < 0 {
		far = ticks[0]
	}
	if len(ticks) < 2 || !slices.Contains(ticks, 0) || math.Abs(far) > math.Abs(longest) || math.Abs(longest-far) > ticks[1]-ticks[0] {
		t.Errorf("x ticks %v do not span 0 to %.1f", ticks, longest)
	}
}

// TestChartColours: a change that is not significant is grey in the
// impact chart, A and B keep their colours in the medians chart, and with
// three sides the charts are the same: a grey bar per side and workload
// (labelled with the side's letter), and in the medians chart a bar in
// each side's colour.
func TestChartColours(t *testing.T) {
	ra, rb := runSides()
	charts, err := Charts(comparison(t, ra, rb))
	if err != nil {
		t.Fatal(err)
	}
	_, bars := chartShape(t, charts[0])
	for i, b := range bars[:len(bars)-1] { // the last is the geomean
		if b.fill != hex(colorGrey) {
			t.Errorf("impact bar %d is %s, want grey: nothing differs significantly", i, b.fill)
		}
	}
	texts, bars := chartShape(t, charts[1])
	if charts[1].Kind != ChartMedians || len(bars) != 2 || bars[0].fill != hex(colorA) || bars[1].fill != hex(colorB) {
		t.Errorf("medians chart: %s with bars %+v, want A then B", charts[1].Kind, bars)
	}
	if !slices.Contains(texts, "A on") || !slices.Contains(texts, "B off") || !slices.Contains(texts, "µs/op") {
		t.Errorf("medians chart labels %q", texts)
	}

	mc := comparison(t, runSidesMulti()...)
	multi, err := Charts(mc)
	if err != nil {
		t.Fatal(err)
	}
	if len(multi) != len(charts) || multi[0].Kind != ChartImpact || multi[1].Kind != ChartMedians {
		t.Fatalf("three sides: %d charts, want the %d of a pair", len(multi), len(charts))
	}
	texts, bars = chartShape(t, multi[0])
	grey, black := 0, 0
	for _, b := range bars {
		switch b.fill {
		case hex(colorGrey):
			grey++
		case "":
			black++
		}
	}
	if grey != 6 || black != 2 {
		t.Errorf("three sides' impact: %d grey and %d black bars, want 6 (3 workloads × 2 sides) and 2 (each side's geomean)", grey, black)
	}
	for _, l := range []string{"B: syscall-basic usecs_per_op", "C: syscall-basic usecs_per_op", "C: geomean (of cost)"} {
		if !slices.Contains(texts, l) {
			t.Errorf("no bar %q in %q", l, texts)
		}
	}
	texts, bars = chartShape(t, multi[1])
	if len(bars) != 3 || bars[0].fill != hex(sideColor(0)) || bars[1].fill != hex(sideColor(1)) || bars[2].fill != hex(sideColor(2)) {
		t.Errorf("three sides' medians chart: bars %+v, want one per side in its colour", bars)
	}
	for s, ref := range []string{"on", "off", "off2"} {
		if l := compare.SideLetter(s) + " " + ref; !slices.Contains(texts, l) {
			t.Errorf("no label %q in %q", l, texts)
		}
	}
}

// TestWriteImages: every chart is handed over as NAME.png, and the
// report's links point at dir/NAME.png from where the report file is
// (the path as given when the report goes to standard output).
func TestWriteImages(t *testing.T) {
	ba, bb := baselineSides(t)
	charts, err := Charts(comparison(t, ba, bb))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{"", "charts/dir/" + charts[0].Name + ".png"},
		{"-", "charts/dir/" + charts[0].Name + ".png"},
		{"charts/report.md", "dir/" + charts[0].Name + ".png"},
	} {
		var names []string
		images, err := WriteImages(charts, "charts/dir", tc.out, func(name string, png []byte) error {
			if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s is not a PNG", name)
			}
			names = append(names, name)
			return nil
		})
		if err != nil || len(images) != len(charts) || len(names) != len(charts) {
			t.Fatalf("out %q: %d images, %d files, %v; want %d", tc.out, len(images), len(names), err, len(charts))
		}
		if names[0] != charts[0].Name+".png" || images[0].Path != tc.want || images[0].Title != charts[0].Title {
			t.Errorf("out %q: wrote %s linked as %q, want %s.png linked as %q", tc.out, names[0], images[0].Path, charts[0].Name, tc.want)
		}
	}
	stop := errors.New("disk full")
	if _, err := WriteImages(charts, "d", "", func(string, []byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("a failed write: %v", err)
	}
}
