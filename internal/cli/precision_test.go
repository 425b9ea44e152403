package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/report"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// TestRunPrecisionGolden: under --precision the scripted workloads reach
// ±2% at the minimum of 6, their warm-up is detected, the text says so
// and the JSON carries each result's stopping and warm-up blocks.
func TestRunPrecisionGolden(t *testing.T) {
	runGolden(t, "run-precision", "--precision", "2", "--max-time", "1h")
}

func TestPrecisionUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--precision", "0"}, "--precision 0: give the target half-width"},
		{[]string{"run", "--precision", "-2"}, "--precision -2: give the target half-width"},
		{[]string{"run", "--precision", "NaN"}, "--precision NaN: give the target half-width"},
		{[]string{"run", "--precision", "+Inf"}, "--precision +Inf: give the target half-width"},
		{[]string{"run", "--precision", "101"}, "--precision 101: give the target half-width"},
		{[]string{"run", "--precision", "two"}, `--precision "two": give a percentage such as 3 or 3%`},
		{[]string{"run", "--precision", "3%", "--max-time", "0s"}, "--max-time 0s: give a positive duration"},
		{[]string{"run", "--precision", "±200%"}, "--precision 200: give the target half-width"},
		{[]string{"run", "--precision", "2", "--max-time", "0s"}, "--max-time 0s: give a positive duration"},
		{[]string{"run", "--precision", "2", "--max-time", "-1m"}, "--max-time -1m0s: give a positive duration"},
		{[]string{"run", "--max-time", "1m"}, "--max-time bounds the precision rule: add --precision PCT"},
		{[]string{"crosscheck", "--precision", "0"}, "--precision 0: give the target half-width"},
		{[]string{"lab", "--precision", "200"}, "--precision 200: give the target half-width"},
		{[]string{"campaign", "start", "--precision", "NaN"}, "--precision NaN: give the target half-width"},
	} {
		out, errs, code := sectax(t, fixedDeps(nil), tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("sectax %v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q",
				tt.args, code, out, errs, tt.want)
		}
	}
}

