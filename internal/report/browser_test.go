package report

import (
	"bytes"
	"context"
	"encoding/json"
	stdhtml "html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sectax/sectax/internal/testutil"
)

// findChromium returns a headless-capable Chromium, or "" when none is
// installed (.ci/run installs Debian's chromium).
func findChromium() string {
	if p := os.Getenv("SECTAX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runChromium runs a headless Chromium on a local file in its own process
// group, killed as a whole when the test's time runs out.
func runChromium(t *testing.T, bin, userDir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--user-data-dir=" + userDir}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Chromium's helpers outlive its main process; as a subreaper this
	// test process inherits them and reaps them below, so that none is
	// left behind, not even as a zombie.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Logf("cannot become a subreaper: %v", err)
	}
	err := cmd.Run()
	if cmd.Process != nil {
		pgid := cmd.Process.Pid
		syscall.Kill(-pgid, syscall.SIGKILL)
		for {
			var ws syscall.WaitStatus
			if _, werr := syscall.Wait4(-pgid, &ws, 0, nil); werr != nil { // ECHILD: all reaped
				break
			}
		}
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, lastLines(errb.String(), 10))
	}
	return out.Bytes()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestHTMLInBrowser renders the study report in a real headless Chromium:
// the screenshot must be a non-blank image of the window's size with the
// charts' colours in it, and the DOM must hold the title.
func TestHTMLInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		testutil.Need(t, "no chromium installed (apt-get install chromium; .ci/run does it): the real-browser test is skipped")
	}
	dir := t.TempDir()
	ba, bb := baselineSides(t)
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, renderHTML(t, ba, bb), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	shot := filepath.Join(dir, "shot.png")
	runChromium(t, bin, filepath.Join(dir, "profile1"), "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars", url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2400 {
		t.Errorf("screenshot is %dx%d, want 1280x2400", b.Dx(), b.Dy())
	}
	colors := map[uint32]int{}
	var accent int // pixels in the A colour (orange bars and tags)
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 3 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			colors[r<<16|g<<8|b]++
			if absDiff(r, 0xd9) < 12 && absDiff(g, 0x5f) < 12 && absDiff(b, 0x02) < 12 {
				accent++
			}
		}
	}
	if len(colors) < 20 {
		t.Errorf("screenshot looks blank: %d distinct colours", len(colors))
	}
	if accent < 200 {
		t.Errorf("screenshot has %d pixels of the A colour: the charts did not render", accent)
	}
	if p := os.Getenv("SECTAX_SCREENSHOT"); p != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(p, data, 0o644)
	}

	dom := string(runChromium(t, bin, filepath.Join(dir, "profile2"), "--dump-dom", url))
	for _, want := range []string{
		"<title>sectax: baseline:study-wsl3-on vs baseline:study-wsl3-off</title>",
		"Security tax: baseline:study-wsl3-on vs baseline:study-wsl3-off",
		"What this means",
		"<svg",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's DOM lacks %q", want)
		}
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// layoutProbe measures the rendered page in the browser and writes what
// it found into the DOM as JSON (read back from --dump-dom): the elements
// wider than the content column (body's box less its padding; the
// outermost of them), and, per
// strip plot, the sample dots a legend box covers. A legend is its labels
// ("A …", "B …") and the glyph gonum draws just before each; a strip
// plot's dots are the other paths in a side's colour, its plotted area
// the extent of its grid lines.
const layoutProbe = `<script>
(function () {
  const bs = getComputedStyle(document.body), br = document.body.getBoundingClientRect();
  const left = br.left + parseFloat(bs.paddingLeft), right = br.right - parseFloat(bs.paddingRight);
  const out = {column: [Math.round(left), Math.round(right)], wide: [], covered: [], onArea: [], legends: 0};
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    const pr = el.parentElement && el.parentElement !== document.body ? el.parentElement.getBoundingClientRect() : null;
    const outside = x => x.width > 0 && (x.right > right + 0.5 || x.left < left - 0.5);
    if (outside(r) && !(pr && outside(pr))) { // the outermost only
      out.wide.push(el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className : '') +
        ' ' + Math.round(r.left) + '..' + Math.round(r.right));
    }
  }
  const colours = ['#d95f02', '#1b9e77', 'rgb(217,95,2)', 'rgb(27,158,119)'];
  const coloured = el => { const s = ((el.getAttribute('style') || '') + ';fill:' + (el.getAttribute('fill') || '')).replace(/ /g, '').toLowerCase(); return colours.some(c => s.includes('fill:' + c)); };
  for (const svg of document.querySelectorAll('svg')) {
    const labels = [...svg.querySelectorAll('text')].filter(t => /^[AB] /.test(t.textContent.trim()));
    if (labels.length === 0) continue;
    const first = labels[0];
    const glyphs = labels.map(t => t.previousElementSibling).filter(g => g && g.tagName.toLowerCase() === 'path' && coloured(g));
    const dots = [...svg.querySelectorAll('path')].filter(p => coloured(p) && !glyphs.includes(p));
    if (dots.length === 0) continue;
    out.legends++;
    let box = null;
    for (const e of labels.concat(glyphs)) {
      const r = e.getBoundingClientRect();
      box = box ? {l: Math.min(box.l, r.left), r: Math.max(box.r, r.right), t: Math.min(box.t, r.top), b: Math.max(box.b, r.bottom)} : {l: r.left, r: r.right, t: r.top, b: r.bottom};
    }
    let area = null; // the plotted area: where the grid lines run
    for (const g of svg.querySelectorAll('path')) {
      const st = (g.getAttribute('style') || '').replace(/ /g, '').toLowerCase();
      if (!st.includes('stroke:#808080') || !st.includes('fill:none')) continue;
      const r = g.getBoundingClientRect();
      area = area ? {l: Math.min(area.l, r.left), r: Math.max(area.r, r.right), t: Math.min(area.t, r.top), b: Math.max(area.b, r.bottom)} : {l: r.left, r: r.right, t: r.top, b: r.bottom};
    }
    if (area && box.l < area.r && box.r > area.l && box.t < area.b && box.b > area.t) {
      out.onArea.push(first.textContent.trim() + ': legend ' + [box.l, box.t, box.r, box.b].map(Math.round) + ' on the plotted area ' + [area.l, area.t, area.r, area.b].map(Math.round));
    }
    for (const d of dots) {
      const r = d.getBoundingClientRect();
      if (r.left < box.r && r.right > box.l && r.top < box.b && r.bottom > box.t) {
        out.covered.push(first.textContent.trim() + ': a dot at ' + Math.round(r.left) + ',' + Math.round(r.top));
      }
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'layout';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// TestHTMLLayoutInBrowser renders the comparison reports at 1280 px in
// headless Chromium and measures them: no element may be wider than the
// content column (the results table once ran 70 px past it), and no
// strip plot's legend may cover a sample dot or sit on the plotted area
// (the grid's extent) at all.
func TestHTMLLayoutInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		testutil.Need(t, "no chromium installed (apt-get install chromium; .ci/run does it): the real-browser test is skipped")
	}
	ba, bb := baselineSides(t)
	ra, rb := runSides()
	qa, qb := quickSides()
	for _, tc := range []struct {
		name    string
		page    []byte
		legends bool
	}{
		{"study", renderHTML(t, ba, bb), false},
		{"runs", renderHTML(t, ra, rb), true},
		{"quick", renderHTML(t, qa, qb), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			page := filepath.Join(dir, "report.html")
			html := strings.Replace(string(tc.page), "</body>", layoutProbe+"</body>", 1)
			if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := string(runChromium(t, bin, filepath.Join(dir, "profile"), "--window-size=1280,2400", "--hide-scrollbars", "--dump-dom", "file://"+page))
			i := strings.Index(dom, `<pre id="layout">`)
			j := strings.Index(dom[max(i, 0):], "</pre>")
			if i < 0 || j < 0 {
				t.Fatalf("the probe wrote nothing:\n%s", lastLines(dom, 5))
			}
			var got struct {
				Column  []int    `json:"column"`
				Wide    []string `json:"wide"`
				Covered []string `json:"covered"`
				OnArea  []string `json:"onArea"`
				Legends int      `json:"legends"`
			}
			raw := stdhtml.UnescapeString(dom[i+len(`<pre id="layout">`) : i+j])
			if err := json.Unmarshal([]byte(raw), &got); err != nil {
				t.Fatalf("probe: %v: %s", err, raw)
			}
			for _, w := range got.Wide {
				t.Errorf("wider than the content column %v: %s", got.Column, w)
			}
			if tc.legends && got.Legends == 0 {
				t.Errorf("no strip plot with a legend found")
			}
			for _, c := range got.Covered {
				t.Errorf("a legend covers a sample: %s", c)
			}
			for _, c := range got.OnArea {
				t.Errorf("a legend sits on the plotted area, where it can cover samples: %s", c)
			}
		})
	}
}
