package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/testutil"
)

// checkWidth fails for a line of a golden wider than TextWidth runes and
// for a "(null)" (a nil value rendered) anywhere in it.
func checkWidth(t *testing.T, patterns ...string) {
	t.Helper()
	n := 0
	for _, p := range patterns {
		files, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, l := range testutil.WideLines(string(b), TextWidth) {
				t.Errorf("%s:%s (wider than %d columns, and not a command line to copy)", f, l, TextWidth)
			}
			for i, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "(null)") {
					t.Errorf("%s:%d: says (null): %q", f, i+1, l)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("no golden matches %q", patterns)
	}
}

// TestTextWidth: every line the text goldens of run, env, advise, verify,
// compare, the lab matrix, probes, crosscheck, attribution, fleet and
// decide hold (but a command line to copy, testutil.CopyLine) (show's
// are cli's: TestShowRunWidth there) fits TextWidth columns; fitsWidths
// renders them at heldOutWidth too.
func TestTextWidth(t *testing.T) {
	checkWidth(t, "testdata/env/*.txt", "testdata/run-precision.text", "testdata/advise/*.text", "testdata/verify/*.text",
		"testdata/runs.text", "testdata/study-wsl3.text", "testdata/lab-kvm.text", "testdata/runs-multi.text",
		"testdata/study-matrix.text", "testdata/lab-matrix.text", "testdata/probes.txt", "testdata/crosscheck.txt",
		"testdata/attribution.txt", "testdata/fleet.txt", "testdata/decide-claims.text")
}

// TestRunShowOneTable: run and show draw a run's results as one table
// (the same lines from its header on), and a go-build row with a long
// target list, a long command line and long notes stay within TextWidth.
func TestRunShowOneTable(t *testing.T) {
	at := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	targets := "math math/cmplx math/big math/bits math/rand strconv strings unicode/utf8 bytes bufio sort container/heap"
	r := &run.Run{Schema: run.Schema, ID: "20261202T070000-000002", Label: "on", Started: at, Finished: at.Add(time.Minute),
		Status: run.StatusComplete, Suite: "standard", Engine: "native", Repetitions: 6,
		Notes: []string{"go-build: " + strings.Repeat("the build is timed from a clean cache each repetition, ", 6)},
		Results: []run.Result{{Workload: "go-build", Params: map[string]any{"dir": "", "target": targets},
			Metrics:  []run.Metric{{Name: "seconds", Unit: "s", Better: run.Lower, Samples: []float64{3.1, 3.2, 3.0, 3.3, 3.1, 3.2}}},
			Warnings: []string{strings.Repeat("a long warning word ", 12)},
		}}}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	env := map[string]any{"cmdline": map[string]any{"raw": strings.Repeat("console=ttyS0 quiet ", 20) + "-- --init-arg"}}
	var rt, st bytes.Buffer
	if err := RunText(&rt, r); err != nil {
		t.Fatal(err)
	}
	if err := ShowText(&st, r, env, 0); err != nil {
		t.Fatal(err)
	}
	table := func(s string) string {
		i := strings.Index(s, "workload / metric")
		if i < 0 {
			t.Fatalf("no results table:\n%s", s)
		}
		return s[i:]
	}
	if a, b := table(rt.String()), table(st.String()); a != b {
		t.Errorf("run and show draw the results differently:\nrun:\n%s\nshow:\n%s", a, b)
	}
	for _, out := range []string{rt.String(), st.String()} {
		for _, l := range strings.Split(out, "\n") {
			if w := utf8.RuneCountInString(l); w > TextWidth {
				t.Errorf("%d columns (at most %d): %q", w, TextWidth, l)
			}
		}
		for _, want := range []string{"95% interval", "\nNotes:\n", "\nWarnings:\n", "--init-arg", "unicode/utf8 bytes"} {
			if want == "--init-arg" && out == rt.String() {
				continue
			}
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, out)
			}
		}
	}
}

