package report

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/fleet/fleettest"
	"github.com/sectax/sectax/internal/testutil"
)

func syntheticFleet(t *testing.T) []fleet.Run {
	t.Helper()
	var runs []fleet.Run
	for _, d := range fleettest.Fleet(1) {
		var env map[string]any
		if err := json.Unmarshal(d.RawEnv, &env); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, fleet.Run{Run: d.Run, Env: env})
	}
	return runs
}

// TestFleetFormats: every rendering of the synthetic fleet matches its
// golden and says that the data is synthetic; the HTML page is
// self-contained.
func TestFleetFormats(t *testing.T) {
	rep := fleet.Build(syntheticFleet(t), "on", "off")
	fitsWidths(t, "fleet", func(w io.Writer) error { return FleetFormats.Render(w, "text", rep, Options{}) })
	for _, f := range FleetFormats.Names() {
		var b bytes.Buffer
		if err := FleetFormats.Render(&b, f, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(b.String()), "synthetic") {
			t.Errorf("%s rendering does not say synthetic", f)
		}
		path := filepath.Join("testdata", "fleet."+map[string]string{"text": "txt", "md": "md", "json": "json", "html": "html"}[f])
		if f != "html" {
			testutil.Golden(t, path, b.Bytes())
		} else {
			testutil.GoldenPage(t, path, b.Bytes(), "html.css", htmlCSS)
			checkSelfContained(t, b.Bytes())
		}
	}
	if err := FleetFormats.Render(&bytes.Buffer{}, "yaml", rep, Options{}); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestFleetHostileNames: a host, CPU or kernel name from another host's
// import cannot reach a terminal raw, break a Markdown heading or table,
// or inject HTML.
func TestFleetHostileNames(t *testing.T) {
	runs := syntheticFleet(t)
	for _, r := range runs {
		if strings.Contains(r.Run.ID, "epyc-07") { // the EPYC host without a pair
			r.Env["hostname"] = "evil\x1b]0;pwned\a\n# heading | <script>alert(1)</script>"
		}
		if cpu, ok := r.Env["cpu"].(map[string]any); ok && strings.Contains(r.Run.ID, "xeon") {
			cpu["model_name"] = "Xeon\n## injected | `x` <b>bold</b>"
		}
	}
	rep := fleet.Build(runs, "on", "off")
	for _, f := range []string{"text", "md", "html"} {
		var b bytes.Buffer
		if err := FleetFormats.Render(&b, f, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%s: a control character reached the output", f)
		}
		if f != "html" && (strings.Contains(out, "\n# heading") || strings.Contains(out, "\n## injected")) {
			t.Errorf("%s: a newline in a name started a heading:\n%s", f, out)
		}
		if f == "html" && (strings.Contains(out, "<script>") || strings.Contains(out, "<b>bold")) {
			t.Errorf("html: markup from a name reached the page")
		}
	}
}

// TestFleetTextAligned: a long parameter list widens the workload column
// instead of pushing its row out of line: every row's metric starts where
// the header's does.
func TestFleetTextAligned(t *testing.T) {
	rep := fleet.Build(syntheticFleet(t), "on", "off")
	if len(rep.Groups) == 0 || len(rep.Groups[0].Workloads) == 0 {
		t.Fatal("the synthetic fleet has no workload rows")
	}
	rep.Groups[0].Workloads[0].Params = "groups=20 ipc=socket loops=1000 mode=process spawn=fork style=pingpong x=1"
	var b bytes.Buffer
	if err := FleetFormats.Render(&b, "text", rep, Options{}); err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "  workload ") {
			col = strings.Index(l, "metric")
			if col > 0 {
				col = len([]rune(l[:col])) // in runes: a cut cell ends in "…"
			}
			continue
		}
		if col < 0 || !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "  not paired") || strings.Contains(l, "hosts with a verified") {
			if l == "" {
				col = -1
			}
			continue
		}
		if r := []rune(l); col >= len(r) || r[col-1] != ' ' || r[col] == ' ' {
			t.Errorf("row out of line with the header (metric at column %d):\n%s\n%s", col, b.String(), l)
		}
	}
	if col < 0 && !strings.Contains(b.String(), "  workload ") {
		t.Fatalf("no table header:\n%s", b.String())
	}
}
