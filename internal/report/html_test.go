package report

import (
	"bytes"
	"fmt"
	"image/png"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/testutil"
)

func renderHTML(t *testing.T, a, b compare.Side) []byte {
	t.Helper()
	return render(t, comparison(t, a, b), "html", false)
}

func TestHTMLGoldens(t *testing.T) {
	ba, bb := baselineSides(t)
	ra, rb := runSides()
	testutil.GoldenPage(t, filepath.Join("testdata", "study-wsl3.html"), renderHTML(t, ba, bb), "html.css", htmlCSS)
	testutil.GoldenPage(t, filepath.Join("testdata", "runs.html"), renderHTML(t, ra, rb), "html.css", htmlCSS)

	// Markdown with links to the PNG charts, as compare --png writes them.
	c := comparison(t, ra, rb)
	charts, err := Charts(c)
	if err != nil {
		t.Fatal(err)
	}
	var images []Image
	for _, c := range charts {
		images = append(images, Image{Title: c.Title, Alt: c.Alt, Path: "charts/" + c.Name + ".png"})
	}
	var b bytes.Buffer
	if err := Markdown(&b, c, Options{Images: images}); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "runs.images.md"), b.Bytes())
	if !strings.Contains(b.String(), "![sched-messaging groups=2 ipc=socket loops=100 mode=process: every sample: ") ||
		!strings.Contains(b.String(), "(charts/02-sched-messaging-samples.png)") {
		t.Errorf("markdown lacks the sched-messaging strip plot link:\n%s", b.String())
	}
}

// TestHTMLContent checks what the report must say, beyond the golden file:
// the headline figures, the charts, the meaning and the knowledge base.
func TestHTMLContent(t *testing.T) {
	ra, rb := runSides()
	page := string(renderHTML(t, ra, rb))
	for _, want := range []string{
		"<title>sectax: on vs off</title>",
		"<strong>B: no significant difference from A (no workload&#39;s primary metric differs at α = 0.05 after Holm&#39;s correction); inconclusive at ±2% on 2 of 2 workloads.</strong>",
		"<td class=\"num\">0.036</td><td class=\"num\">0.071</td>",
		"What this means",
		"B gives up these protections: Meltdown (rogue data cache load): local code could read kernel memory",
		"protection given up: local code could read kernel memory",
		"negative control",
		"microcode",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// One impact chart, and medians and samples for each of 3 workloads.
	if n := strings.Count(page, "<svg "); n != 7 {
		t.Errorf("%d inline SVG charts, want 7", n)
	}
	// The per-sample chart of syscall-basic has a dot per repetition: 12 on
	// A (two runs) and 6 on B.
	if n := strings.Count(page, "every repetition of usecs_per_op"); n < 1 {
		t.Error("no strip plot")
	}
}

// externalRef matches a reference that would make the browser fetch
// something: a URL with a scheme other than data:, or a protocol-relative one.
var externalRef = regexp.MustCompile(`(?i)^\s*(https?:|//|ftp:|file:)`)

// checkSelfContained parses the page and fails on anything that would load
// a resource from outside it.
func checkSelfContained(t *testing.T, page []byte) {
	t.Helper()
	for _, p := range selfContainedProblems(page) {
		t.Error(p)
	}
}

// selfContainedProblems lists what would make the page load anything.
func selfContainedProblems(page []byte) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return []string{fmt.Sprintf("HTML does not parse: %v", err)}
	}
	var title string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "link", "iframe", "object", "embed", "img", "base":
				errorf("element <%s> in a report that must load nothing", n.Data)
			case "title":
				if n.FirstChild != nil {
					title = n.FirstChild.Data
				}
			case "style":
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					checkCSS(errorf, c.Data)
				}
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case key == "src" || key == "href" || key == "xlink:href" || key == "action" || key == "srcset" || key == "poster":
					if externalRef.MatchString(a.Val) {
						errorf("<%s %s=%q> references an external resource", n.Data, a.Key, a.Val)
					}
				case key == "style":
					checkCSS(errorf, a.Val)
				case strings.HasPrefix(key, "on"):
					errorf("<%s %s> event handler", n.Data, a.Key)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if title == "" {
		errorf("no <title>")
	}
	return problems
}

var (
	tmplClassRe  = regexp.MustCompile(`class="([^"]*)"`)
	tmplActionRe = regexp.MustCompile(`{{[^}]*}}`)
)

// TestStyleSheet checks html.css once, the style sheet every page holds
// verbatim (the page goldens hold one line in its place): it loads
// nothing, and every class a page's template names has a rule in it.
func TestStyleSheet(t *testing.T) {
	checkCSS(t.Errorf, htmlCSS)
	for _, tmpl := range []string{pageTemplate, htmlTemplate, attributeTemplate, fleetTemplate} {
		for _, m := range tmplClassRe.FindAllStringSubmatch(tmplActionRe.ReplaceAllString(tmpl, " "), -1) {
			for _, class := range strings.Fields(m[1]) {
				if !regexp.MustCompile(`\.` + regexp.QuoteMeta(class) + `\b`).MatchString(htmlCSS) {
					t.Errorf("class %q of a template has no rule in html.css", class)
				}
			}
		}
	}
	ra, rb := runSides()
	page := renderHTML(t, ra, rb)
	if got := testutil.PageForGolden(t, page, "html.css", htmlCSS); bytes.Contains(got, []byte(htmlCSS)) || len(got) >= len(page) {
		t.Error("a page's golden still holds the style sheet")
	}
}

