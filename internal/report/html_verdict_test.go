package report

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/sectax/sectax/internal/compare"
)

// TestVerdictClasses: every verdict of compare has a class of its own on
// the HTML page, styled by html.css; a row the test found different but
// neither better nor worse is not drawn grey like "no change".
func TestVerdictClasses(t *testing.T) {
	seen := map[string]string{}
	for _, v := range []string{compare.VerdictBetter, compare.VerdictWorse, compare.VerdictSame, compare.VerdictDiffers, compare.VerdictUntested} {
		class := verdictClass(compare.Metric{Verdict: v})
		if other, ok := seen[class]; ok {
			t.Errorf("verdicts %q and %q share the class %q", other, v, class)
		}
		seen[class] = v
		if !strings.Contains(htmlCSS, "tr."+class+" td") {
			t.Errorf("html.css has no style for rows of verdict %q (class %q)", v, class)
		}
	}
}

// TestTickLabels: chart ticks are labelled as the report writes numbers
// (Num: "25", "0.5", "12,000"), not as gonum does ("25.00" beside values
// that read "600") — at the values gonum picks.
func TestTickLabels(t *testing.T) {
	gonumZeros := false
	for _, r := range [][2]float64{{0, 62}, {0, 75}, {0, 1.3}, {-30, 70}, {0, 14000}, {0.001, 0.0042}} {
		def := plot.DefaultTicks{}.Ticks(r[0], r[1])
		got := zeroTicks{}.Ticks(r[0], r[1])
		labelled := 0
		for _, tk := range got {
			if tk.Label == "" {
				continue
			}
			labelled++
			if tk.Label != Num(tk.Value) || strings.HasSuffix(tk.Label, ".0") || strings.HasSuffix(tk.Label, ".00") {
				t.Errorf("ticks of %v: %v labelled %q, want %q", r, tk.Value, tk.Label, Num(tk.Value))
			}
		}
		if labelled < 2 {
			t.Errorf("ticks of %v: %d labelled", r, labelled)
		}
		for _, tk := range def {
			gonumZeros = gonumZeros || strings.HasSuffix(tk.Label, ".00")
		}
	}
	if !gonumZeros {
		t.Error("gonum labels none of these ranges with \".00\": the test no longer covers the case it was written for")
	}
}

// TestMemoryText: the HTML page's memory row reads in GiB, as 'sectax env'
// writes it, for one value and for a side's several; anything else stays.
func TestMemoryText(t *testing.T) {
	for in, want := range map[string]string{
		"16777216000":              "15.6 GiB",
		"8589934592 | 17179869184": "8.0 GiB | 16.0 GiB",
		"(absent)":                 "(absent)",
		"":                         "",
	} {
		if got := memoryText(in); got != want {
			t.Errorf("memoryText(%q) = %q, want %q", in, got, want)
		}
	}
}
