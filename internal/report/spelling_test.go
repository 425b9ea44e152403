package report

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sectax/sectax/internal/advise"
	"github.com/sectax/sectax/internal/attribute"
	"github.com/sectax/sectax/internal/campaign"
	"github.com/sectax/sectax/internal/compare"
	"github.com/sectax/sectax/internal/fleet"
	"github.com/sectax/sectax/internal/run"
	"github.com/sectax/sectax/internal/stats"
	"github.com/sectax/sectax/internal/sysinfo"
	"github.com/sectax/sectax/internal/wslconfig"
)

// The one spelling of intervals and percentages in every JSON document
// sectax writes (docs/format.md, "Intervals and percentages"):
//   - an interval is an object {"lo": x, "hi": y} of two numbers (or null
//     when there is none) under a key ending in _interval that names the
//     quantity it bounds and so its unit: ratio_interval (B/A),
//     change_pct_interval (percent), median_interval (the metric's unit);
//     "lo" and "hi" appear nowhere else;
//   - a percentage is a number (or null) under a key that says pct;
//   - no value is a pre-formatted figure ("+3.20%", "±1.2%"), and "~" (not
//     significant) is only ever a verdict.

var (
	// badKey are the spellings the one spelling replaced: lo_pct, ci_lo_pct,
	// a flat lo beside its median, delta.
	badKey = regexp.MustCompile(`(^|_)(lo|hi|ci)(_|$)|^delta$`)
	// badKeyFix is what to write instead.
	badKeyFix = "spell an interval as NAME_interval {lo, hi}; a change as change_pct with significant or verdict, not delta"
	// pctString is a percentage written as text.
	pctString = regexp.MustCompile(`^\s*[±+−-]?\s*[0-9][0-9.,]*\s*%\s*$`)
)

// checkSpelling walks a decoded JSON value and returns every place that
// spells an interval or a percentage otherwise.
func checkSpelling(v any, path string) []string {
	var bad []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := path + "." + k
			switch {
			case strings.HasSuffix(k, "_interval"):
				if e == nil {
					continue
				}
				iv, ok := e.(map[string]any)
				_, lo := iv["lo"].(float64)
				_, hi := iv["hi"].(float64)
				if !ok || len(iv) != 2 || !lo || !hi {
					bad = append(bad, p+": an interval is {\"lo\": number, \"hi\": number} or null")
				}
				continue
			case badKey.MatchString(k):
				bad = append(bad, p+": "+badKeyFix)
			case strings.HasSuffix(k, "_pct") || strings.Contains(k, "_pct_"):
				if !pctNumber(e) {
					bad = append(bad, p+": a percentage is a number (or null, or an object of numbers)")
				}
			}
			if s, ok := e.(string); ok && s == "~" && k != "verdict" {
				bad = append(bad, p+`: "~" is a verdict; say it with "significant" or "verdict"`)
			}
			bad = append(bad, checkSpelling(e, p)...)
		}
	case []any:
		for i, e := range x {
			bad = append(bad, checkSpelling(e, path+"["+strconv.Itoa(i)+"]")...)
		}
	case string:
		if pctString.MatchString(x) {
			bad = append(bad, path+": "+x+" is a pre-formatted percentage; give the number")
		}
	}
	return bad
}

func pctNumber(v any) bool {
	switch x := v.(type) {
	case nil, float64:
		return true
	case map[string]any:
		for _, e := range x {
			if _, ok := e.(float64); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// jsonDocuments are the JSON documents of a test file: the file itself, or
// the stdout of a CLI transcript ("$ sectax …", "--- stdout", …).
func jsonDocuments(b []byte) []any {
	var docs []any
	if out, ok := transcriptStdout(b); ok {
		b = out
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			return docs
		}
		docs = append(docs, v)
	}
}

func transcriptStdout(b []byte) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte("$ ")) {
		return nil, false
	}
	_, rest, ok := bytes.Cut(b, []byte("\n--- stdout\n"))
	if !ok {
		return nil, true
	}
	out, _, _ := bytes.Cut(rest, []byte("\n--- stderr\n"))
	return out, true
}