// TestRunPrecisionRealTiny measures two real workloads at tiny sizes
// under a loose target through the CLI: each result says by which rule
// it stopped, consistently with its samples (the machine is shared, so
// whether the target is reached in time is not asserted).
func TestRunPrecisionRealTiny(t *testing.T) {
	out, errs, code := sectax(t, fixedDeps(nil), "run", "--no-store", "--root", wslOn, "--only", "syscall-basic,ctl-user",
		"--param", "syscall-basic.loops=1000", "--param", "ctl-user.loops=1000",
		"--precision", "50", "--max-time", "30s", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r run.Run
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 || r.Repetitions != 6 || r.Warmup != 0 {
		t.Fatalf("%d results, runs %d, warmup %d; want 2, the minimum 6, and the warm-up detected", len(r.Results), r.Repetitions, r.Warmup)
	}
	for _, res := range r.Results {
		s, w := res.Stopping, res.WarmupDone
		if s == nil || w == nil || s.Rule != run.RulePrecision || *s.TargetPct != 50 || w.Rule != run.WarmupDetect {
			t.Fatalf("%s: stopping %+v, warm-up %+v", res.Workload, s, w)
		}
		n := len(res.Metrics[0].Samples)
		switch s.Reason {
		case run.ReasonReached:
			if n < 6 || s.AchievedPct == nil || *s.AchievedPct > 50 {
				t.Errorf("%s: reached with %d samples at %v", res.Workload, n, s.AchievedPct)
			}
		case run.ReasonMaxTime:
		default:
			t.Errorf("%s: reason %s", res.Workload, s.Reason)
		}
	}
}

// TestProgressPrecision: under the precision rule the progress line says
// that the rule decides the total and counts what it has done (the round
// and the repetitions so far, never a floor that keeps moving), never
// counts past a total, and numbers each repetition of a workload once
// (issue 39: "spawn warmup 2" five times).
func TestProgressPrecision(t *testing.T) {
	deps := fixedDeps(fakeRegistry())
	deps.StderrIsTerminal = true
	_, errs, code := sectax(t, deps, "run", "--root", wslOn, "--precision", "2", "--seed", "3", "--no-store")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "[round 1, 1 done, until ±2% or 10:00] alpha warmup 1 · 0:00 elapsed · at most 10:00 left") {
		t.Errorf("progress does not say the rule decides:\n%q", errs)
	}
	if strings.Contains(errs, "of at least") {
		t.Errorf("progress shows a floor that moves:\n%q", errs)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(errs, "\r\x1b[K") {
		if _, rest, ok := strings.Cut(line, "] "); ok {
			rep, _, _ := strings.Cut(rest, " ·") // "beta warmup 2"
			if seen[rep] {
				t.Errorf("%q is said twice:\n%q", rep, errs)
			}
			seen[rep] = true
		}
		if strings.Contains(line, "ETA ~") && !strings.Contains(line, "a guess") {
			t.Errorf("an ETA under the precision rule is not said to be a guess: %q", line)
		}
		var done, total int
		if n, _ := fmt.Sscanf(line, "[%d/%d]", &done, &total); n == 2 && done > total {
			t.Errorf("progress counts past its total: %q", line)
		}
	}
}

// TestProgressFitsWidth: every progress line under --precision fits one
// row of the terminal (100 columns when it does not say, 80 and 60 here), so
// that \r redraws it instead of smearing it over the rows it wrapped to.
func TestProgressFitsWidth(t *testing.T) {
	for _, width := range []int{0, heldOutWidth, 60} {
		deps := fixedDeps(fakeRegistry())
		deps.StderrIsTerminal, deps.StderrWidth = true, width
		_, errs, code := sectax(t, deps, "run", "--root", wslOn, "--precision", "2", "--seed", "3", "--no-store")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if width == 0 {
			width = report.TextWidth
		}
		lines := strings.Split(errs, "\r\x1b[K")
		if len(lines) < 3 {
			t.Fatalf("no progress drawn:\n%q", errs)
		}
		for _, line := range lines {
			line, _, _ = strings.Cut(line, "\n") // a notice after the last redraw
			if !strings.HasPrefix(line, "[") {
				continue // a notice, not progress
			}
			if n := utf8.RuneCountInString(line); n >= width {
				t.Errorf("width %d: a progress line of %d columns: %q", width, n, line)
			}
		}
	}
}

// TestRunShowTextWidth: the text goldens of run and show fit 100 columns
// (report.TextWidth; env's goldens are report's, checked there).
func TestRunShowTextWidth(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "run*.text"))
	files = append(files, filepath.Join("testdata", "cli", "crashed-show.golden"))
	if len(files) < 3 {
		t.Fatalf("goldens not found: %q", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if n := utf8.RuneCountInString(l); n > report.TextWidth {
				t.Errorf("%s:%d: %d columns: %q", f, i+1, n, l)
			}
		}
	}
	// No text says "(null)": decide once rendered a saving's JSON null.
	decided, _ := filepath.Glob(filepath.Join("testdata", "decide", "*"))
	for _, f := range append(decided, files...) {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "(null)") {
			t.Errorf("%s says (null)", f)
		}
	}
}

// TestTextFitsWidth: the text goldens of compare, list, workloads,
// baselines, advise, decide and verify (their proofs too), attribute
// plan, campaign status and the dry runs hold no line wider than 100
// columns (report.TextWidth) but a command line to copy
// (testutil.CopyLine); every test that runs a read-only command checks
// its text at 100 and at 80 columns too (checkTextWidths).
func TestTextFitsWidth(t *testing.T) {
	var files []string
	for _, p := range []string{"workloads.text", "cli/baselines.golden", "cli/compare-text.golden", "cli/compare-alpha.golden",
		"cli/compare-margin.golden", "cli/compare-multi-text.golden", "cli/list.golden", "cli/crashed-list.golden",
		"decide/*.text", "advise/*.text", "advise-arch/*.text", "verify/*.text", "attribute/*.txt",
		"campaign-*.txt", "dry-run/*.txt", "machine-newline/*.txt"} {
		m, _ := filepath.Glob(filepath.Join("testdata", p))
		if len(m) == 0 {
			t.Fatalf("no golden matches %s", p)
		}
		files = append(files, m...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// A golden names a temporary folder $DIR: the path it stands for.
		text := strings.ReplaceAll(string(b), "$DIR/", "/DIR/")
		for _, l := range testutil.WideLines(text, report.TextWidth) {
			t.Errorf("%s:%s (wider than %d columns, and not a command line to copy)", f, l, report.TextWidth)
		}
	}
}
