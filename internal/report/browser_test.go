package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	stdhtml "html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// browser is one headless Chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: NUL-terminated JSON on fds 3 and 4), so
// that every browser test of this package shares one start: each page is
// a new tab of it.
type browser struct {
	cmd     *exec.Cmd
	profile string
	w       *os.File // the browser's fd 3: commands
	r       *os.File // the browser's fd 4: replies and events
	buf     []byte
	next    int
	stderr  bytes.Buffer
}

// chrome is the package's shared browser, started on first use and closed
// by TestMain.
var chrome struct {
	once sync.Once
	b    *browser
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chrome.b != nil {
		chrome.b.close()
	}
	os.Exit(code)
}

// sharedBrowser returns the package's browser, starting it on first use;
// without Chromium the test is skipped (failed under CI=true).
func sharedBrowser(t *testing.T) *browser {
	t.Helper()
	bin := findChromium()
	if bin == "" {
		testutil.Need(t, "no chromium installed (apt-get install chromium; .ci/run does it): the real-browser test is skipped")
	}
	chrome.once.Do(func() { chrome.b, chrome.err = startBrowser(bin) })
	if chrome.err != nil {
		t.Fatal(chrome.err)
	}
	return chrome.b
}

func startBrowser(bin string) (*browser, error) {
	// Chromium's helpers outlive its main process; as a subreaper this
	// test process inherits them and close reaps them, so that none is
	// left behind, not even as a zombie.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	profile, err := os.MkdirTemp("", "sectax-chromium-")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	b := &browser{profile: profile, w: cmdW, r: outR}
	b.cmd = exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--remote-debugging-pipe", "--user-data-dir="+profile, "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = &b.stderr
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = b.cmd.Start()
	cmdR.Close()
	outW.Close()
	if err != nil {
		b.close()
		return nil, err
	}
	if _, err := b.call("", "Browser.getVersion", nil); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// call sends one command (to a tab when session is set) and returns its
// result, skipping the events before it; a minute is the watchdog.
func (b *browser) call(session, method string, params any) (json.RawMessage, error) {
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return nil, fmt.Errorf("chromium: %s: %v\n%s", method, err, lastLines(b.stderr.String(), 10))
	}
	b.r.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		k := bytes.IndexByte(b.buf, 0)
		if k < 0 {
			chunk := make([]byte, 1<<16)
			n, err := b.r.Read(chunk)
			b.buf = append(b.buf, chunk[:n]...)
			if err != nil {
				return nil, fmt.Errorf("chromium: %s: no reply: %v\n%s", method, err, lastLines(b.stderr.String(), 10))
			}
			continue
		}
		frame := b.buf[:k]
		b.buf = b.buf[k+1:]
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(frame, &reply); err != nil {
			return nil, fmt.Errorf("chromium: %s: %v", method, err)
		}
		if reply.ID != id { // an event
			continue
		}
		if reply.Error != nil {
			return nil, fmt.Errorf("chromium: %s: %s", method, reply.Error.Message)
		}
		return reply.Result, nil
	}
}

// tab is one page of the shared browser at a window of w×h CSS pixels.
type tab struct {
	b       *browser
	target  string
	session string
}

// open loads the local file page in a new tab of w×h pixels and waits for
// its load event; the tab is closed when the test ends.
func (b *browser) open(t *testing.T, page string, w, h int) *tab {
	t.Helper()
	var created struct {
		TargetID string `json:"targetId"`
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	must := func(raw json.RawMessage, err error, into any) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if into != nil {
			if err := json.Unmarshal(raw, into); err != nil {
				t.Fatal(err)
			}
		}
	}
	raw, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	must(raw, err, &created)
	tb := &tab{b: b, target: created.TargetID}
	t.Cleanup(func() { b.call("", "Target.closeTarget", map[string]any{"targetId": tb.target}) })
	raw, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true})
	must(raw, err, &attached)
	tb.session = attached.SessionID
	raw, err = b.call(tb.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": w, "height": h, "deviceScaleFactor": 1, "mobile": false})
	must(raw, err, nil)
	raw, err = b.call(tb.session, "Page.navigate", map[string]any{"url": "file://" + page})
	must(raw, err, nil)
	// Wait for the load event by the page's own state, not by time.
	tb.eval(t, `new Promise(r => document.readyState === "complete" ? r(true) : addEventListener("load", () => r(true)))`)
	return tb
}

// eval evaluates a JavaScript expression in the tab (awaiting a promise)
// and returns its value as JSON.
func (tb *tab) eval(t *testing.T, expr string) json.RawMessage {
	t.Helper()
	raw, err := tb.b.call(tb.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Exception != nil {
		t.Fatalf("%s: %s", expr, res.Exception.Text)
	}
	return res.Result.Value
}

// dom is the tab's document as serialised HTML (what --dump-dom prints).
func (tb *tab) dom(t *testing.T) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(tb.eval(t, "document.documentElement.outerHTML"), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// screenshot is a PNG of the tab's window.
func (tb *tab) screenshot(t *testing.T) []byte {
	t.Helper()
	raw, err := tb.b.call(tb.session, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Data []byte `json:"data"` // base64 in JSON
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res.Data
}

// close ends the browser (Browser.close, then its process group), reaps
// it and its helpers and removes its profile.
func (b *browser) close() {
	if b.cmd != nil && b.cmd.Process != nil {
		done := make(chan struct{})
		go func() {
			b.call("", "Browser.close", nil)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		pgid := b.cmd.Process.Pid
		syscall.Kill(-pgid, syscall.SIGKILL)
		b.cmd.Wait()
		for {
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(-pgid, &ws, 0, nil); err != nil { // ECHILD: all reaped
				break
			}
		}
	}
	b.w.Close()
	b.r.Close()
	os.RemoveAll(b.profile)
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
	b := sharedBrowser(t)
	dir := t.TempDir()
	ba, bb := baselineSides(t)
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, renderHTML(t, ba, bb), 0o644); err != nil {
		t.Fatal(err)
	}
	tb := b.open(t, page, 1280, 2400)
	shot := tb.screenshot(t)
	img, err := png.Decode(bytes.NewReader(shot))
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
		os.WriteFile(p, shot, 0o644)
	}

	dom := tb.dom(t)
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
	b := sharedBrowser(t)
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
			dom := b.open(t, page, 1280, 2400).dom(t)
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
