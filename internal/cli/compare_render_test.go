package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sectax/sectax/internal/baseline"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/stats"
)

// baselineSides are the embedded baselines named, as compare.Sides.
func baselineSides(t *testing.T, names ...string) []compare.Side {
	t.Helper()
	var out []compare.Side
	for _, n := range names {
		d, err := baseline.Get(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, compare.BaselineSide(baseline.Prefix+n, d))
	}
	return out
}

// reachesRenderer runs args and checks that the command succeeds, says
// nothing on standard error, and writes what the renderer of format writes
// for the comparison of sides at the default α, without colour: the
// command reaches report with the right model and options. The layout
// itself is report's goldens' to check (internal/report/testdata). It
// returns standard output.
func (e *cliEnv) reachesRenderer(format string, sides []compare.Side, args ...string) string {
	e.t.Helper()
	c, err := compare.CompareSides(sides, compare.Options{Alpha: stats.DefaultAlpha})
	if err != nil {
		e.t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.ComparisonFormats.Render(&want, format, c, report.Options{}); err != nil {
		e.t.Fatal(err)
	}
	code, stdout, stderr := e.run(args...)
	if code != 0 || stderr != "" {
		e.t.Fatalf("sectax %v: exit %d, stderr %q", args, code, stderr)
	}
	if diff := cmp.Diff(want.String(), stdout); diff != "" {
		e.t.Errorf("sectax %v differs from the %s renderer's output for the model (-renderer +command):\n%s", args, format, diff)
	}
	return stdout
}
