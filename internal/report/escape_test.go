package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/run"
)

func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain µs/op":         "plain µs/op",
		"a\x1b[31mred":        `a\x1b[31mred`,
		"bell\a":              `bell\x07`,
		"two\nlines":          `two\x0alines`,
		"del\x7f":             `del\x7f`,
		"c1\u009b2J":          `c1\u009b2J`,
		"rtl\u202eevil":       `rtl\u202eevil`,
		"bad\xffutf8":         "bad\uFFFDutf8",
		"tab\there":           `tab\x09here`,
		"\u2066isolate\u2069": `\u2066isolate\u2069`,
	} {
		if got := termSafe(in); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"on":         "`on`",
		"a`b":        "``a`b``",
		"``x":        "``` ``x ```",
		"x\n### h1":  "`x ### h1`",
		"a|b":        "`a|b`",
		"ctl\x1b[2J": "`ctl\\x1b[2J`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
	if got := codeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("codeCell = %q", got)
	}
	if got := mdEscape("x\n## y | *z* [l](u) <b> `c`"); got != "x ## y \\| \\*z\\* \\[l\\](u) &lt;b> \\`c\\`" {
		t.Errorf("mdEscape = %q", got)
	}
}

// hostileSides are runSides with control characters, line breaks and
// Markdown in the labels, a workload id, a metric name, a unit and the
// environment, as an import could bring them.
func hostileSides() (compare.Side, compare.Side) {
	a, b := runSides()
	a.Ref = "on\x1b]0;pwned\x07\n### injected heading"
	b.Ref = "off`|\r\n| fake | row |"
	for _, r := range append(append([]*run.Run{}, a.Runs...), b.Runs...) {
		r.Results[0].Metrics[0].Unit = "µs|`op`\x1b[31m\n# unit"
		r.Results[0].Metrics[1].Name = "ops\x1b[2Jper\nsec"
		r.Results[1].Workload = "sched-messaging\x07\n## wl"
	}
	a.Envs[0]["hostname"] = "box\x1b[41m\u2028\u061cmark\u2029"
	b.Envs[0]["cpu"] = map[string]any{"model_name": "CPU\x1b[0m", "microcode": "0x11\n### micro"}
	return a, b
}

// TestHostileTextEveryFormat: no format lets a control character through
// raw (except JSON's and HTML's own escaping), and no label, id or unit
// starts a Markdown heading or breaks a table row.
func TestHostileTextEveryFormat(t *testing.T) {
	a, b := hostileSides()
	c := comparison(t, a, b)
	out := allFormats(t, c)
	out["color.text"] = string(render(t, c, "text", true))
	for f, s := range out {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < 0x20 && c != '\n' && !(f == "color.text" && c == 0x1b) && !(f == "html" && c == '\t') || c == 0x7f {
				t.Errorf("%s: raw control byte %#x at %d: %q", f, c, i, s[max(0, i-30):min(len(s), i+30)])
				break
			}
		}
	}
	// Nor a bidirectional control or a line or paragraph separator (the
	// Unicode tables, not safetext's rule), in JSON either.
	for f, s := range out {
		for _, r := range s {
			if r >= 0x80 && unicode.In(r, unicode.Cc, unicode.Bidi_Control, unicode.Zl, unicode.Zp) {
				t.Errorf("%s: raw %U", f, r)
				break
			}
		}
	}
	// Colour codes are only sectax's own SGR sequences.
	for _, seq := range strings.Split(out["color.text"], "\x1b")[1:] {
		if !strings.HasPrefix(seq, "[0m") && !strings.HasPrefix(seq, "[1m") && !strings.HasPrefix(seq, "[3") {
			t.Errorf("color text: foreign escape sequence %q", seq[:min(len(seq), 10)])
		}
	}
	noHostileLineStart(t, out, "### injected", "# unit", "## wl", "| fake | row |", "### micro")
	// Every Markdown table row keeps its number of cells.
	markdownCells(t, out["md"], 4, 7)
	if !strings.Contains(out["text"], `on\x1b]0;pwned\x07\x0a### injected heading`) || !strings.Contains(out["md"], "µs\\|\\`op\\`\\\\x1b\\[31m # unit") {
		t.Errorf("the hostile label or unit is not shown escaped:\n%s\n%s", out["text"], out["md"])
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatalf("json: %v", err)
	}
	if doc["baseline"].(map[string]any)["ref"] != a.Ref {
		t.Errorf("json does not round-trip the label: %q", doc["baseline"].(map[string]any)["ref"])
	}
	rows, err := csv.NewReader(strings.NewReader(out["csv"])).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v", err)
	}
	for _, r := range rows {
		if len(r) != len(CSVHeader) {
			t.Errorf("csv row of %d fields: %q", len(r), r)
		}
	}
	rd := benchfmt.NewReader(bytes.NewReader([]byte(out["benchfmt"])), "hostile")
	n := 0
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			n++
		}
	}
	if n == 0 {
		t.Error("benchfmt: no results")
	}
}

