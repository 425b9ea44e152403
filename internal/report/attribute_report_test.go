package report

import (
	"bytes"
	"image/png"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// attributionReport has known answers: on 12 µs, off 10 (20%), no-meltdown
// 11 (9.09%), no-verw 11.5 (4.35%), interaction 6.56%.
func attributionReport(t *testing.T) *attribute.Attribution {
	t.Helper()
	jitter := []float64{1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005}
	mk := func(id string, centre float64) []*run.Run {
		xs := make([]float64, len(jitter))
		for i, j := range jitter {
			xs[i] = centre * j
		}
		return []*run.Run{{Schema: run.Schema, ID: id, Label: id, Results: []run.Result{{
			Workload: "syscall-basic", Params: map[string]any{"loops": int64(1000)},
			Metrics: []run.Metric{{Name: "usecs_per_op", Unit: "µs/op", Better: run.Lower, Samples: xs}}}}}}
	}
	arms := []attribute.Arm{
		{Name: "on", Runs: mk("r-on", 12)}, {Name: "off", Runs: mk("r-off", 10)},
		{Name: "no-meltdown", Runs: mk("r-nopti", 11)}, {Name: "no-verw", Runs: mk("r-noverw", 11.5)},
		{Name: "cum-2", Runs: mk("r-cum2", 10.5)}, {Name: "rest-only", Runs: mk("r-rest", 12)},
	}
	a, err := attribute.Attribute(arms, []string{"on", "no-meltdown", "cum-2", "off"}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAttributionGolden(t *testing.T) {
	a := attributionReport(t)
	fitsWidths(t, "attribution", func(w io.Writer) error { return AttributionText(w, a) })
	for name, fn := range map[string]func(*bytes.Buffer) error{
		"attribution.txt":  func(b *bytes.Buffer) error { return AttributionText(b, a) },
		"attribution.md":   func(b *bytes.Buffer) error { return AttributionMarkdown(b, a) },
		"attribution.json": func(b *bytes.Buffer) error { return AttributionJSON(b, a) },
		"attribution.html": func(b *bytes.Buffer) error { return AttributionHTML(b, a) },
	} {
		var b bytes.Buffer
		if err := fn(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(name, ".html") {
			testutil.Golden(t, filepath.Join("testdata", name), b.Bytes())
		} else {
			testutil.GoldenPage(t, filepath.Join("testdata", name), b.Bytes(), "html.css", htmlCSS)
			checkSelfContained(t, b.Bytes())
			if !strings.Contains(b.String(), "<svg") {
				t.Error("the HTML attribution has no waterfall chart")
			}
		}
	}
}

func TestWaterfallCharts(t *testing.T) {
	charts, err := WaterfallCharts(attributionReport(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 1 || charts[0].Name != "01-syscall-basic-waterfall" {
		t.Fatalf("charts %+v", charts)
	}
	b, err := charts[0].PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X < 800 || sz.Y < 500 {
		t.Errorf("PNG is %v", sz)
	}
	// The bars are drawn: the green of a step that removes tax is there.
	green := 0
	for y := 0; y < img.Bounds().Dy(); y += 2 {
		for x := 0; x < img.Bounds().Dx(); x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0x1b && g>>8 == 0x9e && bl>>8 == 0x77 {
				green++
			}
		}
	}
	if green < 100 {
		t.Errorf("only %d green pixels: no bars drawn", green)
	}
	svg, err := charts[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "attribution-waterfall.svg"), svg)
}