var cssURL = regexp.MustCompile(`(?i)url\(\s*['"]?([^'")]*)`)

func checkCSS(errorf func(string, ...any), css string) {
	if strings.Contains(strings.ToLower(css), "@import") {
		errorf("CSS has @import")
	}
	for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(m[1])), "data:") {
			errorf("CSS url(%s) is not a data: URL", m[1])
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	ba, bb := baselineSides(t)
	ra, rb := runSides()
	checkSelfContained(t, renderHTML(t, ba, bb))
	checkSelfContained(t, renderHTML(t, ra, rb))
}

// TestSelfContainedCheckFails makes sure the check above can fail.
func TestSelfContainedCheckFails(t *testing.T) {
	for _, bad := range []string{
		`<html><head><title>x</title><link rel="stylesheet" href="https://cdn.example/x.css"></head></html>`,
		`<html><head><title>x</title><style>@import "x.css";</style></head></html>`,
		`<html><head><title>x</title><style>body{background:url(//example.com/a.png)}</style></head></html>`,
		`<html><head><title>x</title></head><body><svg><image xlink:href="http://example.com/a.png"/></svg></body></html>`,
	} {
		if len(selfContainedProblems([]byte(bad))) == 0 {
			t.Errorf("check passed %s", bad)
		}
	}
}

// TestHTMLEscaping feeds hostile labels, host names, command lines and
// sysfs text: each shows as text, and the page gains no element.
func TestHTMLEscaping(t *testing.T) {
	const evil = "<script>alert(1)</script>"
	ra, rb := runSides()
	ra.Ref, rb.Ref = evil, `"><img src=x onerror=alert(2)>`
	for i := range ra.Envs {
		ra.Envs[i]["hostname"] = evil
		ra.Envs[i]["cmdline"] = map[string]any{"raw": `root=/dev/vda </style><script>alert(3)</script>`}
	}
	rb.Envs[0]["vulnerabilities"] = []any{map[string]any{"name": "meltdown", "raw": "Vulnerable <b onmouseover=alert(4)>x</b>", "state": "vulnerable"}}
	rb.Envs[0]["cpu"] = map[string]any{"model_name": "CPU ]]></text><script>alert(5)</script>", "microcode": "0x11"}
	page := renderHTML(t, ra, rb)
	checkSelfContained(t, page)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			text.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.Data == "b" || n.Data == "img" || n.Data == "script") {
			t.Errorf("hostile input became a <%s> element", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, want := range []string{evil, `"><img src=x onerror=alert(2)>`, "alert(3)", "<b onmouseover=alert(4)>x</b>", "alert(5)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte("<script>")) {
		t.Error("raw <script> in the page")
	}
}

func TestChartsPNG(t *testing.T) {
	ba, bb := baselineSides(t)
	charts, err := Charts(comparison(t, ba, bb))
	if err != nil {
		t.Fatal(err)
	}
	// A published figure is one value a side: no strip plot of one dot.
	if len(charts) != 5 {
		t.Fatalf("%d charts, want 5 (impact + the medians of 4 workloads, no one-dot strip plots)", len(charts))
	}
	for _, c := range charts {
		if c.Kind == ChartSamples {
			t.Errorf("a strip plot of single values: %s", c.Name)
		}
	}
	data, err := charts[0].PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// 880 pt wide at 144 dpi: the page's width, not two thirds of it.
	if w := img.Bounds().Dx(); w != 1760 {
		t.Errorf("impact PNG is %d px wide, want 1760", w)
	}
	// The study's bars are "untested" purple: the bar colour is drawn.
	found := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !found; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 == 0x74 && g>>8 == 0x70 && b>>8 == 0xb3 {
				found = true
				break
			}
		}
	}
	if !found {
		t.Error("impact PNG has no bar in the published-figure colour")
	}
}

// TestHTMLSaysWhereMeasured: "on this machine" only for runs measured
// here; a published baseline was measured elsewhere, and its single values
// get no strip plot.
func TestHTMLSaysWhereMeasured(t *testing.T) {
	ba, bb := baselineSides(t)
	ra, rb := runSides()
	study, runs := string(renderHTML(t, ba, bb)), string(renderHTML(t, ra, rb))
	if strings.Contains(study, "on this machine") || !strings.Contains(study, "cost on the machine the published figures were measured on (not this one)") {
		t.Errorf("the study's page does not say its figures were measured elsewhere")
	}
	if strings.Contains(study, "every sample") {
		t.Errorf("the study's page draws strip plots of single values")
	}
	if !strings.Contains(runs, "cost on this machine, and what they protect") || !strings.Contains(runs, "every sample") {
		t.Errorf("the runs' page does not say they were measured on this machine, or lacks its strip plots")
	}
	if got := measuredWhere(false, true); got != "on this machine against published figures measured elsewhere" {
		t.Errorf("a run against a baseline: %q", got)
	}
}