// TestTableParts: a table wider than its writer is split into parts that
// each fit, each with the key column, a group of columns kept together,
// and every cell of the table in one of them; one that fits is one table.
func TestTableParts(t *testing.T) {
	var tb table
	tb.starts = []int{1, 3}
	tb.add(cell{text: "key"}, cell{text: "first"}, cell{text: "second-a"}, cell{text: "third"}, cell{text: "fourth"})
	tb.add(cell{text: "spanning line, longer than any part of the table"})
	for i := 0; i < 3; i++ {
		tb.add(cell{text: fmt.Sprintf("  row %d", i)}, cell{text: strings.Repeat("a", 20)}, cell{text: strings.Repeat("b", 12)},
			cell{text: strings.Repeat("c", 25)}, cell{text: strings.Repeat("d", 25)})
	}
	tb.add(cell{}, cell{}, cell{}, cell{text: "under c"}, cell{})
	var one bytes.Buffer
	if err := tb.write(WithWidth(&one, 200), false); err != nil {
		t.Fatal(err)
	}
	if strings.Count(one.String(), "key") != 1 {
		t.Errorf("a table that fits is split:\n%s", one.String())
	}
	var split bytes.Buffer
	if err := tb.write(WithWidth(&split, 62), false); err != nil {
		t.Fatal(err)
	}
	out := split.String()
	parts := strings.Split(out, "\n\n")
	if len(parts) != 2 {
		t.Fatalf("want 2 parts at 62 columns, got %d:\n%s", len(parts), out)
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 62 && !strings.HasPrefix(l, "spanning") {
			t.Errorf("%d columns at 62: %q", n, l)
		}
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, "key") || !strings.Contains(p, "  row 2") || !strings.Contains(p, "spanning line") {
			t.Errorf("part %d lacks the key column or the spanning line:\n%s", i, p)
		}
	}
	// first and second-a are one group: they stay in one part.
	if !strings.Contains(parts[0], "first") || !strings.Contains(parts[0], "second-a") || strings.Contains(parts[0], "third") {
		t.Errorf("the first part is not the first group:\n%s", parts[0])
	}
	for _, c := range []string{strings.Repeat("c", 25), strings.Repeat("d", 25), "under c", "fourth"} {
		if !strings.Contains(parts[1], c) {
			t.Errorf("the second part lacks %q:\n%s", c, parts[1])
		}
	}
	if strings.Count(out, "under c") != 1 || strings.Contains(parts[0], "\n\n") {
		t.Errorf("a row with nothing in a part's columns is drawn there:\n%s", out)
	}
}

// heldOutWidth is the width every text output is checked at besides
// TextWidth, the one its golden holds: issue 49's held-out check.
const heldOutWidth = 80

// fitsWidths: the text render writes at TextWidth and at heldOutWidth
// columns holds no line wider (but a command line to copy,
// testutil.CopyLine).
func fitsWidths(t *testing.T, name string, render func(w io.Writer) error) {
	t.Helper()
	for _, width := range []int{TextWidth, heldOutWidth} {
		var b bytes.Buffer
		if err := render(WithWidth(&b, width)); err != nil {
			t.Fatalf("%s at %d columns: %v", name, width, err)
		}
		for _, l := range testutil.WideLines(b.String(), width) {
			t.Errorf("%s at %d columns: line %s", name, width, l)
		}
	}
}

// TestWidthOf: a writer's width is WithWidth's, at least MinWidth, and
// TextWidth for a writer without one; errWriter and a renderer's buffer
// pass it on.
func TestWidthOf(t *testing.T) {
	var b bytes.Buffer
	for _, c := range []struct {
		w    io.Writer
		want int
	}{{&b, TextWidth}, {WithWidth(&b, 0), TextWidth}, {WithWidth(&b, 80), 80}, {WithWidth(&b, 10), MinWidth},
		{&errWriter{w: WithWidth(&b, 72)}, 72}, {newTextBuf(WithWidth(&b, 64)), 64}} {
		if got := widthOf(c.w); got != c.want {
			t.Errorf("widthOf(%T) = %d, want %d", c.w, got, c.want)
		}
	}
}