// TestJSONSpelling walks every JSON golden file of every package (the
// documents sectax writes, as its tests pin them) and fails on an interval
// or a percentage spelled any other way than the one.
func TestJSONSpelling(t *testing.T) {
	docs := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.Contains(filepath.ToSlash(path), "/testdata/") ||
			!(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".golden")) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range jsonDocuments(b) {
			docs++
			for _, msg := range checkSpelling(doc, "") {
				t.Errorf("%s: %s", path, msg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs < 50 {
		t.Fatalf("found %d JSON documents below internal/*/testdata; the walk is broken", docs)
	}
}

// TestJSONSpellingTypes checks, by reflection, the JSON names of every
// field reachable from the documents sectax writes, so that a field the
// goldens never show (omitempty, a rare case) keeps the one spelling too.
func TestJSONSpellingTypes(t *testing.T) {
	roots := []any{compare.Comparison{}, compare.Report{}, fleet.Report{}, attribute.Attribution{},
		attribute.ProbeReport{}, attribute.Design{}, campaign.Status{}, advise.Advice{}, advise.Verification{},
		sysinfo.Snapshot{}, run.Run{}, wslconfig.Shown{}, ListRow{}}
	interval := reflect.TypeFor[stats.Interval]()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.ConvertibleTo(interval) {
			return
		}
		seen[ty] = true
		for f := range ty.Fields() {
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if tag == "" {
				if f.Anonymous {
					walk(f.Type, path)
				}
				// An untagged field of a type with its own MarshalJSON
				// (stats.Summary) is not what the document spells; the
				// golden walk checks that document.
				continue
			}
			p := path + "." + name
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case strings.HasSuffix(name, "_interval"):
				if ft.Kind() != reflect.Struct || !ft.ConvertibleTo(interval) {
					t.Errorf("%s (%s.%s): an interval is a stats.Interval", p, ty, f.Name)
				}
			case badKey.MatchString(name):
				t.Errorf("%s (%s.%s): %s", p, ty, f.Name, badKeyFix)
			case strings.HasSuffix(name, "_pct") || strings.Contains(name, "_pct_"):
				k := ft.Kind()
				if k == reflect.Map {
					k = ft.Elem().Kind()
				}
				if k != reflect.Float64 && k != reflect.Float32 && k != reflect.Int {
					t.Errorf("%s (%s.%s): a percentage is a number, not %s", p, ty, f.Name, f.Type)
				}
			}
			walk(f.Type, p)
		}
	}
	for _, r := range roots {
		walk(reflect.TypeOf(r), reflect.TypeOf(r).String())
	}
}

// TestCheckSpelling: the checker flags each spelling the one replaced, and
// passes the one.
func TestCheckSpelling(t *testing.T) {
	for _, c := range []struct {
		doc string
		bad int
	}{
		{`{"a": {"median": 1, "median_interval": {"lo": 0.9, "hi": 1.1}}, "ratio_interval": null, "change_pct": -3.2, "verdict": "~", "significant": false}`, 0},
		{`{"per_host_pct": {"h1": 3.5}, "median_pct_interval": null, "tax_pct": null}`, 0},
		{`{"a": {"median": 1, "lo": 0.9, "hi": 1.1}}`, 2},
		{`{"lo_pct": 1, "hi_pct": 2}`, 2},
		{`{"ci_lo_pct": 1, "ci_hi_pct": 2}`, 2},
		{`{"delta": "+3.20%"}`, 2},
		{`{"delta": "~"}`, 2},
		{`{"change": "−40.73%"}`, 1},
		{`{"change_pct": "3.2"}`, 1},
		{`{"change_pct_interval": {"lo": 1}}`, 1},
		{`{"ratio_interval": [0.9, 1.1]}`, 1},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.doc), &v); err != nil {
			t.Fatal(err)
		}
		if got := checkSpelling(v, ""); len(got) != c.bad {
			t.Errorf("%s: %d findings %q, want %d", c.doc, len(got), got, c.bad)
		}
	}
}