// FuzzTermSafe: whatever the text, termSafe leaves valid UTF-8 without a
// control character, and mdEscape one line with no unescaped | or `.
func FuzzTermSafe(f *testing.F) {
	for _, s := range []string{"on", "a\x1b[31mb", "x\n### y", "bad\xff", "\u202e", "a|b`c", `\|`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := termSafe(s)
		if !utf8.ValidString(got) {
			t.Fatalf("termSafe(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if unsafeRune(r) {
				t.Fatalf("termSafe(%q) = %q keeps %U", s, got, r)
			}
		}
		md := mdEscape(s)
		if strings.ContainsAny(md, "\n\r") {
			t.Fatalf("mdEscape(%q) = %q spans lines", s, md)
		}
		for i := 0; i < len(md); i++ {
			if md[i] == '\\' {
				i++
				continue
			}
			if md[i] == '|' || md[i] == '`' {
				t.Fatalf("mdEscape(%q) = %q has a bare %c", s, md, md[i])
			}
		}
	})
}

// noHostileLineStart fails when a line of the text or Markdown output
// starts with one of bad: hostile text that broke out of its cell.
func noHostileLineStart(t *testing.T, out map[string]string, bad ...string) {
	t.Helper()
	for _, f := range []string{"text", "md"} {
		for _, l := range strings.Split(out[f], "\n") {
			for _, b := range bad {
				if strings.HasPrefix(strings.TrimSpace(l), b) {
					t.Errorf("%s: hostile text starts a line: %q", f, l)
				}
			}
		}
	}
}

// markdownCells fails on a Markdown table row whose number of unescaped
// separators is not one of counts.
func markdownCells(t *testing.T, md string, counts ...int) {
	t.Helper()
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "| ") {
			continue
		}
		cells := 0
		for i := 0; i < len(l); i++ {
			if l[i] == '\\' {
				i++
				continue
			}
			if l[i] == '|' {
				cells++
			}
		}
		if !slices.Contains(counts, cells) {
			t.Errorf("md: table row with %d separators: %q", cells, l)
		}
	}
}

// TestCSVFormulaInjection: a text cell a spreadsheet would run (=, +, -,
// @ first) begins with a single quote, as OWASP advises; the numbers,
// negative ones too, stay numbers; a C1 control or bidi override in a
// JSON string is written \uXXXX and decodes to the same text.
func TestCSVFormulaInjection(t *testing.T) {
	a, b := runSides()
	for _, r := range append(append([]*run.Run{}, a.Runs...), b.Runs...) {
		r.Results[0].Workload = `=HYPERLINK("http://evil","x")`
		r.Results[0].Metrics[0].Unit = "+cmd|' /C calc'!A0"
		r.Results[0].Metrics[1].Name = "@SUM(1+1)"
		r.Results[1].Workload = "-2+3\u009b\u202e"
	}
	c := comparison(t, a, b)
	out := allFormats(t, c)
	rows, err := csv.NewReader(strings.NewReader(out["csv"])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(CSVHeader, name) }
	negative := 0
	for _, r := range rows[1:] {
		for i, cell := range r {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				if _, err := strconv.ParseFloat(cell, 64); err != nil {
					t.Errorf("column %s: %q is a formula", CSVHeader[i], cell)
				}
			}
		}
		if strings.HasPrefix(r[col("change_pct")], "-") {
			negative++
		}
	}
	if negative == 0 {
		t.Errorf("no negative change_pct left as a number:\n%s", out["csv"])
	}
	for _, want := range []string{`'=HYPERLINK(""http://evil"",""x"")`, `'+cmd|' /C calc'!A0`, `'@SUM(1+1)`, `'-2+3\u009b\u202e`} {
		if !strings.Contains(out["csv"], want) {
			t.Errorf("CSV lacks the neutralised %s:\n%s", want, out["csv"])
		}
	}
	for _, r := range out["json"] {
		if unsafeRune(r) && r != '\n' {
			t.Fatalf("json holds %U raw", r)
		}
	}
	if !strings.Contains(out["json"], `-2+3\u009b\u202e`) {
		t.Errorf("json does not escape the C1 and bidi characters")
	}
}

// TestPlainTextDocuments: the plain-text documents of a run (sectax run's
// table, crosscheck's) pass the one sanitiser as a whole: a run whose
// every text holds escapes prints none raw.
func TestPlainTextDocuments(t *testing.T) {
	a, _ := runSides()
	r := *a.Runs[0]
	bad := "x\x1b]52;c;cHduZWQ=\a\u009b\u202e"
	r.Label, r.Suite, r.Engine, r.CPUs = bad, bad, bad, bad
	r.Notes = []string{bad}
	r.Results = slices.Clone(r.Results)
	r.Results[0].Workload = bad
	r.Results[0].Warnings = []string{bad}
	for name, f := range map[string]func(*bytes.Buffer) error{
		"run":        func(b *bytes.Buffer) error { return RunText(b, &r) },
		"crosscheck": func(b *bytes.Buffer) error { return CrosscheckText(b, &r) },
	} {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range b.String() {
			if c != '\n' && c != '\t' && unsafeRune(c) {
				t.Errorf("%s: raw %U in\n%s", name, c, b.String())
				break
			}
		}
		if !strings.Contains(b.String(), `x\x1b]52;c;cHduZWQ=\x07\u009b\u202e`) {
			t.Errorf("%s: the escaped text is not shown:\n%s", name, b.String())
		}
	}
}
