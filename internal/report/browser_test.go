package report

import (
	"bytes"
	"context"
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
